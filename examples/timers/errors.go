package main

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
	"unsafe"
)

// checkErrors makes the calls with bad input and compares the errors with Linux's.
func checkErrors() (string, error) {
	var ts syscall.Timespec
	var id int32
	var ru syscall.Rusage
	bad := uintptr(8) // in the unmapped first page
	good := uintptr(unsafe.Pointer(&ts))
	it := itimerval{Value: syscall.Timeval{Usec: 1_000_000}}
	cases := []struct {
		name string
		nr   uintptr
		args [3]uintptr
		want syscall.Errno
	}{
		{"clock_gettime(100)", syscall.SYS_CLOCK_GETTIME, [3]uintptr{100, good}, syscall.EINVAL},
		{"clock_gettime(fd clock)", syscall.SYS_CLOCK_GETTIME, [3]uintptr{uintptr(fdClock), good}, syscall.EINVAL},
		{"clock_gettime(no such tid)", syscall.SYS_CLOCK_GETTIME, [3]uintptr{uintptr(threadCPUClock(99999)), good}, syscall.EINVAL},
		{"clock_gettime(bad pointer)", syscall.SYS_CLOCK_GETTIME, [3]uintptr{clockMonotonic, bad}, syscall.EFAULT},
		{"clock_getres(100)", syscall.SYS_CLOCK_GETRES, [3]uintptr{100, good}, syscall.EINVAL},
		{"timer_create(100)", syscall.SYS_TIMER_CREATE, [3]uintptr{100, 0, uintptr(unsafe.Pointer(&id))}, syscall.EINVAL},
		{"timer_create(MONOTONIC_RAW)", syscall.SYS_TIMER_CREATE, [3]uintptr{clockMonotonicRaw, 0, uintptr(unsafe.Pointer(&id))}, syscall.EOPNOTSUPP},
		{"timer_create(bad sigevent)", syscall.SYS_TIMER_CREATE, [3]uintptr{clockMonotonic, bad, uintptr(unsafe.Pointer(&id))}, syscall.EFAULT},
		{"timer_create(signal 65)", syscall.SYS_TIMER_CREATE, [3]uintptr{clockMonotonic, uintptr(unsafe.Pointer(&sigevent{signo: 65})), uintptr(unsafe.Pointer(&id))}, syscall.EINVAL},
		{"timer_create(notify 7)", syscall.SYS_TIMER_CREATE, [3]uintptr{clockMonotonic, uintptr(unsafe.Pointer(&sigevent{signo: 10, notify: 7})), uintptr(unsafe.Pointer(&id))}, syscall.EINVAL},
		{"timer_create(no such thread)", syscall.SYS_TIMER_CREATE, [3]uintptr{clockMonotonic, uintptr(unsafe.Pointer(&sigevent{signo: 10, notify: sigevThreadID, tid: 99999})), uintptr(unsafe.Pointer(&id))}, syscall.EINVAL},
		{"timer_settime(12345)", syscall.SYS_TIMER_SETTIME, [3]uintptr{12345, 0, good}, syscall.EINVAL},
		{"timer_gettime(12345)", syscall.SYS_TIMER_GETTIME, [3]uintptr{12345, good}, syscall.EINVAL},
		{"timer_getoverrun(-1)", syscall.SYS_TIMER_GETOVERRUN, [3]uintptr{^uintptr(0)}, syscall.EINVAL},
		{"timer_delete(12345)", syscall.SYS_TIMER_DELETE, [3]uintptr{12345}, syscall.EINVAL},
		{"setitimer(3)", syscall.SYS_SETITIMER, [3]uintptr{3, uintptr(unsafe.Pointer(&it))}, syscall.EINVAL},
		{"setitimer(usec 1000000)", syscall.SYS_SETITIMER, [3]uintptr{0, uintptr(unsafe.Pointer(&it))}, syscall.EINVAL},
		{"setitimer(bad pointer)", syscall.SYS_SETITIMER, [3]uintptr{0, bad}, syscall.EFAULT},
		{"getitimer(3)", syscall.SYS_GETITIMER, [3]uintptr{3, good}, syscall.EINVAL},
		{"getrusage(5)", syscall.SYS_GETRUSAGE, [3]uintptr{5, uintptr(unsafe.Pointer(&ru))}, syscall.EINVAL},
		{"getrusage(bad pointer)", syscall.SYS_GETRUSAGE, [3]uintptr{0, bad}, syscall.EFAULT},
		{"tgkill(signal 65)", syscall.SYS_TGKILL, [3]uintptr{uintptr(syscall.Getpid()), uintptr(syscall.Gettid()), 65}, syscall.EINVAL},
	}
	var wrong []string
	for _, c := range cases {
		_, _, e := syscall.Syscall(c.nr, c.args[0], c.args[1], c.args[2])
		if e != c.want {
			wrong = append(wrong, fmt.Sprintf("%s = %v, want %v", c.name, e, c.want))
		}
	}
	// Timers up to the limit, then EAGAIN.
	var ids []int32
	var limitErr error
	for len(ids) < 1<<16 {
		id, err := timerCreate(clockMonotonic, &sigevent{signo: int32(syscall.SIGUSR2)})
		if err != nil {
			limitErr = err
			break
		}
		ids = append(ids, id)
	}
	for _, id := range ids {
		timerDelete(id)
	}
	if limitErr != nil && !errors.Is(limitErr, syscall.EAGAIN) {
		wrong = append(wrong, fmt.Sprintf("timer #%d: %v, want EAGAIN", len(ids)+1, limitErr))
	}
	if len(wrong) > 0 {
		return "", errors.New(strings.Join(wrong, "; "))
	}
	return fmt.Sprintf("%d bad calls refused as Linux does; timers limited at %d (%v)", len(cases), len(ids), limitErr), nil
}

// fdClock is a clock id of the kind that names a clock behind descriptor 3 (CPUCLOCK_WHICH 3).
var fdClock = (^3)<<3 | 3
