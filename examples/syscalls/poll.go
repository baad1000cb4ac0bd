package main

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// checkPoll: ppoll on an empty pipe times out after its 50 ms and writes back no time left;
// with data it reports POLLIN at once; a closed descriptor is POLLNVAL, a negative one ignored;
// a file is always ready (POLLIN|POLLOUT and their NORM bits); the write end of a pipe whose
// reader closed reports POLLERR; pselect6 reports the pipe readable and writable, clears the
// bits of descriptors not ready, times out, and a closed descriptor in a set is EBADF.
func checkPoll() (string, error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return "", err
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	ts := unix.NsecToTimespec(int64(50 * time.Millisecond))
	fds := []unix.PollFd{{Fd: int32(p[0]), Events: unix.POLLIN}}
	t0 := time.Now()
	n, err := retryEINTR(func() (int, error) { return ppoll(fds, &ts, nil) })
	took := time.Since(t0)
	if n != 0 || err != nil || took < 50*time.Millisecond || took > 500*time.Millisecond || ts.Nano() != 0 {
		return "", fmt.Errorf("ppoll of an empty pipe: %d %v after %v, %v left", n, err, took, time.Duration(ts.Nano()))
	}
	detail := fmt.Sprintf("timeout after %v;", took.Round(time.Millisecond))
	unix.Write(p[1], []byte("x"))
	ts = unix.NsecToTimespec(int64(time.Second))
	fds = []unix.PollFd{{Fd: int32(p[0]), Events: unix.POLLIN}}
	if n, err := retryEINTR(func() (int, error) { return ppoll(fds, &ts, nil) }); n != 1 || err != nil || fds[0].Revents != unix.POLLIN || ts.Nano() < int64(900*time.Millisecond) {
		return "", fmt.Errorf("ppoll of a pipe with data: %d %v revents %#x, %v left of 1 s", n, err, fds[0].Revents, time.Duration(ts.Nano()))
	}
	f, err := os.CreateTemp("", "poll")
	if err != nil {
		return "", err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	fds = []unix.PollFd{
		{Fd: int32(p[0]), Events: unix.POLLIN},
		{Fd: 999, Events: unix.POLLIN},
		{Fd: -1, Events: unix.POLLIN},
		{Fd: int32(f.Fd()), Events: 0x7fff},
		{Fd: int32(p[1]), Events: unix.POLLIN},
	}
	n, err = retryEINTR(func() (int, error) { return unix.Poll(fds, -1) })
	want := []int16{unix.POLLIN, unix.POLLNVAL, 0, unix.POLLIN | unix.POLLOUT | pollRdnorm | pollWrnorm, 0}
	for i := range fds {
		if fds[i].Revents != want[i] {
			err = fmt.Errorf("pollfd %d (fd %d): revents %#x, want %#x", i, fds[i].Fd, fds[i].Revents, want[i])
		}
	}
	if n != 3 || err != nil {
		return "", fmt.Errorf("poll: %d %v", n, err)
	}

	// select's sets.
	var rs, ws, es unix.FdSet
	rs.Set(p[0])
	rs.Set(p[1])
	ws.Set(p[1])
	es.Set(p[0])
	tv := unix.Timeval{Sec: 1}
	n, err = retryEINTR(func() (int, error) { return selectCall(p[1]+1, &rs, &ws, &es, &tv) })
	if n != 2 || err != nil || !rs.IsSet(p[0]) || rs.IsSet(p[1]) || !ws.IsSet(p[1]) || es.IsSet(p[0]) {
		return "", fmt.Errorf("select: %d %v, read %v write %v except %v", n, err, rs.IsSet(p[0]), ws.IsSet(p[1]), es.IsSet(p[0]))
	}
	var buf [1]byte
	unix.Read(p[0], buf[:])
	rs.Zero()
	rs.Set(p[0])
	tv = unix.Timeval{Usec: 30000}
	t0 = time.Now()
	n, err = retryEINTR(func() (int, error) { return selectCall(p[0]+1, &rs, nil, nil, &tv) })
	took = time.Since(t0)
	if n != 0 || err != nil || rs.IsSet(p[0]) || took < 30*time.Millisecond {
		return "", fmt.Errorf("select of an empty pipe: %d %v after %v, bit %v", n, err, took, rs.IsSet(p[0]))
	}
	closed, err := unix.Open("/dev/null", unix.O_RDONLY, 0)
	if err != nil {
		return "", err
	}
	unix.Close(closed) // a descriptor below the table's size, closed (Linux ignores those beyond)
	rs.Zero()
	rs.Set(closed)
	tv = unix.Timeval{}
	if _, err := selectCall(closed+1, &rs, nil, nil, &tv); !errors.Is(err, unix.EBADF) {
		return "", fmt.Errorf("select of a closed descriptor: %v, want EBADF", err)
	}
	tv = unix.Timeval{Usec: -1}
	if _, err := selectCall(1, nil, nil, nil, &tv); !errors.Is(err, unix.EINVAL) {
		return "", fmt.Errorf("select with a negative timeout: %v, want EINVAL", err)
	}
	if _, err := selectCall(-1, nil, nil, nil, nil); !errors.Is(err, unix.EINVAL) {
		return "", fmt.Errorf("select of -1 descriptors: %v, want EINVAL", err)
	}
	bad := unix.Timespec{Nsec: -1}
	if _, err := ppoll(nil, &bad, nil); !errors.Is(err, unix.EINVAL) {
		return "", fmt.Errorf("ppoll with a negative timeout: %v, want EINVAL", err)
	}
	var mask unix.Sigset_t
	zero := unix.Timespec{}
	_, _, e := syscall.Syscall6(unix.SYS_PPOLL, 0, 0, uintptr(unsafe.Pointer(&zero)), uintptr(unsafe.Pointer(&mask)), 4, 0)
	if e != unix.EINVAL {
		return "", fmt.Errorf("ppoll with a 4-byte sigset: %v, want EINVAL", e)
	}
	// The reader gone: the write end reports POLLERR (and POLLOUT: writing fails at once).
	unix.Close(p[0])
	fds = []unix.PollFd{{Fd: int32(p[1]), Events: unix.POLLOUT}}
	if n, _ := unix.Poll(fds, 0); n != 1 || fds[0].Revents&unix.POLLERR == 0 {
		return "", fmt.Errorf("poll of a write end without a reader: %d, revents %#x", n, fds[0].Revents)
	}
	p[0], _ = unix.Open("/dev/null", unix.O_RDONLY|unix.O_CLOEXEC, 0) // for the deferred close
	return detail + " POLLIN, POLLNVAL, a file always ready, select's sets, EBADF and EINVAL", nil
}

// poll's POLLRDNORM and POLLWRNORM, which x/sys/unix names only as epoll's bits.
const (
	pollRdnorm = 0x40
	pollWrnorm = 0x100
)

// retryEINTR repeats a wait that a signal ended with EINTR, as every caller of poll, select and
// epoll_wait must: Linux restarts none of them after a handler, even with SA_RESTART, and the Go
// runtime's own signals (preemption, profiling) reach a thread that waits in one. ppoll and
// pselect6 write back the time left, so a repeat waits only for the rest.
func retryEINTR(wait func() (int, error)) (int, error) {
	for {
		n, err := wait()
		if !errors.Is(err, unix.EINTR) {
			return n, err
		}
	}
}

// selectCall is pselect6 with a struct timeval's timeout (written back as select does), on
// every architecture: arm64 has no select.
func selectCall(nfds int, r, w, e *unix.FdSet, tv *unix.Timeval) (int, error) {
	if tv == nil {
		return pselect6(nfds, r, w, e, nil, nil)
	}
	if tv.Usec < 0 || tv.Usec >= 1e6 {
		ts := unix.Timespec{Sec: tv.Sec, Nsec: -1}
		return pselect6(nfds, r, w, e, &ts, nil)
	}
	ts := unix.NsecToTimespec(tv.Nano())
	n, err := pselect6(nfds, r, w, e, &ts, nil)
	*tv = unix.NsecToTimeval(ts.Nano())
	return n, err
}

// pselect6 is the system call itself: x/sys's Pselect keeps the timeout from the kernel's
// update of the time left.
func pselect6(nfds int, r, w, e *unix.FdSet, ts *unix.Timespec, mask *unix.Sigset_t) (int, error) {
	var arg *[2]uintptr
	if mask != nil {
		arg = &[2]uintptr{uintptr(unsafe.Pointer(mask)), 8}
	}
	n, _, errno := syscall.Syscall6(unix.SYS_PSELECT6, uintptr(nfds), uintptr(unsafe.Pointer(r)), uintptr(unsafe.Pointer(w)),
		uintptr(unsafe.Pointer(e)), uintptr(unsafe.Pointer(ts)), uintptr(unsafe.Pointer(arg)))
	runtime.KeepAlive(arg)
	if errno != 0 {
		return -1, errno
	}
	return int(n), nil
}

// ppoll is the system call with a mask of the kernel's sigset_t size (x/sys's Ppoll passes 0,
// which Linux refuses with a mask).
func ppoll(fds []unix.PollFd, ts *unix.Timespec, mask *unix.Sigset_t) (int, error) {
	var p *unix.PollFd
	if len(fds) > 0 {
		p = &fds[0]
	}
	size := uintptr(0)
	if mask != nil {
		size = 8
	}
	n, _, errno := syscall.Syscall6(unix.SYS_PPOLL, uintptr(unsafe.Pointer(p)), uintptr(len(fds)), uintptr(unsafe.Pointer(ts)),
		uintptr(unsafe.Pointer(mask)), size, 0)
	if errno != 0 {
		return -1, errno
	}
	return int(n), nil
}

// checkEINTR: SIGUSR1, which the program handles, sent to a thread 100 ms into a 2 s pselect6
// ends it with EINTR, the time left written back; the same for ppoll. Then a thread that blocks
// SIGUSR2 and has one pending calls ppoll with a mask that lets it through: EINTR at once, and
// after the call the thread blocks SIGUSR2 again.
func checkEINTR() (string, error) {
	ch := make(chan os.Signal, 4)
	notifySignal(ch, syscall.SIGUSR1)
	notifySignal(ch, syscall.SIGUSR2)
	defer stopSignal(ch)
	var detail string
	for _, useSelect := range []bool{true, false} {
		tid := make(chan int)
		type result struct {
			err       error
			left, run time.Duration
		}
		done := make(chan result)
		go func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			tid <- unix.Gettid()
			ts := unix.NsecToTimespec(int64(2 * time.Second))
			start := time.Now()
			var err error
			if useSelect {
				_, err = pselect6(0, nil, nil, nil, &ts, nil)
			} else {
				_, err = ppoll(nil, &ts, nil)
			}
			done <- result{err, time.Duration(ts.Nano()), time.Since(start)}
		}()
		t := <-tid
		time.Sleep(100 * time.Millisecond)
		if err := unix.Tgkill(unix.Getpid(), t, unix.SIGUSR1); err != nil {
			return "", err
		}
		r := <-done
		if err := waitSignal(ch); err != nil {
			return "", err
		}
		name := map[bool]string{true: "pselect6", false: "ppoll"}[useSelect]
		if !errors.Is(r.err, unix.EINTR) || r.run > time.Second || r.left < time.Second || r.left > 2*time.Second {
			return "", fmt.Errorf("%s: %v after %v, %v left; want EINTR after about 100 ms", name, r.err, r.run, r.left)
		}
		detail += fmt.Sprintf("%s EINTR after %v (%v left); ", name, r.run.Round(time.Millisecond), r.left.Round(time.Millisecond))
	}

	// ppoll's mask.
	errc := make(chan error)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		var block, old unix.Sigset_t
		sigAdd(&block, unix.SIGUSR2)
		if err := unix.PthreadSigmask(unix.SIG_BLOCK, &block, &old); err != nil {
			errc <- err
			return
		}
		defer unix.PthreadSigmask(unix.SIG_SETMASK, &old, nil)
		if err := unix.Tgkill(unix.Getpid(), unix.Gettid(), unix.SIGUSR2); err != nil {
			errc <- err
			return
		}
		var pending unix.Sigset_t
		if _, _, e := syscall.RawSyscall(unix.SYS_RT_SIGPENDING, uintptr(unsafe.Pointer(&pending)), 8, 0); e != 0 {
			errc <- e
			return
		}
		if !sigHas(&pending, unix.SIGUSR2) {
			errc <- fmt.Errorf("SIGUSR2 not pending before ppoll: %#x", pending.Val[0])
			return
		}
		ts := unix.NsecToTimespec(int64(2 * time.Second))
		start := time.Now()
		var none unix.Sigset_t
		_, err := ppoll(nil, &ts, &none)
		if !errors.Is(err, unix.EINTR) || time.Since(start) > time.Second {
			errc <- fmt.Errorf("ppoll with a mask that lets a pending signal through: %v after %v, want EINTR at once", err, time.Since(start))
			return
		}
		var now unix.Sigset_t
		unix.PthreadSigmask(unix.SIG_BLOCK, nil, &now)
		if !sigHas(&now, unix.SIGUSR2) {
			errc <- fmt.Errorf("after ppoll the thread no longer blocks SIGUSR2: %#x", now.Val[0])
			return
		}
		// epoll_pwait's mask, the same way.
		ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
		if err != nil {
			errc <- err
			return
		}
		defer unix.Close(ep)
		unix.Tgkill(unix.Getpid(), unix.Gettid(), unix.SIGUSR2)
		var evs [1]unix.EpollEvent
		start = time.Now()
		_, _, e := syscall.Syscall6(unix.SYS_EPOLL_PWAIT, uintptr(ep), uintptr(unsafe.Pointer(&evs[0])), 1, 2000, uintptr(unsafe.Pointer(&none)), 8)
		if e != unix.EINTR || time.Since(start) > time.Second {
			errc <- fmt.Errorf("epoll_pwait with a mask that lets a pending signal through: %v after %v, want EINTR at once", e, time.Since(start))
			return
		}
		unix.PthreadSigmask(unix.SIG_BLOCK, nil, &now)
		if !sigHas(&now, unix.SIGUSR2) {
			errc <- fmt.Errorf("after epoll_pwait the thread no longer blocks SIGUSR2: %#x", now.Val[0])
			return
		}
		errc <- nil
	}()
	if err := <-errc; err != nil {
		return "", err
	}
	if err := waitSignal(ch); err != nil { // Go's signal delivery may merge the two
		return "", fmt.Errorf("SIGUSR2: %v", err)
	}
	return detail + "ppoll's and epoll_pwait's masks: EINTR at once, the thread's mask back after", nil
}

func sigAdd(s *unix.Sigset_t, sig syscall.Signal) { s.Val[(sig-1)/64] |= 1 << (uint(sig-1) % 64) }
func sigHas(s *unix.Sigset_t, sig syscall.Signal) bool {
	return s.Val[(sig-1)/64]&(1<<(uint(sig-1)%64)) != 0
}
