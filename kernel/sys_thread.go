package kernel

import (
	"encoding/binary"

	"github.com/unitrace/unitrace/trace/wire"
)

// clone flags (include/uapi/linux/sched.h).
const (
	cloneVM            = 0x100
	cloneFS            = 0x200
	cloneFiles         = 0x400
	cloneSighand       = 0x800
	cloneThread        = 0x10000
	cloneSysvsem       = 0x40000
	cloneSettls        = 0x80000
	cloneParentSettid  = 0x100000
	cloneChildCleartid = 0x200000
	cloneChildSettid   = 0x1000000
)

// sysCloneImpl creates a thread sharing everything (the only kind there is: one process). The
// child resumes after the system call with the parent's registers except the result (0), the
// stack pointer (stack) and, with CLONE_SETTLS, the thread pointer (cloneChildContext); the Go
// runtime's clone child relies on the other registers surviving.
func sysCloneImpl(f *Frame, flags uint64, stack, ptid, ctid, tls uintptr) uint64 {
	if flags&(cloneVM|cloneThread|cloneSighand) != cloneVM|cloneThread|cloneSighand {
		reportOnce(&warnedFork, "clone without CLONE_VM|CLONE_THREAD (a new process) is not supported")
		return neg(EINVAL)
	}
	slot := newThread()
	if slot < 0 {
		return neg(EAGAIN)
	}
	t := &threads[slot]
	t.frame = *f
	cloneChildContext(&t.frame, stack, tls, flags&cloneSettls != 0)
	t.sigMask = cur().sigMask
	if flags&cloneParentSettid != 0 && !writeUser32(ptid, uint32(t.tid)) {
		t.state = threadFree
		live--
		return neg(EFAULT)
	}
	if flags&cloneChildSettid != 0 {
		writeUser32(ctid, uint32(t.tid))
	}
	if flags&cloneChildCleartid != 0 {
		t.clearChild = ctid
	}
	enqueue(slot)
	tpThreadCreate.Emit1(uint64(t.tid))
	return uint64(t.tid)
}

var warnedFork bool

// sysExitThread ends the running thread. CLONE_CHILD_CLEARTID's word is cleared and woken; the
// thread's stack belongs to the program (the Go runtime frees it) and is left alone. When the
// last thread exits, the program exits with its status.
func sysExitThread(f *Frame, code int) {
	t := cur()
	tpThreadExit.Emit2(uint64(t.tid), uint64(code))
	if t.clearChild != 0 && writeUser32(t.clearChild, 0) {
		futexWake(t.clearChild, 1)
	}
	t.state = threadFree
	t.wait = waitNone
	sleepers.Remove(curSlot)
	live--
	if live == 0 {
		exitGroup(code)
	}
	schedule(f)
}

// exitGroup ends the program: the console's last line says the status, then the machine stops.
func exitGroup(code int) {
	stopSampler()
	reportSampler()
	traceFinish(wire.EndExit, int32(code&0xff))
	klog().s("exit status ").d(int64(code & 0xff)).nl()
	exitMachine(uint32(code & 0xff))
}

// sysSchedGetaffinityImpl reports the CPUs the kernel schedules on (one, for now): the Go runtime
// sizes GOMAXPROCS from it.
func sysSchedGetaffinityImpl(size, mask uintptr) uint64 {
	const maskBytes = 8
	if size < maskBytes {
		return neg(EINVAL)
	}
	b, ok := userBytes(mask, maskBytes, true)
	if !ok {
		return neg(EFAULT)
	}
	binary.LittleEndian.PutUint64(b, 1)
	return maskBytes
}

func reportOnce(done *bool, msg string) {
	if *done {
		return
	}
	*done = true
	klog().s(msg).nl()
}
