package kernel

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/sched"
)

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

// interruptWait wakes the thread in slot if it is blocked in an interruptible wait; its call
// then ends when it runs (completeInterrupted).
func interruptWait(slot int32) {
	t := &threads[slot]
	switch t.wait {
	case waitFutex, waitSleep, waitEpoll, waitEventfd, waitPipe, waitConsole, waitDevice, waitNet, waitSplice, waitFIFO, waitLock, waitRerun, waitPoll:
		if t.wait == waitDevice && portOp(t.waitOp) != opRead {
			return
		}
		if t.wait == waitNet && sockThreads[slot].sock.phase != phaseReady {
			return // the request is with the host, or about to be: its reply must be taken
		}
		if scheduler.State(slot) == sched.Blocked {
			t.interrupted = true
			wake(slot, false)
		}
	}
}

// completeInterrupted ends the call of the thread in slot, woken by a signal in a wait of kind,
// in f. It returns the result syscall_exit reports.
func completeInterrupted(f *machine.Frame, slot int32, kind waitKind) uint64 {
	t := &threads[slot]
	t.noSigpipe = false // a pair send's MSG_NOSIGNAL ends with its call
	switch {
	case kind == waitSleep:
		if t.waitAddr != 0 {
			writeTimespec(t.waitAddr, max(t.deadline-nanotime(), 0))
		}
		machine.SetSysRet(f, abi.Neg(abi.EINTR))
	case kind == waitEpoll, kind == waitFutex && t.deadline != 0:
		machine.SetSysRet(f, abi.Neg(abi.EINTR))
	case kind == waitPoll:
		pollInterrupted(f, slot)
	case kind == waitPipe && t.waitArg > 0:
		machine.SetSysRet(f, t.waitArg)
	case kind == waitNet && sockThreads[slot].sock.moved > 0:
		machine.SetSysRet(f, sockSpliceEnd(slot, sockThreads[slot].sock.moved))
	case kind == waitFIFO:
		abandonFIFOOpen(slot)
		machine.RewindSyscall(f)
		t.restarting = true
		return abi.Neg(abi.ERESTARTSYS)
	case kind == waitNet:
		sockAbandon(slot)
		machine.RewindSyscall(f)
		t.restarting = true
		return abi.Neg(abi.ERESTARTSYS)
	default:
		machine.RewindSyscall(f)
		t.restarting = true
		return abi.Neg(abi.ERESTARTSYS)
	}
	return machine.SysRet(f)
}
