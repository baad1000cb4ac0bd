package core

import (
	"encoding/binary"
	"math/bits"
	"sync/atomic"

	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/tp"

	"github.com/unitrace/unitrace/kernel/ptimer"
	"github.com/unitrace/unitrace/kernel/sched"
	"github.com/unitrace/unitrace/kernel/signal"
)

// Timers: the POSIX timers of timer_create and the interval timers of setitimer and alarm.
// Package ptimer decides when each expires and counts overruns; here the kernel reads their
// clocks, checks them on every CPU's tick and sends their signals. A wall-clock timer is due
// at the first tick after its expiry; a CPU-time timer at the first tick of a CPU that runs a
// Thread whose clock (its own, or the process's) has passed it. The signal then reaches the
// Thread at that tick's return, so the frame it gets holds the pc where the clock ran out.

var Timers ptimer.Table

// cpuTimersArmed mirrors timers.CPUArmed, and cpuHints the earliest expiry of the CPU-time
// timers, for the lock-free part of the tick: a tick takes the kernel lock only when the thread
// it interrupted, or the process, has used up the CPU time to one. A user-time timer's hint is
// its expiry on the clock of all CPU time, which passes it no later.
var (
	cpuTimersArmed atomic.Bool
	cpuHints       struct {
		process atomic.Int64             // on the process's clock, 0 for none
		thread  [MaxThreads]atomic.Int64 // on each thread's clock, by slot, 0 for none
	}
)

// dueTimers is scratch for the expired wall-clock timers of one tick.
var dueTimers [16]int32

// ExpireTimers runs on a tick under the kernel lock: it counts the expiries due now and sends
// their signals, those of the CPU-time timers only on the periodic tick (periodic). A wake-up's
// interrupt comes at a sleeper's deadline, in step with what the program does: every CPU arms
// its timer for the earliest sleeper, and the Go runtime's sysmon sleeps 20 µs right after it
// sends SIGURG, so checked there, a CPU-time timer's SIGPROF came in the SIGURG handler of the
// Thread on the other CPU far more often than by chance, waited for its rt_sigreturn and found
// the pc the handler left (runtime.asyncPreempt). Linux, too, checks them on its tick only.
func ExpireTimers(now int64, periodic bool) {
	for {
		n := Timers.ExpiredWall(now, dueTimers[:])
		for i := 0; i < n; i++ {
			fireTimer(int(dueTimers[i]), now, -1)
		}
		if n < len(dueTimers) {
			break
		}
	}
	if periodic && !OnIdle() {
		checkCPUTimers(CurSlot())
	}
}

// checkCPUTimers counts the expiries of the CPU-time timers that the run of the thread in slot
// may have brought due: those on its own clocks and those on the process's, whose signals go
// to it (unless it blocks them). It runs where the periodic tick of the CPU that runs the thread
// falls, as Linux checks them on its tick: on the tick (ExpireTimers), or, when the tick fell
// due while the kernel ran for the thread (its interrupt waits for the kernel's return), at the
// end of that kernel entry, with the thread where the entry found it (CheckHeldOffTick): a
// Thread's kernel time before it blocks is seen that way, which a tick after the return would
// miss (it finds another thread). Only there: a check at a point the program's own doings
// choose (every switch, every wake-up's interrupt) finds the expiries that fell since the last
// tick there, and charges their samples to that point (see ExpireTimers), or, for the process's
// timers, to the threads that block often.
func checkCPUTimers(slot int32) {
	if !Timers.CPUArmed() || Scheduler.State(slot) == sched.Free {
		return
	}
	for id := Timers.NextCPU(-1); id >= 0; id = Timers.NextCPU(id) {
		t, _ := Timers.Get(id)
		if (t.Clock.Kind == ptimer.ThreadCPU || t.Clock.Kind == ptimer.ThreadUser) && t.Clock.Thread != slot {
			continue // its thread is not this one: its clock is checked where that runs
		}
		fireTimer(id, clockRead(t.Clock), slot)
	}
}

// fireTimer counts timer id's expiries up to now (its clock's) and sends its signal if that
// asks for one: to the thread it names, or to the process, where the thread in slot (whose run
// brought the expiry due; -1 for none) takes it unless it blocks it.
func fireTimer(id int, now int64, slot int32) {
	e := Timers.Expire(id, now)
	if e.Counted {
		TimersChanged() // its next expiry moved on
	}
	if !e.Fire {
		return
	}
	sig := int(e.Event.Signo)
	target := e.Event.Target
	if e.Event.Notify != ptimer.SigevThreadID {
		target = ProcessTarget(sig, slot)
	}
	if target < 0 {
		return
	}
	tp.TimerFire.Emit3(uint64(id), uint64(sig), uint64(Threads[target].Tid))
	if e.Legacy {
		SendSignal(target, sig, signal.Info{Signo: int32(sig), Code: signal.SI_KERNEL})
		return
	}
	Timers.Queued(id, target)
	sendTimedSignal(target, sig)
}

// CheckHeldOffTick runs at the end of a locked kernel entry, for the thread the entry came from:
// at a switch away from it (schedule), else just before the return to it (finishEntry). If this
// CPU's periodic tick fell due while the kernel ran (its interrupt waits for the return) and has
// not been checked for yet, it checks the thread's CPU-time timers, as the tick would have at the
// moment it fell due, with the thread where the kernel entry found it, and the tick's interrupt
// then checks none (heldTick). Left to that interrupt, the check came at the first instruction
// the return went to: another thread's after a switch, or a signal handler when the entry
// delivered one (the Go runtime's SIGURG, kicked from another CPU, whose entry can wait long for
// the kernel lock), and the timer's SIGPROF then waited for the handler's rt_sigreturn and found
// the pc the handler left (runtime.asyncPreempt). Checked here, its SIGPROF is pending beside
// SIGURG, and goes first (signal.Next). A tick that fell due while the CPU was idle belongs to
// nobody: it is marked checked, so that the thread the CPU then takes is not checked at its first
// instruction.
func CheckHeldOffTick(slot int32) {
	l := Here()
	if machine.Ticks() < l.TickNext || l.HeldTick == l.TickNext {
		return
	}
	l.HeldTick = l.TickNext
	if !sched.IsIdle(slot) {
		checkCPUTimers(slot)
	}
}

// ProcessTarget picks the thread that takes a process-directed signal the kernel sends itself:
// the thread in slot (or else the running one) if it does not block sig, else the first thread
// that does not (as kill's).
func ProcessTarget(sig int, slot int32) int32 {
	sender := slot
	if sender < 0 && !OnIdle() {
		sender = CurSlot()
	}
	if sender < 0 {
		sender = -1
		for s := int32(FirstThreadSlot); s < MaxThreads; s++ {
			if _, live := liveThreadMask(int(s)); live {
				sender = s
				break
			}
		}
		if sender < 0 {
			return -1
		}
	}
	return int32(signal.ProcessTarget(sig, int(sender), Threads[sender].Sig.Mask, FirstThreadSlot, MaxThreads, liveThreadMask))
}

// timerInfo takes the pending signal sig of a POSIX timer off the running thread t, now that it
// is delivered, and returns its siginfo, with the overrun counted up to now. ok is false when no
// timer's sig was pending after all (its timer was deleted meanwhile).
func timerInfo(t *Thread, sig int) (info signal.Info, ok bool) {
	id, overrun, value, more := Timers.Deliver(CurSlot(), int32(sig), clockRead)
	TimersChanged() // the overrun's count moved the timer's next expiry on
	if !more {
		t.Sig.Timed &^= signal.Bit(sig)
	}
	if id < 0 {
		return signal.Info{}, false
	}
	return signal.Info{Signo: int32(sig), Code: signal.SI_TIMER, TimerID: int32(id), Overrun: overrun, Value: value}, true
}

// TimersChanged republishes whether a CPU-time timer is armed, and the hints, after any change
// to the table. It runs under the kernel lock, often on a tick's path (every expiry moves a
// timer on), so it looks only at the armed CPU-time timers and at the threads hinted before.
func TimersChanged() {
	armed := Timers.CPUArmed()
	newlyArmed := armed && !cpuTimersArmed.Load()
	cpuTimersArmed.Store(armed)
	if newlyArmed {
		KickTicklessCPUs() // after the store, which a CPU stopping its tick looks at after its own
	}
	var process int64
	var hinted [len(hintedThreads)]uint64
	for id := Timers.NextCPU(-1); id >= 0; id = Timers.NextCPU(id) {
		t, _ := Timers.Get(id)
		switch t.Clock.Kind {
		case ptimer.ThreadCPU, ptimer.ThreadUser:
			slot := t.Clock.Thread & (MaxThreads - 1)
			bit := uint64(1) << uint(slot%64)
			if hinted[slot/64]&bit == 0 || t.Next() < hintNext[slot] {
				hintNext[slot] = t.Next()
			}
			hinted[slot/64] |= bit
		default:
			if process == 0 || t.Next() < process {
				process = t.Next()
			}
		}
	}
	for w := range hinted {
		for m := hintedThreads[w] | hinted[w]; m != 0; m &= m - 1 {
			slot := w*64 + bits.TrailingZeros64(m)
			next := int64(0)
			if hinted[w]&(1<<uint(slot%64)) != 0 {
				next = hintNext[slot]
			}
			cpuHints.thread[slot].Store(next)
		}
	}
	hintedThreads = hinted
	cpuHints.process.Store(process)
}

// hintedThreads has a bit for each thread slot whose hint is set, and hintNext is scratch for
// the earliest expiry of each (both under the kernel lock).
var (
	hintedThreads [MaxThreads / 64]uint64
	hintNext      [MaxThreads]int64
)

// CPUTimerDue reports, without the kernel lock, whether the tick should check the CPU-time
// timers: the thread running here, or the process, has passed the earliest expiry of one.
func CPUTimerDue(now int64) bool {
	if !cpuTimersArmed.Load() || OnIdle() {
		return false
	}
	slot := CurSlot()
	if d := cpuHints.thread[slot&(MaxThreads-1)].Load(); d != 0 && Scheduler.CPUTime(slot, now) >= d {
		return true
	}
	d := cpuHints.process.Load()
	return d != 0 && Scheduler.ProcessCPUTime(now) >= d
}

// struct sigevent (include/uapi/asm-generic/siginfo.h; the Go runtime's sigeventFields,
// TestSigeventLayout): sigev_value, sigev_signo, sigev_notify, then a union whose first member is
// sigev_notify_thread_id.
const (
	sigevValue    = 0
	sigevSigno    = 8
	sigevNotify   = 12
	sigevThreadID = 16
	sigevSize     = 20 // the bytes read; the union's other members do not matter here
)

func DoTimerCreate(clockid int32, sevp, idAddr uintptr) uint64 {
	if sevp != 0 && !UserRange(sevp, sigevSize, false) { // read before the clock, as Linux
		return abi.Neg(abi.EFAULT)
	}
	kind, c, canTime := ResolveClock(clockid)
	// A negative id is a CPU clock to Linux whatever it names (or, with CLOCKFD in its low
	// bits, a dynamic clock's descriptor, which has no timers): it checks a CPU clock's process
	// or thread only after the event and after storing the new timer's id.
	const clockFDMask, clockFD = 7, 3
	lateBad := kind == ClockBad && clockid < 0 && clockid&clockFDMask != clockFD
	switch {
	case kind == ClockBad && clockid < 0 && !lateBad:
		return abi.Neg(abi.EOPNOTSUPP)
	case kind == ClockBad && !lateBad:
		return abi.Neg(abi.EINVAL)
	case !canTime && !lateBad:
		return abi.Neg(abi.EOPNOTSUPP)
	}
	ev := ptimer.Event{Notify: ptimer.SigevSignal, Signo: signal.SIGALRM}
	valueIsID := true
	if sevp != 0 {
		b, ok := UserBytes(sevp, sigevSize, false)
		if !ok {
			return abi.Neg(abi.EFAULT)
		}
		ev.Value = binary.LittleEndian.Uint64(b[sigevValue:])
		ev.Signo = int32(binary.LittleEndian.Uint32(b[sigevSigno:]))
		ev.Notify = ptimer.Notify(binary.LittleEndian.Uint32(b[sigevNotify:]))
		valueIsID = false
		switch ev.Notify {
		case ptimer.SigevThreadID:
			tid := int32(binary.LittleEndian.Uint32(b[sigevThreadID:]))
			if ev.Target = SlotOfTID(tid); tid <= 0 || ev.Target < 0 {
				return abi.Neg(abi.EINVAL)
			}
			fallthrough
		case ptimer.SigevSignal, ptimer.SigevThread:
			if !signal.Valid(int(ev.Signo)) {
				return abi.Neg(abi.EINVAL)
			}
		case ptimer.SigevNone:
		default:
			return abi.Neg(abi.EINVAL)
		}
	}
	if lateBad {
		if !UserRange(idAddr, 4, true) {
			return abi.Neg(abi.EFAULT)
		}
		return abi.Neg(abi.EINVAL)
	}
	id, errno := Timers.Create(c, ev)
	if errno != 0 {
		return abi.Neg(errno)
	}
	if valueIsID {
		Timers.SetValue(id, uint64(id)) // sigev_value is the timer's id when sevp is NULL
	}
	if !WriteUser32(idAddr, uint32(id)) {
		Timers.Delete(id)
		return abi.Neg(abi.EFAULT)
	}
	return 0
}

// timerClock is POSIX timer id's clock and its reading now.
func timerClock(id int) (c ptimer.Clock, now int64, ok bool) {
	if !Timers.Exists(id) {
		return ptimer.Clock{}, 0, false
	}
	t, _ := Timers.Get(id)
	return t.Clock, clockRead(t.Clock), true
}

// struct itimerspec (include/uapi/linux/time_types.h): it_interval, then it_value, timespecs.
const ItimerspecSize = 32

func DoTimerSettime(id int32, flags int, newAddr, oldAddr uintptr) uint64 {
	// Linux's order: the new value is read and checked before the timer is looked up.
	if newAddr == 0 {
		return abi.Neg(abi.EINVAL)
	}
	interval, ok := ReadTimespec(newAddr)
	if !ok {
		return abi.Neg(abi.EFAULT)
	}
	value, ok := ReadTimespec(newAddr + 16)
	if !ok {
		return abi.Neg(abi.EFAULT)
	}
	if interval < 0 || value < 0 {
		return abi.Neg(abi.EINVAL)
	}
	clock, now, ok := timerClock(int(id))
	if !ok {
		return abi.Neg(abi.EINVAL)
	}
	if oldAddr != 0 {
		if _, ok := UserBytes(oldAddr, ItimerspecSize, true); !ok {
			return abi.Neg(abi.EFAULT)
		}
	}
	abs := flags&TimerAbstime != 0
	if abs && value != 0 && clock.Realtime {
		value -= BootWallNanos // the wall clock never steps: an absolute realtime is a monotonic one
		value = max(value, 1)
	}
	oldLeft, oldInterval, errno := Timers.Arm(int(id), value, interval, abs, now)
	TimersChanged()
	if errno != 0 {
		return abi.Neg(errno)
	}
	if oldAddr != 0 {
		WriteTimespec(oldAddr, oldInterval)
		WriteTimespec(oldAddr+16, oldLeft)
	}
	return 0
}

func DoTimerGettime(id int32, addr uintptr) uint64 {
	_, now, ok := timerClock(int(id))
	if !ok {
		return abi.Neg(abi.EINVAL)
	}
	left, interval, _ := Timers.Left(int(id), now)
	if !WriteTimespec(addr, interval) || !WriteTimespec(addr+16, left) {
		return abi.Neg(abi.EFAULT)
	}
	return 0
}

func DoTimerGetoverrun(id int32) uint64 {
	n, errno := Timers.Overrun(int(id))
	return abi.ErrnoOr(errno, uint64(n))
}

func DoTimerDelete(id int32) uint64 {
	t, _ := Timers.Get(int(id))
	pendingOn, errno := Timers.Delete(int(id))
	if errno != 0 {
		return abi.Neg(errno)
	}
	if pendingOn >= 0 && !Timers.Pending(pendingOn, t.Event.Signo) {
		Threads[pendingOn].Sig.Timed &^= signal.Bit(int(t.Event.Signo))
	}
	TimersChanged()
	return 0
}

// The interval timers: ITIMER_REAL on the wall clock with SIGALRM, ITIMER_VIRTUAL on the
// process's user time with SIGVTALRM, ITIMER_PROF on its CPU time with SIGPROF (as Linux's
// it_real_fn and check_process_timers send them, SI_KERNEL).
var itimerSetups = [...]struct {
	kind ptimer.Kind
	sig  int32
}{
	ptimer.ITimerReal:    {ptimer.Wall, signal.SIGALRM},
	ptimer.ITimerVirtual: {ptimer.ProcessUser, signal.SIGVTALRM},
	ptimer.ITimerProf:    {ptimer.ProcessCPU, signal.SIGPROF},
}

// itimerSlot returns interval timer which's table slot, set up on first use.
func itimerSlot(which int) (int, bool) {
	if which < 0 || which >= len(itimerSetups) {
		return 0, false
	}
	s := itimerSetups[which]
	Timers.SetInterval(which, ptimer.Clock{Kind: s.kind}, ptimer.Event{Notify: ptimer.SigevSignal, Signo: s.sig})
	return ptimer.ITimerSlot(which), true
}

// struct itimerval (include/uapi/linux/time.h): it_interval, then it_value, timevals.
const itimervalSize = 32

func DoSetitimer(which int, newAddr, oldAddr uintptr) uint64 {
	// Linux's order: the new value is read (EFAULT) and checked (EINVAL) before which.
	var value, interval int64
	if newAddr != 0 {
		b, ok := UserBytes(newAddr, itimervalSize, false)
		if !ok {
			return abi.Neg(abi.EFAULT)
		}
		if interval, ok = timevalNanos(b[0:16]); !ok {
			return abi.Neg(abi.EINVAL)
		}
		if value, ok = timevalNanos(b[16:32]); !ok {
			return abi.Neg(abi.EINVAL)
		}
	}
	slot, ok := itimerSlot(which)
	if !ok {
		return abi.Neg(abi.EINVAL)
	}
	if oldAddr != 0 {
		if _, ok := UserBytes(oldAddr, itimervalSize, true); !ok {
			return abi.Neg(abi.EFAULT)
		}
	}
	t, _ := Timers.Get(slot)
	oldLeft, oldInterval, _ := Timers.Arm(slot, value, interval, false, clockRead(t.Clock))
	TimersChanged()
	if oldAddr != 0 {
		putItimerval(oldAddr, oldLeft, oldInterval)
	}
	return 0
}

func DoGetitimer(which int, addr uintptr) uint64 {
	slot, ok := itimerSlot(which)
	if !ok {
		return abi.Neg(abi.EINVAL)
	}
	t, _ := Timers.Get(slot)
	left, interval, _ := Timers.Left(slot, clockRead(t.Clock))
	if _, ok := UserBytes(addr, itimervalSize, true); !ok {
		return abi.Neg(abi.EFAULT)
	}
	putItimerval(addr, left, interval)
	return 0
}

// DoAlarm is alarm(2): ITIMER_REAL once after seconds (0 cancels), returning the seconds
// the previous alarm had left, rounded to the nearest, and at least 1 if it was armed.
func DoAlarm(seconds uint32) uint64 {
	slot, _ := itimerSlot(ptimer.ITimerReal)
	oldLeft, _, _ := Timers.Arm(slot, int64(seconds)*1e9, 0, false, machine.Nanotime())
	TimersChanged()
	if oldLeft == 0 {
		return 0
	}
	return uint64(max((oldLeft+5e8)/1e9, 1))
}

// timevalNanos reads a struct timeval, refusing what setitimer refuses (a negative time or
// microseconds outside 0..999999).
func timevalNanos(b []byte) (int64, bool) {
	sec, usec := int64(binary.LittleEndian.Uint64(b[0:8])), int64(binary.LittleEndian.Uint64(b[8:16]))
	if sec < 0 || usec < 0 || usec >= 1e6 {
		return 0, false
	}
	sec = min(sec, int64(1<<62)/1e9)
	return sec*1e9 + usec*1e3, true
}

// putItimerval writes an interval timer's setting, the time left rounded up to the
// microsecond so that an armed timer never reads as disarmed.
func putItimerval(addr uintptr, left, interval int64) {
	b, _ := UserBytes(addr, itimervalSize, true)
	PutTimeval(b[0:], roundUpMicro(interval))
	PutTimeval(b[16:], roundUpMicro(left))
}

func roundUpMicro(ns int64) int64 { return (ns + 999) / 1000 * 1000 }
