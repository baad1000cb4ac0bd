package files

import (
	"encoding/binary"

	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/machine"

	"github.com/unitrace/unitrace/kernel/fd"
	"github.com/unitrace/unitrace/kernel/timerfd"
)

// Timerfds: package timerfd keeps each timer's deadline and its expirations not yet read, the
// descriptor table a timerfd descriptor (readable while there are some). A timer's deadline
// joins the earliest wake-up a CPU arms (publishSchedHints), so the tick's path finds it due at
// its expiry, counts it and wakes the descriptor's readers and watchers, as Linux's hrtimer
// callback does. A realtime clock's absolute time becomes monotonic time: the wall clock never
// steps here, so TFD_TIMER_CANCEL_ON_SET never cancels.

var (
	Timerfds    timerfd.Table
	dueTimerfds [16]int32
)

func TimerfdCreate(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	clockid := int32(a[0])
	flags := int(int32(a[1]))
	ok, realtime := timerfd.ValidClock(clockid)
	if !ok || !timerfd.ValidCreateFlags(flags) {
		return abi.Neg(abi.EINVAL), true
	}
	id, errno := Timerfds.Create(-1, realtime)
	if errno != 0 {
		return abi.Neg(errno), true
	}
	n, errno := core.FDs.OpenTimerfd(id, flags)
	if errno != 0 {
		Timerfds.Delete(id)
		return abi.Neg(errno), true
	}
	Timerfds.SetOwner(id, int32(n))
	return uint64(n), true
}

// timerfdOf returns the timer behind descriptor n: EBADF if n is not open, EINVAL if it is no
// timerfd.
func timerfdOf(n int) (int, int) {
	if core.FDs.Kind(n) == fd.KindNone {
		return 0, abi.EBADF
	}
	id, ok := core.FDs.Timerfd(n)
	if !ok {
		return 0, abi.EINVAL
	}
	return id, 0
}

// timerfdChanged mirrors timer id's expirations into its descriptor n and wakes its waiters.
func timerfdChanged(n, id int) {
	core.FDs.SetTimerfdTicks(n, Timerfds.Ticks(id))
	core.WakeFDWaiters(n)
}

func TimerfdSettime(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	n := int(int32(a[0]))
	flags := int(int32(a[1]))
	newAddr := uintptr(a[2])
	oldAddr := uintptr(a[3])
	b, ok := core.UserBytes(newAddr, core.ItimerspecSize, false)
	if !ok {
		return abi.Neg(abi.EFAULT), true
	}
	interval, iok := TimespecNanos(b[0:16])
	value, vok := TimespecNanos(b[16:32])
	if !timerfd.ValidSetFlags(flags) || !iok || !vok {
		return abi.Neg(abi.EINVAL), true
	}
	id, errno := timerfdOf(n)
	if errno != 0 {
		return abi.Neg(errno), true
	}
	abs := flags&timerfd.TFD_TIMER_ABSTIME != 0
	if abs && value != 0 && Timerfds.Realtime(id) {
		value = max(value-core.BootWallNanos, 1)
	}
	oldValue, oldInterval, _ := Timerfds.Set(id, value, interval, abs, machine.Nanotime())
	timerfdChanged(n, id)
	if oldAddr != 0 {
		if !core.WriteTimespec(oldAddr, oldInterval) || !core.WriteTimespec(oldAddr+16, oldValue) {
			return abi.Neg(abi.EFAULT), true
		}
	}
	return 0, true
}

func TimerfdGettime(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	n := int(int32(a[0]))
	addr := uintptr(a[1])
	id, errno := timerfdOf(n)
	if errno != 0 {
		return abi.Neg(errno), true
	}
	value, interval := Timerfds.Get(id, machine.Nanotime())
	timerfdChanged(n, id)
	if !core.WriteTimespec(addr, interval) || !core.WriteTimespec(addr+16, value) {
		return abi.Neg(abi.EFAULT), true
	}
	return 0, true
}

// timerfdRead reads timerfd n's expirations into the 8 bytes at buf, or reports that a
// blocking reader must wait (done=false), as eventfdRead.
func timerfdRead(n int, buf uintptr) (ret uint64, done bool) {
	id, errno := timerfdOf(n)
	if errno != 0 {
		return abi.Neg(errno), true
	}
	b, ok := core.UserBytes(buf, 8, true)
	if !ok {
		return abi.Neg(abi.EFAULT), true
	}
	ticks, errno := Timerfds.Read(id, machine.Nanotime())
	core.FDs.SetTimerfdTicks(n, 0)
	switch {
	case errno == abi.EAGAIN && !core.FDs.Nonblocking(n):
		return 0, false
	case errno != 0:
		return abi.Neg(errno), true
	}
	binary.LittleEndian.PutUint64(b, ticks)
	return 8, true
}

// counterRead is an 8-byte read of an eventfd or a timerfd: the system call and the completion of
// a blocked one.
func counterRead(n int, buf uintptr) (ret uint64, done bool) {
	if core.FDs.Kind(n) == fd.KindTimerfd {
		return timerfdRead(n, buf)
	}
	return eventfdRead(n, buf)
}

// ExpireTimerfds runs on a tick under the kernel lock: it counts the expirations of the
// timerfds due now and wakes their readers and watchers.
func ExpireTimerfds(now int64) {
	for {
		k := Timerfds.Expired(now, dueTimerfds[:])
		for i := 0; i < k; i++ {
			id := int(dueTimerfds[i])
			if n := int(Timerfds.Owner(id)); n >= 0 {
				timerfdChanged(n, id)
			}
		}
		if k < len(dueTimerfds) {
			return
		}
	}
}

// closeTimerfd deletes the timer of timerfd n, which is being closed, and wakes the threads
// blocked reading it (their retry sees EBADF).
func closeTimerfd(n int) {
	if id, ok := core.FDs.Timerfd(n); ok {
		Timerfds.Delete(id)
		core.FutexWake(core.FDKey(n), core.MaxThreads)
	}
}

// TimespecNanos reads a struct timespec, refusing what itimerspec64_valid refuses (a negative
// time, nanoseconds outside 0..999999999).
func TimespecNanos(b []byte) (int64, bool) {
	sec, nsec := int64(binary.LittleEndian.Uint64(b[0:8])), int64(binary.LittleEndian.Uint64(b[8:16]))
	if sec < 0 || nsec < 0 || nsec >= 1e9 {
		return 0, false
	}
	sec = min(sec, int64(1<<62)/1e9)
	return sec*1e9 + nsec, true
}

// CompleteEventfdWait reads the eventfd the thread in slot waits on, woken, or waits again.
func CompleteEventfdWait(f *machine.Frame, slot int32) {
	t := &core.Threads[slot]
	if ret, done := counterRead(int(t.WaitFD), t.WaitAddr); done {
		machine.SetSysRet(f, ret)
		return
	}
	t.Wait = core.WaitEventfd
	core.Rearm(slot, core.FDKey(int(t.WaitFD)))
}
