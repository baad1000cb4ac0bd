package timerfd

import (
	"testing"

	"github.com/unitrace/unitrace/kernel/abi"
)

const ms = int64(1_000_000)

func TestOneShot(t *testing.T) {
	var tb Table
	id, errno := tb.Create(7, false)
	if errno != 0 || tb.Owner(id) != 7 || tb.Realtime(id) {
		t.Fatalf("Create: %d %d", id, errno)
	}
	tb.SetOwner(id, 8)
	tb.SetOwner(-1, 8)
	if tb.Owner(id) != 8 || tb.Owner(-1) != -1 {
		t.Errorf("SetOwner")
	}
	if _, errno := tb.Read(id, 100); errno != abi.EAGAIN {
		t.Errorf("read of a disarmed timer: %d, want EAGAIN", errno)
	}
	if v, iv, errno := tb.Set(id, 10*ms, 0, false, 100); v != 0 || iv != 0 || errno != 0 {
		t.Fatalf("Set: %d %d %d", v, iv, errno)
	}
	if v, _ := tb.Get(id, 100+4*ms); v != 6*ms {
		t.Errorf("Get: %d left, want %d", v, 6*ms)
	}
	if next, ok := tb.Next(); !ok || next != 100+10*ms {
		t.Errorf("Next: %d %v", next, ok)
	}
	var out [4]int32
	if n := tb.Expired(100+9*ms, out[:]); n != 0 {
		t.Errorf("expired early: %d", n)
	}
	if n := tb.Expired(100+30*ms, out[:]); n != 1 || out[0] != int32(id) || tb.Ticks(id) != 1 {
		t.Fatalf("Expired: %d %v ticks %d", n, out[:n], tb.Ticks(id))
	}
	if v, iv := tb.Get(id, 100+31*ms); v != 0 || iv != 0 {
		t.Errorf("an expired one-shot timer reads disarmed: %d %d", v, iv)
	}
	if n, errno := tb.Read(id, 100+40*ms); n != 1 || errno != 0 {
		t.Errorf("Read: %d %d", n, errno)
	}
	if _, errno := tb.Read(id, 100+50*ms); errno != abi.EAGAIN {
		t.Errorf("second read: %d", errno)
	}
	if _, ok := tb.Next(); ok {
		t.Errorf("a one-shot timer is queued after it expired")
	}
}

func TestInterval(t *testing.T) {
	var tb Table
	id, _ := tb.Create(3, false)
	tb.Set(id, 5*ms, 2*ms, false, 0) // expiries at 5, 7, 9, 11, ...
	// Read before the tick saw it: counted on the way.
	if n, errno := tb.Read(id, 8*ms); n != 2 || errno != 0 {
		t.Errorf("Read at 8 ms: %d %d, want 2", n, errno)
	}
	if next, _ := tb.Next(); next != 9*ms {
		t.Errorf("requeued for %d, want 9 ms", next)
	}
	var out [4]int32
	if n := tb.Expired(9*ms, out[:]); n != 1 || tb.Ticks(id) != 1 {
		t.Fatalf("Expired at 9 ms: %d, ticks %d", n, tb.Ticks(id))
	}
	// Unread: off the queue, as Linux's hrtimer until the read, but still counting.
	if _, ok := tb.Next(); ok {
		t.Errorf("an unread interval timer is queued again")
	}
	if n, _ := tb.Read(id, 20*ms); n != 6 { // 9, 11, 13, 15, 17, 19
		t.Errorf("Read at 20 ms: %d, want 6", n)
	}
	if v, iv := tb.Get(id, 20*ms); v != ms || iv != 2*ms {
		t.Errorf("Get: %d %d", v, iv)
	}
	// Set returns the old setting and clears the ticks.
	tb.Expired(21*ms, out[:])
	if tb.Ticks(id) != 1 {
		t.Fatalf("ticks %d", tb.Ticks(id))
	}
	v, iv, _ := tb.Set(id, 0, 0, false, 22*ms)
	if v != ms || iv != 2*ms || tb.Ticks(id) != 0 {
		t.Errorf("disarming Set: old %d %d, ticks %d", v, iv, tb.Ticks(id))
	}
	if _, ok := tb.Next(); ok {
		t.Errorf("a disarmed timer is queued")
	}
}

func TestAbsolute(t *testing.T) {
	var tb Table
	id, _ := tb.Create(0, true)
	if !tb.Realtime(id) {
		t.Errorf("realtime lost")
	}
	tb.Set(id, 50*ms, 0, true, 100*ms) // in the past: due at once
	if v, _ := tb.Get(id, 100*ms); v != 0 {
		t.Errorf("a past absolute time: %d left", v)
	}
	if n, _ := tb.Read(id, 100*ms); n != 1 {
		t.Errorf("a past absolute time expired %d times", n)
	}
	tb.Set(id, 150*ms, 10*ms, true, 100*ms)
	if v, _ := tb.Get(id, 100*ms); v != 50*ms {
		t.Errorf("absolute: %d left", v)
	}
}

func TestErrors(t *testing.T) {
	var tb Table
	for _, id := range []int{-1, 0, Max, 1 << 40} {
		if _, errno := tb.Read(id, 0); errno != abi.EINVAL {
			t.Errorf("Read(%d): %d", id, errno)
		}
		if _, _, errno := tb.Set(id, 1, 1, false, 0); errno != abi.EINVAL {
			t.Errorf("Set(%d): %d", id, errno)
		}
		tb.Delete(id)
		tb.Get(id, 0)
	}
	id, _ := tb.Create(0, false)
	if _, _, errno := tb.Set(id, -1, 0, false, 0); errno != abi.EINVAL {
		t.Errorf("negative value: %d", errno)
	}
	// Far in the future, and huge intervals, saturate instead of wrapping.
	tb.Set(id, 1<<62, 1<<62, false, 1<<62)
	var out [1]int32
	tb.Expired(1<<63-1, out[:])
	if tb.Ticks(id) != 1 {
		t.Errorf("ticks %d at the end of time", tb.Ticks(id))
	}
	for i := 1; i < Max; i++ {
		if _, errno := tb.Create(0, false); errno != 0 {
			t.Fatalf("Create %d: %d", i, errno)
		}
	}
	if _, errno := tb.Create(0, false); errno != abi.ENFILE {
		t.Errorf("Create beyond Max: %d", errno)
	}
	tb.Delete(id)
	if got, errno := tb.Create(0, false); got != id || errno != 0 {
		t.Errorf("Create after Delete: %d %d", got, errno)
	}
	for _, c := range []struct {
		id       int32
		ok, real bool
	}{{0, true, true}, {1, true, false}, {7, true, false}, {8, true, true}, {9, true, false}, {2, false, false}, {4, false, false}, {11, false, false}, {-1, false, false}} {
		if ok, real := ValidClock(c.id); ok != c.ok || real != c.real {
			t.Errorf("ValidClock(%d) = %v %v", c.id, ok, real)
		}
	}
	if !ValidCreateFlags(TFD_CLOEXEC|TFD_NONBLOCK) || ValidCreateFlags(1) || !ValidSetFlags(3) || ValidSetFlags(4) {
		t.Errorf("flag checks")
	}
}

func FuzzTable(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8})
	f.Fuzz(func(t *testing.T, ops []byte) {
		var tb Table
		now := int64(0)
		var out [8]int32
		for i, op := range ops {
			id := int(op>>4) % 4
			switch op % 6 {
			case 0:
				tb.Create(int32(i), op&8 != 0)
			case 1:
				tb.Set(id, int64(op)*ms, int64(op&3)*ms, op&4 != 0, now)
			case 2:
				tb.Read(id, now)
			case 3:
				now += int64(op) * ms / 3
				for tb.Expired(now, out[:]) == len(out) {
				}
			case 4:
				tb.Get(id, now)
			case 5:
				tb.Delete(id)
			}
			// Invariant: a queued timer is armed, and never queued before its next expiry.
			if next, ok := tb.Next(); ok && next <= 0 {
				t.Fatalf("queued deadline %d", next)
			}
		}
	})
}
