// Package timerfd is the state of the timers behind timerfd descriptors (timerfd_create(2),
// timerfd_settime(2), timerfd_gettime(2), and read(2) of the expiration count), on the kernel's
// monotonic clock.
//
// A timer counts its expirations as Linux's does: when its deadline passes, the expirations up
// to then become ticks that a read returns and clears, and a descriptor is readable while it has
// some. As on Linux, an interval timer that expired is not requeued until the program reads it
// or asks its setting (Linux restarts the hrtimer only then), so an unread timer wakes its
// watchers once, not at every interval; the expirations in between are counted all the same.
//
// The package is kernel-mode Go: a Table holds only integers and fixed arrays, never allocates
// and never panics on any input. It does no locking: the caller serialises all calls.
package timerfd

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/timerq"
)

// Max is how many timers can exist at once (the deadline queue's capacity); timerfd_create
// beyond it fails with ENFILE, as when the system's table of open files is full.
const Max = timerq.Capacity

// Flags (include/uapi/linux/timerfd.h): of timerfd_create, and of timerfd_settime.
const (
	TFD_CLOEXEC             = 0x80000 // O_CLOEXEC
	TFD_NONBLOCK            = 0x800   // O_NONBLOCK
	TFD_TIMER_ABSTIME       = 1
	TFD_TIMER_CANCEL_ON_SET = 2
)

// Clock ids a timerfd may use (include/uapi/linux/time.h).
const (
	ClockRealtime      = 0
	ClockMonotonic     = 1
	ClockBoottime      = 7
	ClockRealtimeAlarm = 8
	ClockBoottimeAlarm = 9
)

// ValidClock reports whether timerfd_create takes clock id (else EINVAL), and whether it is a
// realtime clock, whose absolute times are wall-clock times.
func ValidClock(id int32) (ok, realtime bool) {
	switch id {
	case ClockRealtime, ClockRealtimeAlarm:
		return true, true
	case ClockMonotonic, ClockBoottime, ClockBoottimeAlarm:
		return true, false
	}
	return false, false
}

// ValidCreateFlags reports whether timerfd_create takes flags.
func ValidCreateFlags(flags int) bool { return flags&^(TFD_CLOEXEC|TFD_NONBLOCK) == 0 }

// ValidSetFlags reports whether timerfd_settime takes flags. TFD_TIMER_CANCEL_ON_SET is
// accepted with any clock, as Linux does; it only matters for a realtime clock that is set.
func ValidSetFlags(flags int) bool {
	return flags&^(TFD_TIMER_ABSTIME|TFD_TIMER_CANCEL_ON_SET) == 0
}

// timer is one timerfd's state.
type timer struct {
	used     bool
	realtime bool
	owner    int32 // the caller's handle for it (the kernel's descriptor)
	// next is the next expiry not yet counted (monotonic ns), 0 when disarmed; interval is 0
	// for a one-shot timer.
	next, interval int64
	ticks          uint64 // expirations counted and not yet read
}

// Table holds every timerfd's timer. The zero value has none.
type Table struct {
	t [Max]timer
	q timerq.Queue // the deadlines of the queued timers
}

func (tb *Table) valid(id int) bool { return id >= 0 && id < Max && tb.t[id].used }

// Create makes a disarmed timer for owner and returns its id, or ENFILE when Max exist.
// realtime records that it runs on a realtime clock.
func (tb *Table) Create(owner int32, realtime bool) (id int, errno int) {
	for id = range tb.t {
		if !tb.t[id].used {
			tb.t[id] = timer{used: true, realtime: realtime, owner: owner}
			return id, 0
		}
	}
	return -1, abi.ENFILE
}

// Delete removes timer id (its descriptor closed).
func (tb *Table) Delete(id int) {
	if !tb.valid(id) {
		return
	}
	tb.q.Remove(int32(id))
	tb.t[id] = timer{}
}

// SetOwner changes what Owner returns for timer id.
func (tb *Table) SetOwner(id int, owner int32) {
	if tb.valid(id) {
		tb.t[id].owner = owner
	}
}

// Owner returns what Create was given for timer id, or -1.
func (tb *Table) Owner(id int) int32 {
	if !tb.valid(id) {
		return -1
	}
	return tb.t[id].owner
}

// Realtime reports whether timer id runs on a realtime clock.
func (tb *Table) Realtime(id int) bool { return tb.valid(id) && tb.t[id].realtime }

// count turns the expirations of timer id up to now into ticks, and moves next on: past now
// for an interval timer, to 0 for a one-shot one.
func (tb *Table) count(id int, now int64) {
	t := &tb.t[id]
	if t.next == 0 || now < t.next {
		return
	}
	n := uint64(1)
	if t.interval > 0 {
		n += uint64((now - t.next) / t.interval)
		t.next += int64(n) * t.interval
		if t.next <= 0 { // beyond the clock's range: as good as never again
			t.next, t.interval = 0, 0
		}
	} else {
		t.next = 0
	}
	if t.ticks+n < t.ticks {
		t.ticks = ^uint64(0)
	} else {
		t.ticks += n
	}
}

// requeue puts timer id's next expiry in the deadline queue, or takes it out when disarmed.
func (tb *Table) requeue(id int) {
	if tb.t[id].next == 0 {
		tb.q.Remove(int32(id))
		return
	}
	tb.q.Add(int32(id), tb.t[id].next)
}

// left is timer id's time to its next expiry, 0 when disarmed.
func (tb *Table) left(id int, now int64) int64 {
	t := &tb.t[id]
	if t.next == 0 {
		return 0
	}
	return max(t.next-now, 1) // due but not yet counted: still armed
}

// Set implements timerfd_settime: value 0 disarms the timer, else it expires after value (or at
// value, with abs, on the monotonic clock: the caller converts a realtime clock's wall time),
// then every interval if that is not 0. It returns the old setting, as Get would have, and
// clears the ticks not yet read, as Linux does. Negative times are EINVAL (the caller checks
// the timespecs' ranges).
func (tb *Table) Set(id int, value, interval int64, abs bool, now int64) (oldValue, oldInterval int64, errno int) {
	if !tb.valid(id) || value < 0 || interval < 0 {
		return 0, 0, abi.EINVAL
	}
	oldValue, oldInterval = tb.Get(id, now)
	t := &tb.t[id]
	t.ticks = 0
	t.next, t.interval = 0, 0
	if value != 0 {
		if !abs {
			value = sat(now, value)
		}
		t.next, t.interval = max(value, 1), interval
	}
	tb.requeue(id)
	return oldValue, oldInterval, 0
}

// Get implements timerfd_gettime: the time to the next expiry (0 when disarmed, which a one-shot
// timer is once it expired) and the interval. It counts the expirations up to now and requeues
// an interval timer, as Linux's restarts its hrtimer there.
func (tb *Table) Get(id int, now int64) (value, interval int64) {
	if !tb.valid(id) {
		return 0, 0
	}
	tb.count(id, now)
	tb.requeue(id)
	return tb.left(id, now), tb.t[id].interval
}

// Read implements an 8-byte read(2): the expirations up to now that no read returned yet, which
// it clears, or EAGAIN when there are none (the caller then waits, or returns EAGAIN to an
// O_NONBLOCK reader). An interval timer goes back in the deadline queue.
func (tb *Table) Read(id int, now int64) (ticks uint64, errno int) {
	if !tb.valid(id) {
		return 0, abi.EINVAL
	}
	tb.count(id, now)
	tb.requeue(id)
	ticks, tb.t[id].ticks = tb.t[id].ticks, 0
	if ticks == 0 {
		return 0, abi.EAGAIN
	}
	return ticks, 0
}

// Ticks reports the expirations of timer id counted and not yet read: its descriptor is
// readable while there are some.
func (tb *Table) Ticks(id int) uint64 {
	if !tb.valid(id) {
		return 0
	}
	return tb.t[id].ticks
}

// Next is the earliest deadline of a queued timer, for the kernel's wake-up.
func (tb *Table) Next() (int64, bool) { return tb.q.Next() }

// Expired takes the timers due at now out of the queue, counts their expirations, stores their
// ids in out and returns how many (at most len(out); call again while it fills out). Each has
// ticks now: the caller makes its descriptor readable and wakes its waiters. The timers stay out
// of the queue until a Read or a Get, as Linux's hrtimer stays stopped until then.
func (tb *Table) Expired(now int64, out []int32) int {
	n := tb.q.Expired(now, out)
	for i := 0; i < n; i++ {
		id := int(out[i])
		if tb.valid(id) {
			tb.count(id, now)
		}
	}
	return n
}

// sat is now+d, saturated at the largest int64.
func sat(now, d int64) int64 {
	if d > 1<<63-1-now {
		return 1<<63 - 1
	}
	return now + d
}
