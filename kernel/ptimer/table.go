package ptimer

import "github.com/unitrace/unitrace/kernel/abi"

// DelayTimerMax caps an overrun count as Linux does (INT_MAX).
const DelayTimerMax = 1<<31 - 1

func (tb *Table) valid(id int) bool { return id >= 0 && id < MaxTimers && tb.t[id].used }

// Create makes a POSIX timer on clock c with event ev, disarmed, and returns its id, or EAGAIN
// when MaxTimers exist.
func (tb *Table) Create(c Clock, ev Event) (id int, errno int) {
	for id = 0; id < MaxTimers; id++ {
		if !tb.t[id].used {
			tb.t[id] = Timer{used: true, Clock: c, Event: ev}
			return id, 0
		}
	}
	return -1, abi.EAGAIN
}

// Delete removes timer id. It returns the thread its signal was pending on (-1 for none), for
// the kernel to take the pending signal back, or EINVAL for no such timer.
func (tb *Table) Delete(id int) (pendingOn int32, errno int) {
	if !tb.valid(id) {
		return -1, abi.EINVAL
	}
	pendingOn = -1
	if tb.t[id].queued {
		pendingOn = tb.t[id].queuedOn
	}
	tb.disarm(id)
	tb.t[id] = Timer{}
	return pendingOn, 0
}

// SetValue sets timer id's sigev_value (timer_create without a sigevent: the id itself).
func (tb *Table) SetValue(id int, v uint64) {
	if tb.valid(id) {
		tb.t[id].Event.Value = v
	}
}

// Exists reports whether id is a POSIX timer.
func (tb *Table) Exists(id int) bool { return tb.valid(id) }

// Get returns timer id (a POSIX timer, or an interval timer's slot).
func (tb *Table) Get(id int) (Timer, bool) {
	if id < 0 || id >= slots || (id < MaxTimers && !tb.t[id].used) {
		return Timer{}, false
	}
	return tb.t[id], true
}

// SetInterval makes interval timer which a legacy timer on clock c with event ev (setitimer
// sets its kind and signal; the kernel calls this once per timer before it first arms it).
func (tb *Table) SetInterval(which int, c Clock, ev Event) {
	if which < 0 || which >= numITimers {
		return
	}
	t := &tb.t[ITimerSlot(which)]
	if !t.used {
		*t = Timer{used: true, legacy: true, Clock: c, Event: ev}
	}
}

// Arm sets timer id (a POSIX timer or an interval timer's slot) to expire first at value
// (relative to now, or absolute on its clock when abs), then every interval (0: once); a zero
// value disarms it. It returns the time left before the old setting's next expiry and its
// interval, as timer_settime's old_value. The overrun counts start again, as on Linux; a pending
// signal stays pending.
func (tb *Table) Arm(id int, value, interval int64, abs bool, now int64) (oldLeft, oldInterval int64, errno int) {
	if id < 0 || id >= slots || !tb.t[id].used {
		return 0, 0, abi.EINVAL
	}
	if value < 0 || interval < 0 {
		return 0, 0, abi.EINVAL
	}
	t := &tb.t[id]
	oldLeft, oldInterval = tb.left(id, now), t.interval
	tb.disarm(id)
	t.overrun, t.last = 0, 0
	if value == 0 {
		return oldLeft, oldInterval, 0
	}
	next := value
	if !abs {
		next = now + value
		if next < now { // overflow: never, in practice
			next = 1<<63 - 1
		}
	}
	if next <= 0 {
		next = 1 // an absolute time in the past expires at the next check
	}
	t.next, t.interval = next, interval
	tb.track(id)
	return oldLeft, oldInterval, 0
}

// Left returns the time left before timer id's next expiry (0 when disarmed; at least 1 while
// armed, even if the expiry is due and not yet counted) and its interval, as timer_gettime.
func (tb *Table) Left(id int, now int64) (left, interval int64, errno int) {
	if id < 0 || id >= slots || (id < MaxTimers && !tb.t[id].used) {
		return 0, 0, abi.EINVAL
	}
	return tb.left(id, now), tb.t[id].interval, 0
}

func (tb *Table) left(id int, now int64) int64 {
	t := &tb.t[id]
	switch {
	case t.next == 0:
		return 0
	case t.next > now:
		return t.next - now
	case t.interval > 0:
		// Due expirations not yet counted: the next one after now.
		return t.interval - (now-t.next)%t.interval
	}
	return 1
}

// Overrun is timer_getoverrun's answer: the overrun count of the timer's last delivered signal.
func (tb *Table) Overrun(id int) (int64, int) {
	if !tb.valid(id) {
		return 0, abi.EINVAL
	}
	return min(tb.t[id].last, DelayTimerMax), 0
}

// Expiry says what a timer's expiry asks of the kernel.
type Expiry struct {
	ID      int
	Fire    bool // send the timer's signal (Legacy: a plain one)
	Counted bool // some expiry was due: the timer's next expiry moved on, or it disarmed
	Legacy  bool
	Event   Event
}

// Expire counts timer id's expirations up to now on its clock. It reports whether the kernel
// must send its signal: for a POSIX timer only when none of its signals is pending (else the
// expirations add to the overrun); for an interval timer on every expiry (its plain signal
// coalesces with one already pending). A one-shot timer disarms. The kernel calls Queued once
// it has sent a POSIX timer's signal.
func (tb *Table) Expire(id int, now int64) Expiry {
	if id < 0 || id >= slots || !tb.t[id].used {
		return Expiry{ID: id}
	}
	t := &tb.t[id]
	k := tb.count(id, now)
	if k == 0 {
		return Expiry{ID: id}
	}
	e := Expiry{ID: id, Counted: true, Legacy: t.legacy, Event: t.Event}
	switch {
	case t.legacy:
		e.Fire = t.Event.Notify != SigevNone
	case t.Event.Notify == SigevNone:
	case t.queued:
		t.overrun = sat(t.overrun + k)
	default:
		t.overrun = k - 1
		e.Fire = true
	}
	return e
}

// count advances timer id past now and returns how many expirations that passed (0 if none was
// due).
func (tb *Table) count(id int, now int64) int64 {
	t := &tb.t[id]
	if t.next == 0 || t.next > now {
		return 0
	}
	if t.interval == 0 {
		tb.disarm(id)
		return 1
	}
	k := (now-t.next)/t.interval + 1
	t.next += k * t.interval
	tb.track(id)
	return k
}

// Queued records that timer id's signal is now pending on thread slot.
func (tb *Table) Queued(id int, slot int32) {
	if tb.valid(id) {
		tb.t[id].queued, tb.t[id].queuedOn = true, slot
	}
}

// Deliver takes the pending signal of the first POSIX timer, by id, whose signal sig is pending
// on thread slot, as the signal is delivered at now (now of each timer's own clock, which now
// reads). It counts the expirations since the last check into the overrun, so the count is
// exact at delivery, and returns the timer's id and the overrun for si_overrun; more says
// whether another timer's sig stays pending on slot. id is -1 when none was pending.
func (tb *Table) Deliver(slot int32, sig int32, now func(Clock) int64) (id int, overrun int32, value uint64, more bool) {
	id = -1
	for i := 0; i < MaxTimers; i++ {
		t := &tb.t[i]
		if !t.used || !t.queued || t.queuedOn != slot || t.Event.Signo != sig {
			continue
		}
		if id >= 0 {
			return id, overrun, value, true
		}
		id = i
		t.overrun = sat(t.overrun + tb.count(i, now(t.Clock)))
		t.last, t.overrun, t.queued = t.overrun, 0, false
		overrun, value = int32(min(t.last, DelayTimerMax)), t.Event.Value
	}
	return id, overrun, value, false
}

// Pending reports whether a POSIX timer's signal sig is pending on thread slot.
func (tb *Table) Pending(slot int32, sig int32) bool {
	for i := 0; i < MaxTimers; i++ {
		if t := &tb.t[i]; t.used && t.queued && t.queuedOn == slot && t.Event.Signo == sig {
			return true
		}
	}
	return false
}

// ThreadExited forgets thread slot: timers on its CPU clock disarm (the clock stops for good),
// timers that signal it directly disarm too, and signals pending on it are gone with it.
func (tb *Table) ThreadExited(slot int32) {
	for i := range tb.t {
		t := &tb.t[i]
		if !t.used {
			continue
		}
		onClock := (t.Clock.Kind == ThreadCPU || t.Clock.Kind == ThreadUser) && t.Clock.Thread == slot
		if onClock || (t.Event.Notify == SigevThreadID && t.Event.Target == slot) {
			tb.disarm(i)
		}
		if t.queued && t.queuedOn == slot {
			t.queued = false
		}
	}
}

// Reset removes every timer and disarms the interval timers.
func (tb *Table) Reset() { *tb = Table{} }

func sat(n int64) int64 {
	if n < 0 || n > 1<<62 {
		return 1 << 62
	}
	return n
}
