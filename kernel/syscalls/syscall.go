package syscalls

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/dev/shares"
	"github.com/unitrace/unitrace/kernel/klog"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/options"
	"github.com/unitrace/unitrace/kernel/ptimer"
	"github.com/unitrace/unitrace/kernel/tp"
	"github.com/unitrace/unitrace/trace"
)

// The system-call dispatcher. The calls the kernel answers are rows of sysTable, generated per
// arch from kernel/systab (systab_amd64.go, systab_arm64.go) and indexed by number: each row has
// the handler that serves the call, or the errno that it answers with. The handlers are in
// syscall_handlers.go.

// A syscallHandler serves one system call. f is the caller's trap Frame, which a call that
// blocks or switches threads rewrites; a holds its arguments (by value: a handler is called
// through the table, and a pointer to the caller's copy would escape). It returns the raw result
// (a value, or -errno) with done=true; done=false means the call blocked: the Frame now holds
// another thread, and the result will be stored when the blocked one completes.
type syscallHandler func(f *machine.Frame, a machine.SyscallArgs) (ret uint64, done bool)

// sysCall is a row of a system-call table: the call's handler, or else the errno (non-zero) it
// answers with. The zero row is an unknown call.
type sysCall struct {
	handler syscallHandler
	errno   int
}

// syscall is the kernel's entry for a system call, before the kernel lock: it fires
// syscall_enter and serves the calls that need no lock, and reports whether the call still has
// to run, under the lock (syscallLocked). The lock-free calls are served here, in one function:
// under TCG each call and return costs as much as 25 plain instructions, on the path every
// system call takes.
func Unlocked(f *machine.Frame) (needsLock bool) {
	if options.Kernel.DebugFault {
		crashForTest()
	}
	nr := machine.SysNum(f)
	var a machine.SyscallArgs
	machine.SysArgs(f, &a)
	tp.SyscallEnter.Emit4(nr, a[0], a[1], a[2])
	if options.Kernel.Strace {
		return true // the ordinary path prints every call
	}
	var ret uint64
	switch nr {
	case nrClockGettime:
		id := int32(a[0])
		if id < 0 || id == ptimer.ClockProcessCPUTimeID {
			return true // reads every thread, or looks one up
		}
		now, ok := core.ClockNow(id)
		if !ok {
			return true
		}
		b, ok := presentUserBytes(uintptr(a[1]), 16)
		if !ok {
			return true
		}
		core.PutTimespec(b, now)
	case nrGettid:
		ret = uint64(core.Cur().Tid)
	case nrGetpid:
		ret = core.ProcessID
	case nrGetppid, nrGetuid, nrGeteuid, nrGetgid, nrGetegid:
		// no parent; root: constants, as their locked handlers answer
	case nrSchedYield:
		// With nobody waiting who may run here, yielding is a no-op; otherwise yield for real.
		if core.RunnableHere() {
			return true
		}
	default:
		return true
	}
	machine.SetSysRet(f, ret)
	tp.SyscallExit.Emit2(nr, ret)
	return false
}

// syscallLocked runs the system call in f under the kernel lock.
func Locked(f *machine.Frame) {
	nr := machine.SysNum(f)
	var a machine.SyscallArgs
	machine.SysArgs(f, &a)
	tid := core.Cur().Tid // before dispatch: a blocking call switches threads
	slot := core.CurSlot()
	core.Cur().SysNr = nr
	shares.BeginFiles(slot)
	ret, done := dispatch(f, nr, a)
	done = shares.EndFiles(f, slot, ret, done, false)
	if done {
		machine.SetSysRet(f, ret)
		tp.SyscallExit.Emit2(nr, ret)
	} else if nr == nrRtSigreturn && core.Cur().Tid == tid {
		tp.SyscallExit.Emit2(nr, machine.SysRet(f)) // the restored context's rax, as Linux reports it
	} // else syscall_exit fires when the wait completes (completeWait)
	if options.Kernel.Strace {
		l := klog.Log().S("[").D(int64(tid)).S("] ").S(machine.SyscallName(nr)).S("(").U(nr).S(")")
		for i := 0; i < 3; i++ {
			l.S(" ").X(a[i])
		}
		if done {
			l.S(" = ").D(int64(ret))
		} else {
			l.S(" blocked")
		}
		l.NL()
	}
}

// dispatch runs system call nr. done=false means the call blocked: the Frame now holds another
// thread, and the result will be stored when the blocked one completes.
func dispatch(f *machine.Frame, nr uint64, a machine.SyscallArgs) (ret uint64, done bool) {
	c := lookupCall(nr)
	switch {
	case c.handler != nil:
		return c.handler(f, a)
	case c.errno != 0:
		return abi.Neg(c.errno), true
	}
	reportUnknownSyscall(nr)
	return abi.Neg(abi.ENOSYS), true
}

// lookupCall returns the row of system call nr: sysTable's, traceCalls', or the zero row.
func lookupCall(nr uint64) sysCall {
	if nr < uint64(len(sysTable)) {
		return sysTable[nr]
	}
	if i := nr - trace.SysDrain; i < uint64(len(traceCalls)) { // wraps below SysDrain
		return traceCalls[i]
	}
	return sysCall{}
}

// traceCalls serves the trace agent's private calls (trace/sysabi.go), numbered from
// trace.SysDrain, far above any Linux number and the same on every arch.
var traceCalls = [...]sysCall{
	trace.SysDrain - trace.SysDrain: {handler: TraceDrain},
	trace.SysSend - trace.SysDrain:  {handler: TraceSend},
	trace.SysCtl - trace.SysDrain:   {handler: TraceCtl},
}

// reportUnknownSyscall prints each unknown system call once.
func reportUnknownSyscall(nr uint64) {
	if nr < uint64(len(reportedSyscalls)) {
		if reportedSyscalls[nr] {
			return
		}
		reportedSyscalls[nr] = true
	}
	klog.Log().S("unknown system call ").U(nr).S(" (").S(machine.SyscallName(nr)).S(") returns ENOSYS").NL()
}

var reportedSyscalls [512]bool

// crashForTest makes the kernel fault on purpose (boot option unitrace.debug=kfault), so the
// fault report can be tested: it reads through a nil pointer in kernel mode.
func crashForTest() {
	klog.Log().S("debug: faulting in the kernel on purpose").NL()
	bad := uintptr(8)
	_ = *(*uint64)(machine.Ptr(bad))
}
