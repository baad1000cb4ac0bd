package syscalls

import (
	"encoding/binary"

	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/tp"

	"github.com/unitrace/unitrace/kernel/sched"
)

// clone flags (include/uapi/linux/sched.h).
const (
	cloneVM            = 0x100
	clonePidfd         = 0x1000
	cloneVfork         = 0x4000
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

// doClone creates a thread sharing everything (the only kind there is: one process). The
// child resumes after the system call with the parent's registers except the result (0), the
// stack pointer (stack) and, with CLONE_SETTLS, the thread pointer (cloneChildContext); the Go
// runtime's clone child relies on the other registers surviving.
//
// Without CLONE_THREAD the call asks for a new process (fork, or os/exec's
// clone(CLONE_VM|CLONE_VFORK|SIGCHLD)), which there cannot be (noNewProcess); CLONE_THREAD
// without CLONE_SIGHAND and CLONE_VM is EINVAL, as on Linux. So are CLONE_PIDFD (no pidfd to
// give; Linux refuses it with CLONE_THREAD too) and CLONE_VFORK, whose parent Linux suspends
// until the child exits, which this thread would not do.
func doClone(f *machine.Frame, flags uint64, stack, ptid, ctid, tls uintptr) uint64 {
	if flags&cloneThread == 0 {
		return noNewProcess()
	}
	if flags&(cloneVM|cloneSighand) != cloneVM|cloneSighand || flags&(clonePidfd|cloneVfork) != 0 {
		return abi.Neg(abi.EINVAL)
	}
	slot := core.NewThread()
	if slot < 0 {
		return abi.Neg(abi.EAGAIN)
	}
	t := &core.Threads[slot]
	core.ProcSources.Threads[slot] = t.Tid
	machine.SaveFPU(f) // the child starts with the parent's FP state
	t.Frame = *f
	cloneChildContext(&t.Frame, stack, tls, flags&cloneSettls != 0)
	t.Sig.Mask = core.Cur().Sig.Mask
	core.Scheduler.Inherit(slot, core.CurSlot())
	t.Policy, t.FIFOPrio = core.Cur().Policy, core.Cur().FIFOPrio
	t.NoNewPrivs = core.Cur().NoNewPrivs
	if flags&cloneParentSettid != 0 && !core.WriteUser32(ptid, uint32(t.Tid)) {
		core.Scheduler.Exit(slot)
		core.Live--
		return abi.Neg(abi.EFAULT)
	}
	if flags&cloneChildSettid != 0 {
		core.WriteUser32(ctid, uint32(t.Tid))
	}
	if flags&cloneChildCleartid != 0 {
		t.ClearChild = ctid
	}
	core.Enqueue(slot)
	tp.ThreadCreate.Emit1(uint64(t.Tid))
	return uint64(t.Tid)
}

// exitThread ends the running thread. CLONE_CHILD_CLEARTID's word is cleared and woken; the
// thread's stack belongs to the program (the Go runtime frees it) and is left alone. When the
// last thread exits, the program exits with its status.
func exitThread(f *machine.Frame, code int) {
	t := core.Cur()
	tp.ThreadExit.Emit2(uint64(t.Tid), uint64(code))
	if t.ClearChild != 0 && core.WriteUser32(t.ClearChild, 0) {
		core.FutexWake(t.ClearChild, 1)
	}
	core.Scheduler.Exit(core.CurSlot())
	t.Wait = core.WaitNone
	core.Sleepers.Remove(core.CurSlot())
	core.Timers.ThreadExited(core.CurSlot())
	core.TimersChanged()
	core.Live--
	if core.Live == 0 {
		core.ExitGroup(code)
	}
	core.Schedule(f)
}

// schedTarget finds the thread a sched_* call names: pid 0 or the caller's tid is the caller.
func schedTarget(pid int32) (int32, bool) {
	if pid == 0 || pid == core.Cur().Tid {
		return core.CurSlot(), true
	}
	if pid < 0 {
		return 0, false
	}
	s := core.SlotOfTID(pid)
	return s, s >= 0
}

// SchedGetaffinity reports the CPUs thread pid may run on (every CPU the kernel runs,
// unless sched_setaffinity narrowed it): the Go runtime sizes GOMAXPROCS from it.
func SchedGetaffinity(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	pid := int32(a[0])
	size := uintptr(a[1])
	mask := uintptr(a[2])
	const maskBytes = 8
	if size < maskBytes || size%8 != 0 { // the size before the thread, as Linux
		return abi.Neg(abi.EINVAL), true
	}
	slot, ok := schedTarget(pid)
	if !ok {
		return abi.Neg(abi.ESRCH), true
	}
	b, ok := core.UserBytes(mask, maskBytes, true)
	if !ok {
		return abi.Neg(abi.EFAULT), true
	}
	binary.LittleEndian.PutUint64(b, core.Scheduler.Affinity(slot))
	return maskBytes, true
}

// SchedSetaffinity narrows the CPUs thread pid may run on. Bits beyond the CPUs the kernel
// runs are ignored; a mask with none of them is EINVAL, as on Linux. A thread running on a CPU
// its new mask excludes moves at that CPU's next kernel entry (kicked at once if it is another).
func SchedSetaffinity(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	pid := int32(a[0])
	size := uintptr(a[1])
	mask := uintptr(a[2])
	slot, ok := schedTarget(pid)
	if !ok {
		return abi.Neg(abi.ESRCH), true
	}
	n := min(size, 8)
	var raw [8]byte
	if n > 0 {
		b, ok := core.UserBytes(mask, n, false)
		if !ok {
			return abi.Neg(abi.EFAULT), true
		}
		copy(raw[:], b)
	}
	mustLeave, ok := core.Scheduler.SetAffinity(slot, binary.LittleEndian.Uint64(raw[:]))
	if !ok {
		return abi.Neg(abi.EINVAL), true
	}
	if mustLeave >= 0 && mustLeave != machine.CPUIndex() {
		core.KickCPU(mustLeave)
	}
	return 0, true
}

// Scheduling policies (include/uapi/linux/sched.h).
const (
	schedOther = 0
	schedFIFO  = 1
	schedRR    = 2
	schedBatch = 3
	schedIdle  = 5
)

// SchedSetscheduler sets thread pid's policy. SCHED_FIFO (priority 1..99) keeps its CPU
// until it blocks or yields: the tick does not time-slice it. There is one priority level
// otherwise: SCHED_RR, BATCH and IDLE are time-sliced like SCHED_OTHER.
func SchedSetscheduler(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	pid := int32(a[0])
	policy := int(a[1])
	param := uintptr(a[2])
	// Linux's order: a negative policy or pid, or no param, EINVAL; then the param (EFAULT),
	// the thread (ESRCH), and the policy and priority.
	if int32(policy) < 0 || pid < 0 || param == 0 {
		return abi.Neg(abi.EINVAL), true
	}
	prio, ok := core.ReadUser32(param)
	if !ok {
		return abi.Neg(abi.EFAULT), true
	}
	slot, ok := schedTarget(pid)
	if !ok {
		return abi.Neg(abi.ESRCH), true
	}
	p := int32(prio)
	switch policy &^ 0x40000000 { // SCHED_RESET_ON_FORK
	case schedFIFO, schedRR:
		if p < 1 || p > 99 {
			return abi.Neg(abi.EINVAL), true
		}
	case schedOther, schedBatch, schedIdle:
		if p != 0 {
			return abi.Neg(abi.EINVAL), true
		}
	default:
		return abi.Neg(abi.EINVAL), true
	}
	t := &core.Threads[slot]
	class := sched.TimeSliced
	if policy&^0x40000000 == schedFIFO {
		class = sched.FIFO
	}
	core.Scheduler.SetClass(slot, class)
	t.Policy = int32(policy &^ 0x40000000)
	t.FIFOPrio = p
	return 0, true
}

// SchedGetscheduler returns thread pid's policy.
func SchedGetscheduler(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	pid := int32(a[0])
	if pid < 0 {
		return abi.Neg(abi.EINVAL), true
	}
	slot, ok := schedTarget(pid)
	if !ok {
		return abi.Neg(abi.ESRCH), true
	}
	return uint64(core.Threads[slot].Policy), true
}

// SchedGetparam stores thread pid's priority.
func SchedGetparam(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	pid := int32(a[0])
	param := uintptr(a[1])
	if pid < 0 || param == 0 {
		return abi.Neg(abi.EINVAL), true
	}
	slot, ok := schedTarget(pid)
	if !ok {
		return abi.Neg(abi.ESRCH), true
	}
	if !core.WriteUser32(param, uint32(core.Threads[slot].FIFOPrio)) {
		return abi.Neg(abi.EFAULT), true
	}
	return 0, true
}
