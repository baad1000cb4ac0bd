package main

import (
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"
	"unsafe"
)

// Linux's ABI for the calls package syscall does not wrap (include/uapi/asm-generic/siginfo.h,
// include/uapi/linux/time.h).
const (
	clockMonotonic    = 1
	clockThreadCPU    = 3
	clockMonotonicRaw = 4
	sigevThreadID     = 4
	sigBlock          = 0
	sigUnblock        = 1
)

type sigevent struct {
	value  uint64
	signo  int32
	notify int32
	tid    int32
	_      [44]byte
}

type itimerspec struct{ interval, value syscall.Timespec }

// checkOverrun creates a 10 ms periodic timer on CLOCK_MONOTONIC that signals this thread with
// SIGUSR2, which the thread blocks; it sleeps about 105 ms and unblocks it. The signal is then
// delivered once, and timer_getoverrun must count every other expiry up to the delivery: the
// expiries are whole periods since the timer was armed, bounded from the times taken around
// the arming and around the unblocking.
func checkOverrun() (string, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	ch := make(chan os.Signal, 4)
	signal.Notify(ch, syscall.SIGUSR2)
	defer signal.Stop(ch)
	set := uint64(1) << (syscall.SIGUSR2 - 1)
	if err := sigprocmask(sigBlock, set); err != nil {
		return "", err
	}
	id, err := timerCreate(clockMonotonic, &sigevent{signo: int32(syscall.SIGUSR2), notify: sigevThreadID, tid: int32(syscall.Gettid())})
	if err != nil {
		sigprocmask(sigUnblock, set)
		return "", err
	}
	defer timerDelete(id)
	const period = 10 * time.Millisecond
	s0 := time.Now()
	if err := timerSettime(id, period, period); err != nil {
		sigprocmask(sigUnblock, set)
		return "", err
	}
	s1 := time.Now()
	ts := syscall.NsecToTimespec(int64(105 * time.Millisecond))
	syscall.Syscall(syscall.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), 0, 0)
	u0 := time.Now()
	if err := sigprocmask(sigUnblock, set); err != nil {
		return "", err
	}
	// The signal was delivered at the unblocking call's return: ask now, before the next
	// expiry 4 ms on delivers another and replaces the count.
	n, _, e := syscall.Syscall(syscall.SYS_TIMER_GETOVERRUN, uintptr(id), 0, 0)
	u1 := time.Now()
	if e != 0 {
		return "", fmt.Errorf("timer_getoverrun: %w", e)
	}
	select {
	case <-ch:
	case <-time.After(2 * time.Second):
		return "", fmt.Errorf("no SIGUSR2 after unblocking it")
	}
	lo, hi := int64(u0.Sub(s1)/period)-1, int64(u1.Sub(s0)/period)-1
	detail := fmt.Sprintf("overrun=%d want=%d..%d (blocked for %v)", n, lo, hi, u0.Sub(s1).Round(time.Millisecond/10))
	if int64(n) < lo || int64(n) > hi {
		return "", fmt.Errorf("%s", detail)
	}
	return detail, nil
}

func sigprocmask(how int, set uint64) error {
	if _, _, e := syscall.RawSyscall6(syscall.SYS_RT_SIGPROCMASK, uintptr(how), uintptr(unsafe.Pointer(&set)), 0, 8, 0, 0); e != 0 {
		return fmt.Errorf("rt_sigprocmask: %w", e)
	}
	return nil
}

func timerCreate(clock int, ev *sigevent) (int32, error) {
	var id int32
	if _, _, e := syscall.Syscall(syscall.SYS_TIMER_CREATE, uintptr(clock), uintptr(unsafe.Pointer(ev)), uintptr(unsafe.Pointer(&id))); e != 0 {
		return 0, fmt.Errorf("timer_create: %w", e)
	}
	return id, nil
}

func timerSettime(id int32, value, interval time.Duration) error {
	spec := itimerspec{syscall.NsecToTimespec(int64(interval)), syscall.NsecToTimespec(int64(value))}
	if _, _, e := syscall.Syscall6(syscall.SYS_TIMER_SETTIME, uintptr(id), 0, uintptr(unsafe.Pointer(&spec)), 0, 0, 0); e != 0 {
		return fmt.Errorf("timer_settime: %w", e)
	}
	return nil
}

func timerDelete(id int32) { syscall.Syscall(syscall.SYS_TIMER_DELETE, uintptr(id), 0, 0) }
