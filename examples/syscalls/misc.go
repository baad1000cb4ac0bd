package main

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// checkSysinfo: an uptime, total memory above free memory, at least one thread, mem_unit 1 and
// sane load averages (1 << 16 is a load of 1).
func checkSysinfo() (string, error) {
	var si unix.Sysinfo_t
	if err := unix.Sysinfo(&si); err != nil {
		return "", err
	}
	if si.Uptime <= 0 || si.Totalram == 0 || si.Freeram == 0 || si.Freeram > si.Totalram || si.Procs == 0 || si.Unit != 1 {
		return "", fmt.Errorf("%+v", si)
	}
	for _, l := range si.Loads {
		if l > 1000<<16 {
			return "", fmt.Errorf("load average %d", l)
		}
	}
	if _, _, e := syscall.Syscall(unix.SYS_SYSINFO, 8, 0, 0); e != unix.EFAULT {
		return "", fmt.Errorf("sysinfo to a bad address: %v, want EFAULT", e)
	}
	return fmt.Sprintf("uptime %d s, %d of %d MiB free, %d threads, loads %.2f %.2f %.2f", si.Uptime, si.Freeram>>20, si.Totalram>>20, si.Procs,
		float64(si.Loads[0])/65536, float64(si.Loads[1])/65536, float64(si.Loads[2])/65536), nil
}

// checkRlimit: RLIMIT_CORE round-trips through prlimit64, setrlimit and getrlimit; RLIMIT_STACK
// is Linux's 8 MiB; a soft limit above the hard one is EINVAL, a resource past the last EINVAL,
// another process ESRCH; the old limits come back from prlimit64.
func checkRlimit() (string, error) {
	var orig, got unix.Rlimit
	if err := unix.Prlimit(0, unix.RLIMIT_CORE, nil, &orig); err != nil {
		return "", err
	}
	set := unix.Rlimit{Cur: 4096, Max: orig.Max}
	var old unix.Rlimit
	if err := unix.Prlimit(0, unix.RLIMIT_CORE, &set, &old); err != nil || old != orig {
		return "", fmt.Errorf("prlimit64 set: %v, old %+v want %+v", err, old, orig)
	}
	if err := unix.Getrlimit(unix.RLIMIT_CORE, &got); err != nil || got != set {
		return "", fmt.Errorf("getrlimit after prlimit64: %+v %v", got, err)
	}
	if err := unix.Setrlimit(unix.RLIMIT_CORE, &orig); err != nil {
		return "", fmt.Errorf("setrlimit back: %v", err)
	}
	if err := unix.Prlimit(unix.Getpid(), unix.RLIMIT_CORE, nil, &got); err != nil || got != orig {
		return "", fmt.Errorf("prlimit64 of the pid: %+v %v", got, err)
	}
	var stack, nofile unix.Rlimit
	unix.Getrlimit(unix.RLIMIT_STACK, &stack)
	unix.Getrlimit(unix.RLIMIT_NOFILE, &nofile)
	if inGuest() && (stack.Cur != 8<<20 || stack.Max != unix.RLIM_INFINITY || nofile.Cur != 1024 || nofile.Max != 1024) {
		return "", fmt.Errorf("RLIMIT_STACK %+v, RLIMIT_NOFILE %+v: want 8 MiB and unlimited, 1024 and 1024", stack, nofile)
	}
	for _, c := range []struct {
		what string
		err  error
		want error
	}{
		{"cur > max", unix.Setrlimit(unix.RLIMIT_CORE, &unix.Rlimit{Cur: 5, Max: 4}), unix.EINVAL},
		{"resource 16", unix.Getrlimit(16, &got), unix.EINVAL},
		{"another pid", unix.Prlimit(99999, unix.RLIMIT_CORE, nil, &got), unix.ESRCH},
		{"NOFILE past the table", unix.Setrlimit(unix.RLIMIT_NOFILE, &unix.Rlimit{Cur: 1 << 30, Max: 1 << 30}), unix.EPERM},
		{"a bad address", second3(syscall.Syscall6(unix.SYS_PRLIMIT64, 0, unix.RLIMIT_CORE, 8, 0, 0, 0)), unix.EFAULT},
	} {
		if !errors.Is(c.err, c.want) {
			return "", fmt.Errorf("%s: %v, want %v", c.what, c.err, c.want)
		}
	}
	if err := checkAddressSpaceLimit(); err != nil {
		return "", err
	}
	return fmt.Sprintf("RLIMIT_CORE round trip, STACK %d/%#x, NOFILE %d/%d, errors as Linux, RLIMIT_AS enforced", stack.Cur, stack.Max, nofile.Cur, nofile.Max), nil
}

// checkAddressSpaceLimit: with RLIMIT_AS's soft limit a page, an mmap is ENOMEM, and so is the
// growth of a mapping by mremap; with the limit back, both work.
func checkAddressSpaceLimit() error {
	var orig unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_AS, &orig); err != nil {
		return err
	}
	m, err := unix.Mmap(-1, 0, os.Getpagesize(), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return err
	}
	defer unix.Munmap(m)
	runtime.GC()
	defer debug.SetGCPercent(debug.SetGCPercent(-1)) // no heap growth while the limit stands
	if err := unix.Setrlimit(unix.RLIMIT_AS, &unix.Rlimit{Cur: uint64(os.Getpagesize()), Max: orig.Max}); err != nil {
		return fmt.Errorf("setrlimit RLIMIT_AS: %v", err)
	}
	_, mmapErr := unix.Mmap(-1, 0, 2*os.Getpagesize(), unix.PROT_NONE, unix.MAP_ANON|unix.MAP_PRIVATE)
	_, _, remapErr := syscall.Syscall6(unix.SYS_MREMAP, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(4*len(m)), unix.MREMAP_MAYMOVE, 0, 0)
	if err := unix.Setrlimit(unix.RLIMIT_AS, &orig); err != nil {
		return fmt.Errorf("setrlimit RLIMIT_AS back: %v", err)
	}
	if !errors.Is(mmapErr, unix.ENOMEM) || remapErr != unix.ENOMEM {
		return fmt.Errorf("under a one-page RLIMIT_AS: mmap %v, mremap growth %v; want ENOMEM and ENOMEM", mmapErr, remapErr)
	}
	b, err := unix.Mmap(-1, 0, 2*os.Getpagesize(), unix.PROT_NONE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return fmt.Errorf("mmap with RLIMIT_AS back: %v", err)
	}
	return unix.Munmap(b)
}

// second3 turns a raw system call's results into its error.
func second3(_, _ uintptr, e syscall.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}

// checkMincore: in a fresh mapping of 8 pages, the pages touched are resident; a PROT_NONE
// mapping's pages are not; an unaligned address is EINVAL; a range with a hole is ENOMEM, and
// so is one past user space; a bad vector EFAULT.
func checkMincore() (string, error) {
	const page = 4096
	m, err := unix.Mmap(-1, 0, 8*page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return "", err
	}
	defer unix.Munmap(m)
	m[page] = 1
	m[5*page] = 1
	vec := make([]byte, 8)
	if err := mincore(uintptr(unsafe.Pointer(&m[0])), 8*page, vec); err != nil {
		return "", err
	}
	if vec[1]&1 == 0 || vec[5]&1 == 0 {
		return "", fmt.Errorf("touched pages not resident: %v", vec)
	}
	none, err := unix.Mmap(-1, 0, 4*page, unix.PROT_NONE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return "", err
	}
	defer unix.Munmap(none)
	nv := make([]byte, 4)
	if err := mincore(uintptr(unsafe.Pointer(&none[0])), 4*page, nv); err != nil || nv[0]|nv[1]|nv[2]|nv[3] != 0 {
		return "", fmt.Errorf("a PROT_NONE mapping: %v %v", nv, err)
	}
	base := uintptr(unsafe.Pointer(&m[0]))
	// A hole: a fixed mapping's middle unmapped.
	hole, err := unix.Mmap(-1, 0, 3*page, unix.PROT_READ, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return "", err
	}
	hbase := uintptr(unsafe.Pointer(&hole[0]))
	if _, _, e := syscall.Syscall(syscall.SYS_MUNMAP, hbase+page, page, 0); e != 0 {
		return "", e
	}
	defer syscall.Syscall(syscall.SYS_MUNMAP, hbase, 3*page, 0)
	for _, c := range []struct {
		what       string
		addr, size uintptr
		vec        []byte
		want       error
	}{
		{"an unaligned address", base + 1, page, vec, unix.EINVAL},
		{"a hole", hbase, 3 * page, vec, unix.ENOMEM},
		{"past user space", 1 << 47, page, vec, unix.ENOMEM},
		{"a length past the top", base, ^uintptr(0) - page, vec, unix.ENOMEM},
		{"no length", base, 0, vec, nil},
		{"a NULL vector", base, page, nil, unix.EFAULT},
	} {
		if err := mincore(c.addr, c.size, c.vec); !errors.Is(err, c.want) && !(c.want == nil && err == nil) {
			return "", fmt.Errorf("%s: %v, want %v", c.what, err, c.want)
		}
	}
	return fmt.Sprintf("resident %v, PROT_NONE %v, errors as Linux", vec, nv), nil
}

func mincore(addr, length uintptr, vec []byte) error {
	var v unsafe.Pointer
	if vec != nil {
		v = unsafe.Pointer(&vec[0])
	}
	_, _, e := syscall.Syscall(syscall.SYS_MINCORE, addr, length, uintptr(v))
	if e != 0 {
		return e
	}
	return nil
}

// checkSigpending: a thread that blocks SIGUSR1 and sends it to itself sees it in rt_sigpending
// (and only a blocked one: SIGUSR2, unblocked, is not there); once unblocked it is delivered.
// A sigset size above 8 is EINVAL.
func checkSigpending() (string, error) {
	ch := make(chan os.Signal, 1)
	notifySignal(ch, syscall.SIGUSR1)
	defer stopSignal(ch)
	errc := make(chan error)
	var seen uint64
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		var block, old unix.Sigset_t
		sigAdd(&block, unix.SIGUSR1)
		if err := unix.PthreadSigmask(unix.SIG_BLOCK, &block, &old); err != nil {
			errc <- err
			return
		}
		unix.Tgkill(unix.Getpid(), unix.Gettid(), unix.SIGUSR1)
		var pending unix.Sigset_t
		_, _, e := syscall.RawSyscall(unix.SYS_RT_SIGPENDING, uintptr(unsafe.Pointer(&pending)), 8, 0)
		seen = pending.Val[0]
		_, _, e2 := syscall.RawSyscall(unix.SYS_RT_SIGPENDING, uintptr(unsafe.Pointer(&pending)), 16, 0)
		unix.PthreadSigmask(unix.SIG_SETMASK, &old, nil)
		switch {
		case e != 0:
			errc <- e
		case !sigHas(&unix.Sigset_t{Val: [16]uint64{seen}}, unix.SIGUSR1):
			errc <- fmt.Errorf("SIGUSR1 not pending: %#x", seen)
		case e2 != unix.EINVAL:
			errc <- fmt.Errorf("a 16-byte sigset: %v, want EINVAL", e2)
		default:
			errc <- nil
		}
	}()
	if err := <-errc; err != nil {
		return "", err
	}
	if err := waitSignal(ch); err != nil {
		return "", fmt.Errorf("SIGUSR1 after the unblock: %v", err)
	}
	return fmt.Sprintf("pending %#x, delivered once unblocked", seen), nil
}

// checkClock: gettimeofday as a system call (not the vDSO) and time (amd64) agree with
// time.Now; the timezone is zero.
func checkClock() (string, error) {
	var tv unix.Timeval
	tz := [2]int32{7, 7}
	before := time.Now()
	if _, _, e := syscall.Syscall(unix.SYS_GETTIMEOFDAY, uintptr(unsafe.Pointer(&tv)), uintptr(unsafe.Pointer(&tz)), 0); e != 0 {
		return "", e
	}
	after := time.Now()
	got := time.Unix(tv.Sec, tv.Usec*1000)
	if got.Before(before.Truncate(time.Microsecond)) || got.After(after) || tz != [2]int32{} {
		return "", fmt.Errorf("gettimeofday %v (tz %v) outside [%v, %v]", got, tz, before, after)
	}
	if _, _, e := syscall.Syscall(unix.SYS_GETTIMEOFDAY, 8, 0, 0); e != unix.EFAULT {
		return "", fmt.Errorf("gettimeofday to a bad address: %v, want EFAULT", e)
	}
	detail := fmt.Sprintf("gettimeofday %v after time.Now", got.Sub(before))
	if sec, ok := rawTime(); ok {
		if now := time.Now().Unix(); sec < now-1 || sec > now {
			return "", fmt.Errorf("time %d, time.Now %d", sec, now)
		}
		detail += fmt.Sprintf(", time %d", sec)
	}
	return detail, nil
}

// checkRandom: /dev/urandom's RNDGETENTCNT is the full pool, 256 bits, as Linux since 5.18
// says once it is seeded; an unknown request on it is EINVAL, and RNDGETENTCNT on a pipe ENOTTY.
func checkRandom() (string, error) {
	f, err := os.Open("/dev/urandom")
	if err != nil {
		return "", err
	}
	defer f.Close()
	bits, err := unix.IoctlGetInt(int(f.Fd()), unix.RNDGETENTCNT)
	if err != nil || bits != 256 {
		return "", fmt.Errorf("RNDGETENTCNT: %d, %v; want 256", bits, err)
	}
	if _, err := unix.IoctlGetInt(int(f.Fd()), unix.TIOCGPGRP); !errors.Is(err, unix.EINVAL) {
		return "", fmt.Errorf("TIOCGPGRP on /dev/urandom: %v, want EINVAL", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return "", err
	}
	defer r.Close()
	defer w.Close()
	if _, err := unix.IoctlGetInt(int(r.Fd()), unix.RNDGETENTCNT); !errors.Is(err, unix.ENOTTY) {
		return "", fmt.Errorf("RNDGETENTCNT on a pipe: %v, want ENOTTY", err)
	}
	return fmt.Sprintf("RNDGETENTCNT %d, others EINVAL, a pipe ENOTTY", bits), nil
}
