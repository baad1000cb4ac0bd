package kernel

import (
	"encoding/binary"

	"github.com/unitrace/unitrace/kernel/sched"
)

// Signals, as the Go runtime uses them: SIGURG from tgkill for asynchronous preemption, and
// synchronous SIGSEGV/SIGBUS/SIGFPE/SIGILL/SIGTRAP for faults in Go code, which the runtime turns
// into panics. Delivery follows Linux: a Linux-compatible signal frame on the thread's stack (or
// its sigaltstack with SA_ONSTACK), the handler entered with (sig, &info, &uc), and
// rt_sigreturn restoring the (possibly modified) context.
//
// A signal is delivered when the thread it targets next returns from the kernel (a system call
// or an interrupt). A thread blocked in a system call keeps the signal pending until its call
// completes: the runtime never needs a blocked thread interrupted (it signals running threads).

const (
	sigHUP     = 1
	sigILL     = 4
	sigTRAP    = 5
	sigABRT    = 6
	sigBUS     = 7
	sigFPE     = 8
	sigKILL    = 9
	sigSEGV    = 11
	sigPIPE    = 13
	sigCHLD    = 17
	sigCONT    = 18
	sigSTOP    = 19
	sigURG     = 23
	sigWINCH   = 28
	numSignals = 64

	sigDFL = 0
	sigIGN = 1

	saSiginfo   = 0x4
	saOnstack   = 0x08000000
	saRestart   = 0x10000000
	saNodefer   = 0x40000000
	saResethand = 0x80000000
	saRestorer  = 0x04000000

	ssOnstack = 1
	ssDisable = 2

	siTkill    = -6
	siUser     = 0
	siKernel   = 0x80
	segvMaperr = 1
	segvAccerr = 2
	fpeIntdiv  = 1
	illIllopn  = 2
	busAdraln  = 1
	trapBrkpt  = 1

	sigBlockSet = 0
	sigUnblock  = 1
	sigSetmask  = 2
)

type sigaction struct {
	handler, flags, restorer, mask uint64
}

var sigactions [numSignals + 1]sigaction

// A pending synchronous fault for the running thread: its siginfo fields.
type sigInfo struct {
	signo, code int32
	addr        uint64
	pid         int32
}

var pendingInfo [maxThreads][numSignals + 1]sigInfo

func sigBit(sig int) uint64 { return 1 << uint(sig-1) }

// unblockable signals: SIGKILL and SIGSTOP can never be blocked.
const unblockable = 1<<(sigKILL-1) | 1<<(sigSTOP-1)

func sysSigaction(sig int, act, old uintptr, size uintptr) uint64 {
	if sig < 1 || sig > numSignals || size != 8 {
		return neg(EINVAL)
	}
	if old != 0 {
		b, ok := userBytes(old, 32, true)
		if !ok {
			return neg(EFAULT)
		}
		a := sigactions[sig]
		binary.LittleEndian.PutUint64(b[0:], a.handler)
		binary.LittleEndian.PutUint64(b[8:], a.flags)
		binary.LittleEndian.PutUint64(b[16:], a.restorer)
		binary.LittleEndian.PutUint64(b[24:], a.mask)
	}
	if act != 0 {
		if sig == sigKILL || sig == sigSTOP {
			return neg(EINVAL)
		}
		b, ok := userBytes(act, 32, false)
		if !ok {
			return neg(EFAULT)
		}
		sigactions[sig] = sigaction{handler: binary.LittleEndian.Uint64(b[0:]), flags: binary.LittleEndian.Uint64(b[8:]), restorer: binary.LittleEndian.Uint64(b[16:]), mask: binary.LittleEndian.Uint64(b[24:]) &^ unblockable}
	}
	return 0
}

func sysSigprocmask(how int, set, old uintptr, size uintptr) uint64 {
	if size != 8 {
		return neg(EINVAL)
	}
	t := cur()
	if old != 0 && !writeUser64(old, t.sigMask) {
		return neg(EFAULT)
	}
	if set == 0 {
		return 0
	}
	m, ok := readUser64(set)
	if !ok {
		return neg(EFAULT)
	}
	switch how {
	case sigBlockSet:
		t.sigMask |= m
	case sigUnblock:
		t.sigMask &^= m
	case sigSetmask:
		t.sigMask = m
	default:
		return neg(EINVAL)
	}
	t.sigMask &^= unblockable
	return 0
}

func sysSigaltstackImpl(f *Frame, ss, old uintptr) uint64 {
	t := cur()
	onStack := t.altSize != 0 && uint64(frameSP(f)-t.altStack) < uint64(t.altSize)
	if old != 0 {
		b, ok := userBytes(old, 24, true)
		if !ok {
			return neg(EFAULT)
		}
		flags := uint32(t.altFlags)
		if t.altSize == 0 {
			flags = ssDisable
		} else if onStack {
			flags = ssOnstack
		}
		binary.LittleEndian.PutUint64(b[0:], uint64(t.altStack))
		binary.LittleEndian.PutUint64(b[8:], uint64(flags))
		binary.LittleEndian.PutUint64(b[16:], uint64(t.altSize))
	}
	if ss != 0 {
		b, ok := userBytes(ss, 24, false)
		if !ok {
			return neg(EFAULT)
		}
		if onStack {
			return neg(EPERM)
		}
		sp, flags, size := uintptr(binary.LittleEndian.Uint64(b[0:])), int32(binary.LittleEndian.Uint64(b[8:])), uintptr(binary.LittleEndian.Uint64(b[16:]))
		switch {
		case flags == ssDisable:
			t.altStack, t.altSize, t.altFlags = 0, 0, 0
		case uint32(flags)&^(1<<31) != 0: // only SS_AUTODISARM may accompany 0
			return neg(EINVAL)
		case size < 2048: // MINSIGSTKSZ
			return neg(ENOMEM)
		default:
			t.altStack, t.altSize, t.altFlags = sp, size, flags
		}
	}
	return 0
}

// sendSignal makes sig pending for the thread in slot. A thread running on another CPU gets it
// at that CPU's next kernel entry, which a kick makes immediate (the Go runtime's preemption
// signal must not wait for a tick).
func sendSignal(slot int32, sig int, info sigInfo) {
	t := &threads[slot]
	t.sigPending |= sigBit(sig)
	pendingInfo[slot][sig] = info
	if c := scheduler.CPU(slot); scheduler.State(slot) == sched.Running && c != int32(cpuIndex()) && t.sigMask&sigBit(sig) == 0 {
		kickCPU(int(c))
	}
}

func sysTgkillImpl(f *Frame, tgid, tid int32, sig int) uint64 {
	if sig < 0 || sig > numSignals || tid <= 0 || (tgid != processID && tgid != -1) {
		return neg(EINVAL)
	}
	slot := slotOfTID(tid)
	if slot < 0 {
		return neg(ESRCH)
	}
	if sig == 0 {
		return 0
	}
	sendSignal(slot, sig, sigInfo{signo: int32(sig), code: siTkill, pid: processID})
	return 0
}

func sysKillImpl(f *Frame, pid int32, sig int) uint64 {
	if sig < 0 || sig > numSignals {
		return neg(EINVAL)
	}
	if pid != processID && pid != 0 && pid != -1 {
		return neg(ESRCH)
	}
	if sig == 0 {
		return 0
	}
	// Process-directed: the running thread takes it unless it blocks it.
	target := curSlot()
	if cur().sigMask&sigBit(sig) != 0 {
		for i := int32(firstThreadSlot); i < maxThreads; i++ {
			if scheduler.State(i) != sched.Free && threads[i].sigMask&sigBit(sig) == 0 {
				target = i
				break
			}
		}
	}
	sendSignal(target, sig, sigInfo{signo: int32(sig), code: siUser, pid: processID})
	return 0
}

// deliverSignals runs just before the kernel returns to the thread in f: it enters the handler
// of the lowest pending, unblocked signal, or performs its default action.
func deliverSignals(f *Frame) {
	if onIdle() {
		return
	}
	t := cur()
	ready := t.sigPending &^ t.sigMask
	if ready == 0 {
		return
	}
	sig := 1
	for ready&1 == 0 {
		ready >>= 1
		sig++
	}
	deliverOne(f, sig)
}

// deliverOne takes sig off the running thread's pending set and acts on it.
func deliverOne(f *Frame, sig int) {
	t := cur()
	t.sigPending &^= sigBit(sig)
	info := pendingInfo[curSlot()][sig]
	a := sigactions[sig]
	switch a.handler {
	case sigIGN:
		return
	case sigDFL:
		if defaultIgnored(sig) {
			return
		}
		killedBy(f, sig, info)
		return
	}
	if !pushSignalFrame(f, t, sig, info, a) {
		// The thread's stack cannot take the frame: Linux kills the process with SIGSEGV.
		killedBy(f, sigSEGV, sigInfo{signo: sigSEGV, code: siKernel})
		return
	}
	if a.flags&saNodefer == 0 {
		t.sigMask |= sigBit(sig)
	}
	t.sigMask |= a.mask
	t.sigMask &^= unblockable
	if a.flags&saResethand != 0 {
		sigactions[sig].handler = sigDFL
	}
}

// forceSignal delivers a synchronous fault signal now; if the program blocks or ignores it,
// it dies of it, as on Linux.
func forceSignal(f *Frame, sig int, info sigInfo) {
	t := cur()
	a := sigactions[sig]
	if t.sigMask&sigBit(sig) != 0 || a.handler == sigIGN {
		sigactions[sig].handler = sigDFL
		t.sigMask &^= sigBit(sig)
	}
	sendSignal(curSlot(), sig, info)
	deliverOne(f, sig)
}

func defaultIgnored(sig int) bool {
	switch sig {
	case sigCHLD, sigURG, sigWINCH, sigCONT:
		return true
	}
	return false
}

// killedBy ends the program the way Linux's default action would, with the shell's status
// convention 128+signal.
func killedBy(f *Frame, sig int, info sigInfo) {
	klog().s("program killed by signal ").d(int64(sig)).s(" at pc ").x(uint64(framePC(f))).s(", addr ").x(info.addr).nl()
	exitGroup(128 + sig)
}
