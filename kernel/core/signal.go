package core

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/klog"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/sched"
	"github.com/unitrace/unitrace/kernel/signal"
	"github.com/unitrace/unitrace/kernel/tp"
)

// Signals: the system calls and the delivery that package signal's rules decide, glued to the
// Threads, their memory and their trap frames. The frames themselves are in signal_amd64.go and
// signal_arm64.go.

// sigactions are the process's dispositions.
var sigactions signal.Actions

func SysSigaction(sig int, act, old uintptr, size uintptr) uint64 {
	// Linux's order: the size, reading the new action (EFAULT), the signal (EINVAL), and the
	// old action written last.
	if size != signal.SigsetSize {
		return abi.Neg(abi.EINVAL)
	}
	var actBytes []byte
	if act != 0 {
		b, ok := UserBytes(act, signal.ActionSize, false)
		if !ok {
			return abi.Neg(abi.EFAULT)
		}
		actBytes = b
	}
	if !signal.Valid(sig) || act != 0 && !signal.CanCatch(sig) {
		return abi.Neg(abi.EINVAL)
	}
	prev := sigactions[sig]
	if act != 0 {
		sigactions.Set(sig, signal.ReadAction(actBytes))
	}
	if old != 0 {
		b, ok := UserBytes(old, signal.ActionSize, true)
		if !ok {
			return abi.Neg(abi.EFAULT)
		}
		signal.PutAction(b, prev)
	}
	return 0
}

func SysSigprocmask(how int, set, old uintptr, size uintptr) uint64 {
	if size != signal.SigsetSize {
		return abi.Neg(abi.EINVAL)
	}
	// Linux's order: the new set (EFAULT, then how: EINVAL), the old one written last.
	t := Cur()
	prev := t.Sig.Mask
	if set != 0 {
		m, ok := ReadUser64(set)
		if !ok {
			return abi.Neg(abi.EFAULT)
		}
		mask, ok := signal.ChangeMask(t.Sig.Mask, how, signal.Set(m))
		if !ok {
			return abi.Neg(abi.EINVAL)
		}
		t.Sig.Mask = mask
	}
	if old != 0 && !WriteUser64(old, uint64(prev)) {
		return abi.Neg(abi.EFAULT)
	}
	return 0
}

func DoSigaltstack(f *machine.Frame, ss, old uintptr) uint64 {
	// Linux's order: the new stack is read and checked, and the old one (as it was before)
	// written only once that succeeded.
	t := Cur()
	sp := machine.FrameSP(f)
	prev := t.Sig.Alt.Report(sp)
	if ss != 0 {
		b, ok := UserBytes(ss, signal.StackSize, false)
		if !ok {
			return abi.Neg(abi.EFAULT)
		}
		if errno := t.Sig.Alt.Change(signal.ReadStack(b), sp); errno != 0 {
			return abi.Neg(errno)
		}
	}
	if old != 0 {
		b, ok := UserBytes(old, signal.StackSize, true)
		if !ok {
			return abi.Neg(abi.EFAULT)
		}
		signal.PutStack(b, prev)
	}
	return 0
}

// SendSignal makes sig pending for the thread in slot, and makes sure the thread gets it soon
// (notifySignal).
func SendSignal(slot int32, sig int, info signal.Info) {
	notifySignal(slot, sig, Threads[slot].Sig.Send(sig, info))
}

// sendTimedSignal makes a POSIX timer's sig pending for the thread in slot (the timer table
// keeps which timer and its overrun).
func sendTimedSignal(slot int32, sig int) {
	t := &Threads[slot]
	t.Sig.Timed |= signal.Bit(sig)
	notifySignal(slot, sig, !t.Sig.Mask.Has(sig))
}

// notifySignal makes the thread in slot, which takes sig unless it blocks it (takes), see it
// soon. A thread running on another CPU gets it at that CPU's next kernel entry, which a kick
// makes immediate (the Go runtime's preemption signal must not wait for a tick); a thread blocked
// in a system call has the call interrupted (waits.go), unless the signal is ignored, which
// Linux would not wake it for.
func notifySignal(slot int32, sig int, takes bool) {
	if !takes {
		return
	}
	switch Scheduler.State(slot) {
	case sched.Running:
		if c := Scheduler.CPU(slot); c != int32(machine.CPUIndex()) {
			KickCPU(int(c))
		}
	case sched.Blocked:
		if sigactions[sig].Disposition(sig) != signal.Ignore {
			interruptWait(slot)
		}
	}
}

func DoTgkill(f *machine.Frame, tgid, tid int32, sig int) uint64 {
	// Linux's order: ids that are not positive EINVAL, then the thread (ESRCH), then the
	// signal (EINVAL).
	if tid <= 0 || tgid <= 0 {
		return abi.Neg(abi.EINVAL)
	}
	slot := SlotOfTID(tid)
	if slot < 0 || tgid != ProcessID {
		return abi.Neg(abi.ESRCH)
	}
	if sig < 0 || sig > signal.NSIG {
		return abi.Neg(abi.EINVAL)
	}
	if sig == 0 {
		return 0
	}
	SendSignal(slot, sig, signal.Info{Signo: int32(sig), Code: signal.SI_TKILL, Pid: ProcessID})
	return 0
}

func DoKill(f *machine.Frame, pid int32, sig int) uint64 {
	// The process first (ESRCH), then the signal, as Linux.
	if pid != ProcessID && pid != 0 && pid != -1 && pid != -ProcessID {
		return abi.Neg(abi.ESRCH)
	}
	if sig < 0 || sig > signal.NSIG {
		return abi.Neg(abi.EINVAL)
	}
	if sig == 0 {
		return 0
	}
	target := signal.ProcessTarget(sig, int(CurSlot()), Cur().Sig.Mask, FirstThreadSlot, MaxThreads, liveThreadMask)
	SendSignal(int32(target), sig, signal.Info{Signo: int32(sig), Code: signal.SI_USER, Pid: ProcessID})
	return 0
}

// liveThreadMask reports the signal mask of the thread in slot, and whether it is live.
func liveThreadMask(slot int) (signal.Set, bool) {
	t := &Threads[slot]
	return t.Sig.Mask, Scheduler.State(int32(slot)) != sched.Free
}

// DeliverSignals runs just before the kernel returns to the thread in f: it delivers the signal
// the thread takes next, if any.
func DeliverSignals(f *machine.Frame) {
	if OnIdle() {
		return
	}
	t := Cur()
	if sig := t.Sig.Next(); sig != 0 {
		deliverOne(f, sig)
	}
	t.restarting = false // no handler took the interrupted call: it runs again
	if t.RestoreMask && t.Wait == WaitNone {
		// ppoll or pselect6 returned without a handler to run: the thread's own mask is back.
		t.RestoreMask = false
		t.Sig.SetMask(t.SavedMask)
	}
}

// deliverOne takes sig off the running thread's pending set and acts on it: nothing, the end of
// the program, or its handler entered on a signal frame.
func deliverOne(f *machine.Frame, sig int) {
	t := Cur()
	info, timed := t.Sig.Take(sig)
	if timed {
		var ok bool
		if info, ok = timerInfo(t, sig); !ok {
			return // its timer is gone
		}
	}
	a := sigactions[sig]
	switch a.Disposition(sig) {
	case signal.Ignore:
		return
	case signal.Terminate:
		killedBy(f, sig, info)
		return
	}
	if t.restarting {
		// The signal interrupted a call that restarts (waits.go): a handler without
		// SA_RESTART makes it fail with EINTR instead, as on Linux.
		t.restarting = false
		if a.Flags&signal.SA_RESTART == 0 {
			machine.UnrewindSyscall(f)
			machine.SetSysRet(f, abi.Neg(abi.EINTR))
		}
	}
	tp.SignalDeliver.Emit3(uint64(sig), uint64(machine.FramePC(f)), uint64(t.Tid))
	if !pushSignalFrame(f, t, sig, info, a) {
		// The thread's stack cannot take the frame: Linux kills the process with SIGSEGV.
		killedBy(f, signal.SIGSEGV, signal.Info{Signo: signal.SIGSEGV, Code: signal.SI_KERNEL})
		return
	}
	t.RestoreMask = false // the frame holds the thread's own mask (frameSaved)
	t.Sig.EnterHandler(sig, a)
	sigactions.Entered(sig, a)
}

// ForceFault delivers the synchronous signal sig for a fault of the running thread now, with
// si_code code and si_addr addr; if the program blocks or ignores it, it dies of it, as on Linux.
func ForceFault(f *machine.Frame, sig int, code int32, addr uint64) {
	sigactions.Force(sig, &Cur().Sig.Mask)
	SendSignal(CurSlot(), sig, signal.Info{Signo: int32(sig), Code: code, Addr: addr})
	deliverOne(f, sig)
}

// frameSaved is what the frame for a signal under a, taken by t at sp, keeps beside the
// registers.
func frameSaved(t *Thread, sp uintptr, info signal.Info, a signal.Action) signal.Saved {
	mask := t.Sig.Mask
	if t.RestoreMask {
		mask = t.SavedMask // ppoll's or pselect6's mask ends with the call: sigreturn restores the thread's own
	}
	return signal.Saved{Info: info, Mask: mask, Stack: t.Sig.Alt.Saved(sp, a.Flags)}
}

// sigreturnFault ends the program when rt_sigreturn finds no frame to read: the SIGSEGV Linux
// would force.
func sigreturnFault(f *machine.Frame) {
	killedBy(f, signal.SIGSEGV, signal.Info{Signo: signal.SIGSEGV, Code: signal.SI_KERNEL})
}

// killedBy ends the program the way Linux's default action would, with the shell's status
// convention 128+signal.
func killedBy(f *machine.Frame, sig int, info signal.Info) {
	klog.Log().S("program killed by signal ").D(int64(sig)).S(" at pc ").X(uint64(machine.FramePC(f))).S(", addr ").X(info.Addr).NL()
	ExitGroup(128 + sig)
}
