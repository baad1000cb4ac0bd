package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"time"

	"golang.org/x/sys/unix"
)

func notifySignal(ch chan os.Signal, sig os.Signal) { signal.Notify(ch, sig) }
func stopSignal(ch chan os.Signal)                  { signal.Stop(ch) }

func waitSignal(ch chan os.Signal) error {
	select {
	case <-ch:
		return nil
	case <-time.After(2 * time.Second):
		return fmt.Errorf("not delivered in 2 s")
	}
}

func readTicks(fd int) (uint64, error) {
	var b [8]byte
	n, err := unix.Read(fd, b[:])
	if err != nil {
		return 0, err
	}
	if n != 8 {
		return 0, fmt.Errorf("read %d bytes, want 8", n)
	}
	return binary.LittleEndian.Uint64(b[:]), nil
}

// checkTimerfd: a 20 ms periodic CLOCK_MONOTONIC timerfd's blocking reads over 200 ms count 10
// expirations (a read waits for the next one); epoll and poll see it readable once it expired;
// TFD_NONBLOCK reads EAGAIN before; gettime shows the time left; an absolute CLOCK_REALTIME time
// expires when the wall clock reaches it; bad input gets Linux's errors.
func checkTimerfd() (string, error) {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_CLOEXEC)
	if err != nil {
		return "", err
	}
	defer unix.Close(fd)
	const period = 20 * time.Millisecond
	start := time.Now()
	spec := unix.ItimerSpec{Interval: unix.NsecToTimespec(int64(period)), Value: unix.NsecToTimespec(int64(period))}
	if err := unix.TimerfdSettime(fd, 0, &spec, nil); err != nil {
		return "", err
	}
	var cur unix.ItimerSpec
	if err := unix.TimerfdGettime(fd, &cur); err != nil {
		return "", err
	}
	if left := time.Duration(cur.Value.Nano()); left <= 0 || left > period || cur.Interval.Nano() != int64(period) {
		return "", fmt.Errorf("gettime right after settime: %+v", cur)
	}
	var total uint64
	reads := 0
	for time.Since(start) < 10*period-period/2 {
		n, err := readTicks(fd)
		if err != nil {
			return "", fmt.Errorf("blocking read: %v", err)
		}
		total += n
		reads++
	}
	elapsed := time.Since(start)
	want := uint64(elapsed / period)
	if total < want-1 || total > want+1 || total < 8 {
		return "", fmt.Errorf("%d expirations in %v of a %v timer (%d reads)", total, elapsed, period, reads)
	}
	detail := fmt.Sprintf("%d expirations in %d reads over %v;", total, reads, elapsed.Round(time.Millisecond))

	// epoll and poll, with TFD_NONBLOCK.
	nb, err := unix.TimerfdCreate(unix.CLOCK_BOOTTIME, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return "", err
	}
	defer unix.Close(nb)
	if _, err := readTicks(nb); !errors.Is(err, unix.EAGAIN) {
		return "", fmt.Errorf("TFD_NONBLOCK read of a disarmed timer: %v, want EAGAIN", err)
	}
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return "", err
	}
	defer unix.Close(ep)
	if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, nb, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(nb)}); err != nil {
		return "", err
	}
	spec = unix.ItimerSpec{Value: unix.NsecToTimespec(int64(30 * time.Millisecond))}
	t0 := time.Now()
	unix.TimerfdSettime(nb, 0, &spec, nil)
	var evs [2]unix.EpollEvent
	n, err := retryEINTR(func() (int, error) { return unix.EpollWait(ep, evs[:], 1000) })
	took := time.Since(t0)
	if err != nil || n != 1 || evs[0].Fd != int32(nb) || evs[0].Events != unix.EPOLLIN || took < 30*time.Millisecond || took > 500*time.Millisecond {
		return "", fmt.Errorf("epoll_wait on a 30 ms timerfd: %d %v %+v after %v", n, err, evs[0], took)
	}
	pfd := []unix.PollFd{{Fd: int32(nb), Events: unix.POLLIN | unix.POLLOUT}}
	if n, err := unix.Poll(pfd, 0); n != 1 || err != nil || pfd[0].Revents != unix.POLLIN {
		return "", fmt.Errorf("poll of an expired timerfd: %d %v %#x, want POLLIN", n, err, pfd[0].Revents)
	}
	if v, err := readTicks(nb); v != 1 || err != nil {
		return "", fmt.Errorf("read of a one-shot timerfd: %d %v", v, err)
	}
	if n, _ := unix.Poll(pfd, 0); n != 0 {
		return "", fmt.Errorf("poll after the read: %d, revents %#x", n, pfd[0].Revents)
	}
	unix.TimerfdGettime(nb, &cur)
	if cur.Value.Nano() != 0 || cur.Interval.Nano() != 0 {
		return "", fmt.Errorf("an expired one-shot timer reads %+v", cur)
	}
	detail += fmt.Sprintf(" epoll woke after %v;", took.Round(time.Millisecond))

	// An absolute CLOCK_REALTIME time.
	rt, err := unix.TimerfdCreate(unix.CLOCK_REALTIME, 0)
	if err != nil {
		return "", err
	}
	defer unix.Close(rt)
	var now unix.Timespec
	unix.ClockGettime(unix.CLOCK_REALTIME, &now)
	at := now.Nano() + int64(40*time.Millisecond)
	spec = unix.ItimerSpec{Value: unix.NsecToTimespec(at)}
	if err := unix.TimerfdSettime(rt, unix.TFD_TIMER_ABSTIME, &spec, nil); err != nil {
		return "", err
	}
	if v, err := readTicks(rt); v != 1 || err != nil {
		return "", fmt.Errorf("read of an absolute realtime timerfd: %d %v", v, err)
	}
	unix.ClockGettime(unix.CLOCK_REALTIME, &now)
	if late := time.Duration(now.Nano() - at); late < 0 || late > 500*time.Millisecond {
		return "", fmt.Errorf("the absolute realtime timerfd expired %v after its time", late)
	}

	// Errors.
	for _, c := range []struct {
		what string
		err  error
		want error
	}{
		{"CLOCK_PROCESS_CPUTIME_ID", second(unix.TimerfdCreate(unix.CLOCK_PROCESS_CPUTIME_ID, 0)), unix.EINVAL},
		{"clock 99", second(unix.TimerfdCreate(99, 0)), unix.EINVAL},
		{"flags 1", second(unix.TimerfdCreate(unix.CLOCK_MONOTONIC, 1)), unix.EINVAL},
		{"settime flags 4", unix.TimerfdSettime(fd, 4, &unix.ItimerSpec{}, nil), unix.EINVAL},
		{"settime 1e9 ns", unix.TimerfdSettime(fd, 0, &unix.ItimerSpec{Value: unix.Timespec{Nsec: 1e9}}, nil), unix.EINVAL},
		{"settime of an epoll instance", unix.TimerfdSettime(ep, 0, &unix.ItimerSpec{}, nil), unix.EINVAL},
		{"settime of a closed fd", unix.TimerfdSettime(999, 0, &unix.ItimerSpec{}, nil), unix.EBADF},
		{"gettime of a closed fd", unix.TimerfdGettime(999, &cur), unix.EBADF},
		{"4-byte read", second(unix.Read(nb, make([]byte, 4))), unix.EINVAL},
		{"write", second(unix.Write(nb, make([]byte, 8))), unix.EINVAL},
	} {
		if !errors.Is(c.err, c.want) {
			return "", fmt.Errorf("%s: %v, want %v", c.what, c.err, c.want)
		}
	}
	unix.TimerfdSettime(fd, 0, &unix.ItimerSpec{}, nil)
	return detail + " realtime absolute, errors as Linux", nil
}

func second[T any](_ T, err error) error { return err }
