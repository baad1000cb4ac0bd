package ptimer

import (
	"testing"

	"github.com/unitrace/unitrace/kernel/abi"
)

var wallClock = Clock{Kind: Wall}

func newTimer(t *testing.T, tb *Table, c Clock, ev Event) int {
	t.Helper()
	id, errno := tb.Create(c, ev)
	if errno != 0 {
		t.Fatalf("Create: errno %d", errno)
	}
	return id
}

func at(now int64) func(Clock) int64 { return func(Clock) int64 { return now } }

// TestOverrunWhileBlocked is the case timer_getoverrun exists for: a 10 ms periodic timer whose
// signal stays pending (blocked) while ten periods pass. The first expiry queues the signal; the
// nine after it, up to the delivery at 10.5 periods, are its overrun.
func TestOverrunWhileBlocked(t *testing.T) {
	var tb Table
	const p = 10_000_000
	id := newTimer(t, &tb, wallClock, Event{Notify: SigevSignal, Signo: 14})
	tb.Arm(id, p, p, false, 0)
	e := tb.Expire(id, p+500_000) // the check after the first expiry
	if !e.Fire || e.Legacy {
		t.Fatalf("first expiry: %+v, want a POSIX timer's signal", e)
	}
	tb.Queued(id, 20)
	for now := int64(2 * p); now <= 8*p; now += p / 2 {
		if e := tb.Expire(id, now); e.Fire {
			t.Fatalf("expiry at %d fired while the signal is pending", now)
		}
	}
	got, ov, _, more := tb.Deliver(20, 14, at(10*p+p/2))
	if got != id || ov != 9 || more {
		t.Fatalf("Deliver = id %d, overrun %d, more %v; want %d, 9, false", got, ov, more, id)
	}
	if n, _ := tb.Overrun(id); n != 9 {
		t.Fatalf("Overrun = %d, want 9", n)
	}
	// The next expiry is at 11 periods: nothing counted twice.
	if e := tb.Expire(id, 10*p+p/2); e.Fire {
		t.Fatal("an expiry counted at delivery fired again")
	}
	if e := tb.Expire(id, 11*p); !e.Fire {
		t.Fatal("the expiry after the delivery did not fire")
	}
	tb.Queued(id, 20)
	if _, ov, _, _ := tb.Deliver(20, 14, at(11*p+1)); ov != 0 {
		t.Fatalf("overrun of a promptly delivered signal = %d, want 0", ov)
	}
}

// TestLateCheckCountsMissedPeriods: a check that comes several periods late (a 1 ms tick against
// a 100 µs timer) counts the periods it missed as overrun, and the next expiry stays on the
// period grid.
func TestLateCheckCountsMissedPeriods(t *testing.T) {
	var tb Table
	id := newTimer(t, &tb, Clock{Kind: ThreadCPU, Thread: 17}, Event{Notify: SigevThreadID, Signo: 27, Target: 17})
	tb.Arm(id, 100, 100, false, 1000) // first at 1100
	if e := tb.Expire(id, 2050); !e.Fire {
		t.Fatal("no signal")
	}
	tb.Queued(id, 17)
	_, ov, _, _ := tb.Deliver(17, 27, at(2050)) // 1100..2000: 10 expirations, 9 overrun
	if ov != 9 {
		t.Fatalf("overrun %d, want 9", ov)
	}
	if left, iv, _ := tb.Left(id, 2050); left != 50 || iv != 100 {
		t.Fatalf("Left = %d, %d; want 50, 100", left, iv)
	}
}

func TestOneShotAndArm(t *testing.T) {
	var tb Table
	id := newTimer(t, &tb, wallClock, Event{Notify: SigevSignal, Signo: 14})
	if left, iv, _ := tb.Left(id, 0); left != 0 || iv != 0 {
		t.Fatalf("a new timer is armed: %d, %d", left, iv)
	}
	tb.Arm(id, 500, 0, true, 100) // absolute: at 500
	if next, ok := tb.NextWall(); !ok || next != 500 {
		t.Fatalf("NextWall = %d, %v", next, ok)
	}
	old, oldIv, _ := tb.Arm(id, 1000, 200, false, 300)
	if old != 200 || oldIv != 0 {
		t.Fatalf("Arm's old value = %d, %d; want 200, 0", old, oldIv)
	}
	var due [4]int32
	if n := tb.ExpiredWall(1299, due[:]); n != 0 {
		t.Fatalf("%d due before the expiry", n)
	}
	if n := tb.ExpiredWall(1300, due[:]); n != 1 || due[0] != int32(id) {
		t.Fatalf("ExpiredWall = %d %v", n, due[:n])
	}
	if e := tb.Expire(id, 1300); !e.Fire {
		t.Fatal("no fire")
	}
	if next, ok := tb.NextWall(); !ok || next != 1500 {
		t.Fatalf("a periodic timer is not back in the queue: %d %v", next, ok)
	}
	tb.Arm(id, 0, 0, false, 1400) // disarm
	if _, ok := tb.NextWall(); ok {
		t.Fatal("a disarmed timer is in the queue")
	}
	// One-shot: fires once, then disarmed.
	tb.Arm(id, 10, 0, false, 2000)
	tb.ExpiredWall(2010, due[:])
	if e := tb.Expire(id, 2010); !e.Fire {
		t.Fatal("one-shot did not fire")
	}
	if left, _, _ := tb.Left(id, 2020); left != 0 {
		t.Fatalf("a fired one-shot has %d left", left)
	}
	if _, _, errno := tb.Arm(id, -1, 0, false, 0); errno != abi.EINVAL {
		t.Fatal("negative value accepted")
	}
}

func TestLimitsAndBadIDs(t *testing.T) {
	var tb Table
	for i := 0; i < MaxTimers; i++ {
		if id, errno := tb.Create(wallClock, Event{}); errno != 0 || id != i {
			t.Fatalf("Create #%d = %d, errno %d", i, id, errno)
		}
	}
	if _, errno := tb.Create(wallClock, Event{}); errno != abi.EAGAIN {
		t.Fatalf("Create beyond MaxTimers: errno %d, want EAGAIN", errno)
	}
	if _, errno := tb.Delete(7); errno != 0 {
		t.Fatal(errno)
	}
	if _, errno := tb.Delete(7); errno != abi.EINVAL {
		t.Fatal("second Delete succeeded")
	}
	if id, _ := tb.Create(wallClock, Event{}); id != 7 {
		t.Fatalf("the freed id is not reused: %d", id)
	}
	for _, id := range []int{-1, MaxTimers, ITimerSlot(ITimerReal), 1 << 40} {
		if _, errno := tb.Overrun(id); errno != abi.EINVAL {
			t.Errorf("Overrun(%d) accepted", id)
		}
		if _, errno := tb.Delete(id); errno != abi.EINVAL {
			t.Errorf("Delete(%d) accepted", id)
		}
	}
	if _, _, errno := tb.Arm(ITimerSlot(ITimerProf), 1, 1, false, 0); errno != abi.EINVAL {
		t.Error("an interval timer armed before SetInterval")
	}
}

func TestIntervalTimersCoalesce(t *testing.T) {
	var tb Table
	tb.SetInterval(ITimerProf, Clock{Kind: ProcessCPU}, Event{Notify: SigevSignal, Signo: 27})
	slot := ITimerSlot(ITimerProf)
	tb.Arm(slot, 10, 10, false, 0)
	if id := tb.NextCPU(-1); id != slot || tb.NextCPU(id) != -1 {
		t.Fatalf("NextCPU: %d", id)
	}
	for now := int64(10); now < 100; now += 10 {
		if e := tb.Expire(slot, now); !e.Fire || !e.Legacy {
			t.Fatalf("at %d: %+v, want a legacy signal every period", now, e)
		}
	}
	if tb.Pending(0, 27) {
		t.Fatal("a legacy timer shows as a POSIX timer's pending signal")
	}
}

func TestThreadExited(t *testing.T) {
	var tb Table
	a := newTimer(t, &tb, Clock{Kind: ThreadCPU, Thread: 30}, Event{Notify: SigevThreadID, Signo: 27, Target: 30})
	b := newTimer(t, &tb, wallClock, Event{Notify: SigevThreadID, Signo: 10, Target: 30})
	c := newTimer(t, &tb, wallClock, Event{Notify: SigevSignal, Signo: 14})
	for _, id := range []int{a, b, c} {
		tb.Arm(id, 5, 5, false, 0)
	}
	tb.Expire(c, 5)
	tb.Queued(c, 30)
	tb.ThreadExited(30)
	for _, id := range []int{a, b} {
		if left, _, _ := tb.Left(id, 0); left != 0 {
			t.Errorf("timer %d still armed after its thread exited", id)
		}
	}
	if left, _, _ := tb.Left(c, 6); left == 0 {
		t.Error("a process timer disarmed by a thread's exit")
	}
	if tb.Pending(30, 14) {
		t.Error("a signal still pending on an exited thread")
	}
}

func TestDeliverOrderAndMore(t *testing.T) {
	var tb Table
	a := newTimer(t, &tb, wallClock, Event{Notify: SigevSignal, Signo: 14, Value: 0xa})
	b := newTimer(t, &tb, wallClock, Event{Notify: SigevSignal, Signo: 14, Value: 0xb})
	for _, id := range []int{a, b} {
		tb.Arm(id, 1, 0, false, 0)
		tb.Expire(id, 1)
		tb.Queued(id, 40)
	}
	id, _, v, more := tb.Deliver(40, 14, at(2))
	if id != a || v != 0xa || !more {
		t.Fatalf("first Deliver = %d %#x %v", id, v, more)
	}
	id, _, v, more = tb.Deliver(40, 14, at(2))
	if id != b || v != 0xb || more {
		t.Fatalf("second Deliver = %d %#x %v", id, v, more)
	}
	if id, _, _, _ := tb.Deliver(40, 14, at(2)); id != -1 {
		t.Fatal("a third delivery")
	}
}
