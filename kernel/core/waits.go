package core

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/sched"
	"github.com/unitrace/unitrace/kernel/tp"
	"github.com/unitrace/unitrace/kernel/waitq"
	"github.com/unitrace/unitrace/trace"
)

// WaitKind says what a blocked thread waits for and how its system call completes.
type WaitKind uint8

const (
	WaitNone    = WaitKind(trace.WaitNone)
	WaitFutex   = WaitKind(trace.WaitFutex)   // futex WAIT: result 0 on wake, -ETIMEDOUT on timeout
	WaitSleep   = WaitKind(trace.WaitSleep)   // nanosleep: result 0 at the deadline
	WaitEpoll   = WaitKind(trace.WaitEpoll)   // epoll_pwait: re-poll on wake, 0 events on timeout
	WaitEventfd = WaitKind(trace.WaitEventfd) // blocking eventfd read: retry on wake
	WaitDevice  = WaitKind(trace.WaitDevice)  // a trace-port read or write: retry on wake
	WaitPipe    = WaitKind(trace.WaitPipe)    // a pipe read or write that could not finish: retry on wake
	WaitShare   = WaitKind(trace.WaitShare)   // a shared directory's reply: run the system call again on wake
	WaitNet     = WaitKind(trace.WaitNet)     // a socket call: its next phase on wake
	WaitConsole = WaitKind(trace.WaitConsole) // a console read that found no input: retry on wake
	WaitSplice  = WaitKind(trace.WaitSplice)  // splice, tee or sendfile on an empty or full pipe: run the call again on wake
	WaitFIFO    = WaitKind(trace.WaitFIFO)    // a FIFO's open waiting for the other end: check on wake
	WaitLock    = WaitKind(trace.WaitLock)    // a file lock held by another owner: try again on wake
	WaitRerun   = WaitKind(trace.WaitRerun)   // a socket pair's receive or message send: run the call again on wake
	WaitPoll    = WaitKind(trace.WaitPoll)    // poll, ppoll, select, pselect6: scan again on wake, 0 on timeout
)

// NumWaitKinds bounds the kinds: the rules table's size.
const NumWaitKinds = WaitPoll + 1

// WaitRules are a wait kind's rules, in one place: how its system call completes when the
// Thread runs again, and whether and how a signal ends it. The futex and sleep waits are this
// file's own; each other kind's rules are handed down at boot by the code that blocks in it
// (the kernel's wiring.go).
//
// Signals interrupt blocking system calls, as on Linux: a thread blocked in a wait that a
// signal may end is woken, and its call ends in one of Linux's three ways, decided by what it
// waited for:
//
//   - EINTR: poll, ppoll, select, pselect6 (which also write the time left), epoll_pwait, nanosleep and clock_nanosleep (which also write the time left), and a
//     futex wait with a timeout (Linux's ERESTART_RESTARTBLOCK, which a handler turns into
//     EINTR);
//   - the bytes moved so far: a pipe read or write that moved some;
//   - restart (ERESTARTSYS): a futex wait without a timeout, a pipe or eventfd read or write
//     that moved nothing, a splice, tee or sendfile waiting on a pipe (it waits only before it
//     moves anything), a FIFO's open waiting for the other end (its descriptor closed), a
//     file lock's wait, a console read (which waits only while it has moved nothing), a
//     trace-port read. The thread's pc goes back to the system-call instruction, so
//     the call runs again once the handler returns, unless the handler lacks SA_RESTART: then
//     the call fails with EINTR (deliverOne), and without a handler it just runs again.
//
// A socket call waiting for readiness is interrupted as a pipe's (restart, or the bytes a blocking
// send moved); one whose request is with the launcher is not.
//
// A shared directory's reply is not interruptible: its request is already with the host; nor is
// a write to a trace port or the trace agent's calls, whose bytes may be with the device already.
type WaitRules struct {
	// complete finishes the call of the thread in slot, woken, in f: its result, or a new wait
	// (rearm).
	Complete Hook[func(f *machine.Frame, slot int32)]
	// uninterruptible: no signal ends the wait (the request is with the host already).
	Uninterruptible bool
	// interruptible, if set, says whether a signal may end the wait of the thread in slot now.
	Interruptible Hook[func(slot int32) bool]
	// eintr: a signal ends the call with EINTR.
	EINTR bool
	// interrupted, if set, ends the call of the thread in slot that a signal woke: its result,
	// or restart (the default without it).
	Interrupted Hook[func(f *machine.Frame, slot int32) (ret uint64, restart bool)]
}

// Waiters holds every blocked thread, keyed by what it waits for: a futex word's address, or a
// kernel's own key (waitkeys.go).
var Waiters waitq.Table

// FutexWake wakes up to n threads waiting on uaddr and returns how many it woke.
func FutexWake(uaddr uintptr, n int) int {
	if n <= 0 {
		return 0
	}
	if n > len(Woken) {
		n = len(Woken)
	}
	k := Waiters.Wake(uaddr, n, Woken[:])
	for i := 0; i < k; i++ {
		Wake(Woken[i], false)
	}
	if uaddr < 1<<47 {
		tp.FutexWake.Emit2(uint64(uaddr), uint64(k)) // real futex words, not the kernel's own keys
	}
	return k
}

// WaitKinds are the rules of each wait kind.
var WaitKinds [NumWaitKinds]WaitRules

// completeWait finishes the system call of a thread that blocked, now that it runs again: it
// sets the call's result in f, the thread's context, or blocks it again for a wake-up that did
// not satisfy its wait.
func completeWait(f *machine.Frame, slot int32) {
	t := &Threads[slot]
	kind := t.Wait
	t.Wait = WaitNone
	if t.interrupted {
		t.interrupted = false
		tp.SyscallExit.Emit2(t.SysNr, completeInterrupted(f, slot, kind))
		return
	}
	switch kind {
	case WaitNone:
		return
	case WaitFutex:
		if t.TimedOut {
			machine.SetSysRet(f, abi.Neg(abi.ETIMEDOUT))
		} else {
			machine.SetSysRet(f, 0)
		}
	case WaitSleep:
		machine.SetSysRet(f, 0)
	default:
		WaitKinds[kind].Complete.Get()(f, slot)
	}
	if t.Wait == WaitNone {
		tp.SyscallExit.Emit2(t.SysNr, machine.SysRet(f)) // the pair of the syscall_enter before the wait
	}
}

// interruptWait wakes the thread in slot if it is blocked in an interruptible wait; its call
// then ends when it runs (completeInterrupted).
func interruptWait(slot int32) {
	t := &Threads[slot]
	if t.Wait == WaitNone || t.Wait >= NumWaitKinds {
		return
	}
	r := &WaitKinds[t.Wait]
	if r.Uninterruptible || r.Interruptible.IsSet() && !r.Interruptible.Get()(slot) {
		return
	}
	if Scheduler.State(slot) == sched.Blocked {
		t.interrupted = true
		Wake(slot, false)
	}
}

// completeInterrupted ends the call of the thread in slot, woken by a signal in a wait of kind,
// in f. It returns the result syscall_exit reports.
func completeInterrupted(f *machine.Frame, slot int32, kind WaitKind) uint64 {
	t := &Threads[slot]
	t.NoSigpipe = false // a pair send's MSG_NOSIGNAL ends with its call
	r := &WaitKinds[kind]
	switch {
	case kind == WaitSleep:
		if t.WaitAddr != 0 {
			WriteTimespec(t.WaitAddr, max(t.Deadline-machine.Nanotime(), 0))
		}
		machine.SetSysRet(f, abi.Neg(abi.EINTR))
	case kind == WaitFutex && t.Deadline != 0, r.EINTR:
		machine.SetSysRet(f, abi.Neg(abi.EINTR))
	case r.Interrupted.IsSet():
		ret, restart := r.Interrupted.Get()(f, slot)
		if restart {
			return restartCall(f, t)
		}
		machine.SetSysRet(f, ret)
	default:
		return restartCall(f, t)
	}
	return machine.SysRet(f)
}

// restartCall puts the thread's pc back on its system call, which runs again once a signal's
// handler returns (unless the handler lacks SA_RESTART: deliverOne), and returns ERESTARTSYS,
// what syscall_exit reports for it.
func restartCall(f *machine.Frame, t *Thread) uint64 {
	machine.RewindSyscall(f)
	t.restarting = true
	return abi.Neg(abi.ERESTARTSYS)
}
