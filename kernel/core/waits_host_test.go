//go:build unitrace_host && amd64

package core

import (
	"testing"

	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/sched"
	"github.com/unitrace/unitrace/kernel/timerq"
	"github.com/unitrace/unitrace/kernel/waitq"
)

// The scheduler and the wait table run on the host machine (kernel/machine's stand-in): one
// CPU, frames that are only saved and loaded. These tests drive them as system calls do, and
// check what each thread's frame holds when it runs again.

// freshCore empties the kernel's state: CPU 0 on its idle thread, no thread, nothing waiting.
func freshCore(t *testing.T) {
	t.Helper()
	reset := func() {
		Scheduler = sched.Scheduler{}
		Sleepers = timerq.Queue{}
		Waiters = waitq.Table{}
		Threads = [MaxThreads]Thread{}
		WaitKinds = [NumWaitKinds]WaitRules{}
		machine.Host = machine.HostMachine{}
	}
	reset()
	t.Cleanup(reset)
}

// spawn makes a runnable thread whose frame says which it is (RBX = its slot).
func spawn(t *testing.T) int32 {
	t.Helper()
	slot := NewThread()
	if slot < 0 {
		t.Fatal("no thread slot")
	}
	Threads[slot].Frame.RBX = uint64(slot)
	Enqueue(slot)
	return slot
}

// running is the slot whose frame f holds.
func running(f *machine.Frame) int32 { return int32(f.RBX) }

func TestBlockAndWake(t *testing.T) {
	freshCore(t)
	a, b := spawn(t), spawn(t)
	var f machine.Frame // the trap frame of CPU 0, on its idle thread
	Schedule(&f)
	if CurSlot() != a || running(&f) != a {
		t.Fatalf("CPU 0 runs slot %d (frame of %d), want the first thread %d", CurSlot(), running(&f), a)
	}
	// a waits on a futex word: b runs.
	const word = 0x1000
	Waiters.Enqueue(word, a)
	machine.SetSysRet(&f, 99) // garbage the completion must replace
	Block(&f, WaitFutex)
	if CurSlot() != b || running(&f) != b {
		t.Fatalf("after a blocked, CPU 0 runs %d (frame of %d), want %d", CurSlot(), running(&f), b)
	}
	// b wakes it and gives the CPU up: a's call completes with 0 as it runs again.
	if n := FutexWake(word, 1); n != 1 {
		t.Fatalf("FutexWake woke %d, want 1", n)
	}
	Yield(&f)
	if CurSlot() != a || running(&f) != a {
		t.Fatalf("after the wake-up CPU 0 runs %d, want %d", CurSlot(), a)
	}
	if r := machine.SysRet(&f); r != 0 {
		t.Fatalf("the futex wait returned %d, want 0", int64(r))
	}
	if Threads[a].Wait != WaitNone {
		t.Fatalf("a's wait is still %d", Threads[a].Wait)
	}
}

func TestTimedOutFutex(t *testing.T) {
	freshCore(t)
	a := spawn(t)
	var f machine.Frame
	Schedule(&f)
	Waiters.Enqueue(0x2000, a)
	Block(&f, WaitFutex)
	if !OnIdle() {
		t.Fatalf("CPU 0 runs %d, want its idle thread", CurSlot())
	}
	Wake(a, true) // the deadline passed
	Schedule(&f)
	if r := int64(machine.SysRet(&f)); running(&f) != a || r != -abi.ETIMEDOUT {
		t.Fatalf("thread %d resumed with %d, want %d with -ETIMEDOUT", running(&f), r, a)
	}
	if _, waiting := Waiters.KeyOf(a); waiting {
		t.Fatal("a timed-out waiter is still in the wait table")
	}
}

// A kind's rules come from the code that blocks in it: its completion may block the thread
// again (a wake-up that did not satisfy the wait), and a signal restarts its call unless the
// rules say otherwise.
var spurious int

func completeTwice(f *machine.Frame, slot int32) {
	if spurious > 0 {
		spurious--
		Threads[slot].Wait = WaitPipe
		Rearm(slot, 0x3000)
		return
	}
	machine.SetSysRet(f, 42)
}

func TestRulesComplete(t *testing.T) {
	freshCore(t)
	WaitKinds[WaitPipe].Complete.Set(completeTwice)
	spurious = 1
	a := spawn(t)
	var f machine.Frame
	Schedule(&f)
	Waiters.Enqueue(0x3000, a)
	Block(&f, WaitPipe)
	FutexWake(0x3000, 1)
	Schedule(&f)
	if !OnIdle() || Threads[a].Wait != WaitPipe {
		t.Fatalf("a spurious wake-up: CPU 0 runs %d, a waits in kind %d; want idle, the pipe wait", CurSlot(), Threads[a].Wait)
	}
	FutexWake(0x3000, 1)
	Schedule(&f)
	if running(&f) != a || machine.SysRet(&f) != 42 {
		t.Fatalf("thread %d resumed with %d, want %d with the completion's 42", running(&f), machine.SysRet(&f), a)
	}
}

func TestSignalEndsWait(t *testing.T) {
	cases := []struct {
		name    string
		kind    WaitKind
		rules   func(r *WaitRules)
		woken   bool   // the signal ends the wait
		restart bool   // the call is restarted (else it returns ret)
		ret     uint64 // its result
	}{
		{name: "futex without timeout restarts", kind: WaitFutex, woken: true, restart: true},
		{name: "eintr kind", kind: WaitEpoll, rules: func(r *WaitRules) { r.EINTR = true }, woken: true, ret: abi.Neg(abi.EINTR)},
		{name: "uninterruptible kind", kind: WaitShare, rules: func(r *WaitRules) { r.Uninterruptible = true }},
		{name: "not now", kind: WaitDevice, rules: func(r *WaitRules) { r.Interruptible.Set(func(int32) bool { return false }) }},
		{name: "own ending", kind: WaitPipe, woken: true, ret: 7, rules: func(r *WaitRules) {
			r.Interrupted.Set(func(*machine.Frame, int32) (uint64, bool) { return 7, false })
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			freshCore(t)
			if c.rules != nil {
				c.rules(&WaitKinds[c.kind])
			}
			a := spawn(t)
			var f machine.Frame
			Schedule(&f)
			f.RIP = 0x1002 // after a 2-byte SYSCALL at 0x1000
			Waiters.Enqueue(0x4000, a)
			Block(&f, c.kind)
			interruptWait(a)
			Schedule(&f)
			if !c.woken {
				if !OnIdle() || Threads[a].Wait != c.kind {
					t.Fatalf("the signal ended the wait: CPU 0 runs %d", CurSlot())
				}
				return
			}
			if running(&f) != a {
				t.Fatalf("CPU 0 runs %d, want the interrupted thread %d", running(&f), a)
			}
			if restarted := f.RIP == 0x1000; restarted != c.restart || Threads[a].restarting != c.restart {
				t.Fatalf("pc %#x, restarting %v; want restart %v", f.RIP, Threads[a].restarting, c.restart)
			}
			if !c.restart && machine.SysRet(&f) != c.ret {
				t.Fatalf("result %d, want %d", int64(machine.SysRet(&f)), int64(c.ret))
			}
		})
	}
}
