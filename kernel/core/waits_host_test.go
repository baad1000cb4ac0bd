//go:build unitrace_host && amd64

package core_test

import (
	"testing"

	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/core/coretest"
	"github.com/unitrace/unitrace/kernel/machine"
)

// The scheduler and the wait table run on the host machine (kernel/machine's stand-in): one
// CPU, frames that are only saved and loaded. These tests drive them as system calls do, and
// check what each thread's frame holds when it runs again.

// spawn makes a runnable thread whose frame says which it is (RBX = its slot).
func spawn(t *testing.T) int32 {
	t.Helper()
	slot := core.NewThread()
	if slot < 0 {
		t.Fatal("no thread slot")
	}
	core.Threads[slot].Frame.RBX = uint64(slot)
	core.Enqueue(slot)
	return slot
}

// running is the slot whose frame f holds.
func running(f *machine.Frame) int32 { return int32(f.RBX) }

func TestBlockAndWake(t *testing.T) {
	coretest.Fresh(t)
	a, b := spawn(t), spawn(t)
	var f machine.Frame // the trap frame of CPU 0, on its idle thread
	core.Schedule(&f)
	if core.CurSlot() != a || running(&f) != a {
		t.Fatalf("CPU 0 runs slot %d (frame of %d), want the first thread %d", core.CurSlot(), running(&f), a)
	}
	// a waits on a futex word: b runs.
	const word = 0x1000
	core.Waiters.Enqueue(word, a)
	machine.SetSysRet(&f, 99) // garbage the completion must replace
	core.Block(&f, core.WaitFutex)
	if core.CurSlot() != b || running(&f) != b {
		t.Fatalf("after a blocked, CPU 0 runs %d (frame of %d), want %d", core.CurSlot(), running(&f), b)
	}
	// b wakes it and gives the CPU up: a's call completes with 0 as it runs again.
	if n := core.FutexWake(word, 1); n != 1 {
		t.Fatalf("core.FutexWake woke %d, want 1", n)
	}
	core.Yield(&f)
	if core.CurSlot() != a || running(&f) != a {
		t.Fatalf("after the wake-up CPU 0 runs %d, want %d", core.CurSlot(), a)
	}
	if r := machine.SysRet(&f); r != 0 {
		t.Fatalf("the futex wait returned %d, want 0", int64(r))
	}
	if core.Threads[a].Wait != core.WaitNone {
		t.Fatalf("a's wait is still %d", core.Threads[a].Wait)
	}
}

func TestTimedOutFutex(t *testing.T) {
	coretest.Fresh(t)
	a := spawn(t)
	var f machine.Frame
	core.Schedule(&f)
	core.Waiters.Enqueue(0x2000, a)
	core.Block(&f, core.WaitFutex)
	if !core.OnIdle() {
		t.Fatalf("CPU 0 runs %d, want its idle thread", core.CurSlot())
	}
	core.Wake(a, true) // the deadline passed
	core.Schedule(&f)
	if r := int64(machine.SysRet(&f)); running(&f) != a || r != -abi.ETIMEDOUT {
		t.Fatalf("thread %d resumed with %d, want %d with -ETIMEDOUT", running(&f), r, a)
	}
	if _, waiting := core.Waiters.KeyOf(a); waiting {
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
		core.Threads[slot].Wait = core.WaitPipe
		core.Rearm(slot, 0x3000)
		return
	}
	machine.SetSysRet(f, 42)
}

func TestRulesComplete(t *testing.T) {
	coretest.Fresh(t)
	core.WaitKinds[core.WaitPipe].Complete.Set(completeTwice)
	spurious = 1
	a := spawn(t)
	var f machine.Frame
	core.Schedule(&f)
	core.Waiters.Enqueue(0x3000, a)
	core.Block(&f, core.WaitPipe)
	core.FutexWake(0x3000, 1)
	core.Schedule(&f)
	if !core.OnIdle() || core.Threads[a].Wait != core.WaitPipe {
		t.Fatalf("a spurious wake-up: CPU 0 runs %d, a waits in kind %d; want idle, the pipe wait", core.CurSlot(), core.Threads[a].Wait)
	}
	core.FutexWake(0x3000, 1)
	core.Schedule(&f)
	if running(&f) != a || machine.SysRet(&f) != 42 {
		t.Fatalf("thread %d resumed with %d, want %d with the completion's 42", running(&f), machine.SysRet(&f), a)
	}
}

func TestSignalEndsWait(t *testing.T) {
	cases := []struct {
		name    string
		kind    core.WaitKind
		rules   func(r *core.WaitRules)
		woken   bool   // the signal ends the wait
		restart bool   // the call is restarted (else it returns ret)
		ret     uint64 // its result
	}{
		{name: "futex without timeout restarts", kind: core.WaitFutex, woken: true, restart: true},
		{name: "eintr kind", kind: core.WaitEpoll, rules: func(r *core.WaitRules) { r.EINTR = true }, woken: true, ret: abi.Neg(abi.EINTR)},
		{name: "uninterruptible kind", kind: core.WaitShare, rules: func(r *core.WaitRules) { r.Uninterruptible = true }},
		{name: "not now", kind: core.WaitDevice, rules: func(r *core.WaitRules) { r.Interruptible.Set(func(int32) bool { return false }) }},
		{name: "own ending", kind: core.WaitPipe, woken: true, ret: 7, rules: func(r *core.WaitRules) {
			r.Interrupted.Set(func(*machine.Frame, int32) (uint64, bool) { return 7, false })
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			coretest.Fresh(t)
			if c.rules != nil {
				c.rules(&core.WaitKinds[c.kind])
			}
			a := spawn(t)
			var f machine.Frame
			core.Schedule(&f)
			f.RIP = 0x1002 // after a 2-byte SYSCALL at 0x1000
			core.Waiters.Enqueue(0x4000, a)
			core.Block(&f, c.kind)
			core.InterruptWait(a)
			core.Schedule(&f)
			if !c.woken {
				if !core.OnIdle() || core.Threads[a].Wait != c.kind {
					t.Fatalf("the signal ended the wait: CPU 0 runs %d", core.CurSlot())
				}
				return
			}
			if running(&f) != a {
				t.Fatalf("CPU 0 runs %d, want the interrupted thread %d", running(&f), a)
			}
			if restarted := f.RIP == 0x1000; restarted != c.restart || core.Restarting(a) != c.restart {
				t.Fatalf("pc %#x, restarting %v; want restart %v", f.RIP, core.Restarting(a), c.restart)
			}
			if !c.restart && machine.SysRet(&f) != c.ret {
				t.Fatalf("result %d, want %d", int64(machine.SysRet(&f)), int64(c.ret))
			}
		})
	}
}
