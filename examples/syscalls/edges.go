package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// checkEdges: answers the system-call fuzzer's comparison found different from Linux's, each
// checked against what Linux gives: getrandom's flags and a buffer that runs into an unmapped
// page (what fits), getdents64 likewise (the records that fit, EFAULT when none, EINVAL when
// the first is larger than the count, 0 at the end whatever the buffer), futex's
// FUTEX_CLOCK_REALTIME and bitset checks and its order (timeout, then operation, then word),
// madvise and mmap's order of checks, flock's LOCK_MAND, access's mode before its path, the
// sched_* calls' negative pid, wait4's and waitid's options, and the order in which unlinkat,
// mknodat, symlinkat, linkat, fchmodat2, renameat2, utimensat, lseek, pwrite64, preadv, pipe2, sync_file_range, epoll_pwait(2),
// mprotect, shutdown, sigaltstack, timer_create, timer_settime, rt_sigaction, rt_sigprocmask, setitimer, tgkill, tkill, kill, connect (of a socket pair) and getsockopt check
// their arguments.
func checkEdges() (string, error) {
	const page = 4096
	m, err := unix.Mmap(-1, 0, 2*page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return "", err
	}
	defer unix.Munmap(m)
	base := uintptr(unsafe.Pointer(&m[0]))
	if err := unix.Mprotect(m[page:], unix.PROT_NONE); err != nil {
		return "", err
	}
	end := base + page // the first byte of the PROT_NONE page

	dir, err := os.MkdirTemp("", "edges")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	for _, n := range []string{"a", "b", "c"} { // every record 24 bytes: "." ".." "a" "b" "c"
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			return "", err
		}
	}
	dfd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", err
	}
	defer unix.Close(dfd)
	getdents := func(p, n uintptr) (uintptr, error) {
		unix.Seek(dfd, 0, 0)
		return sys(unix.SYS_GETDENTS64, uintptr(dfd), p, n)
	}

	var pp [2]int
	if err := unix.Pipe2(pp[:], unix.O_CLOEXEC); err != nil {
		return "", err
	}
	pr := pp[0]
	defer unix.Close(pp[0])
	defer unix.Close(pp[1])
	efd, err := unix.Eventfd(0, unix.EFD_CLOEXEC)
	if err != nil {
		return "", err
	}
	defer unix.Close(efd)
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return "", err
	}
	defer unix.Close(epfd)

	sp, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return "", err
	}
	defer unix.Close(sp[0])
	defer unix.Close(sp[1])

	word := new(uint32)
	w := uintptr(unsafe.Pointer(word))
	ts := new([2]int64)
	tsp := uintptr(unsafe.Pointer(ts))
	var mask [8]byte
	mask[0] = 1
	maskp := uintptr(unsafe.Pointer(&mask[0]))
	kernel := uintptr(0xffff_8000_0000_0000)
	if runtime.GOARCH == "arm64" {
		kernel = 0xffff_0000_0000_0000
	}
	hole, err := unix.Mmap(-1, 0, 3*page, unix.PROT_READ, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return "", err
	}
	hbase := uintptr(unsafe.Pointer(&hole[0]))
	syscall.Syscall(syscall.SYS_MUNMAP, hbase+page, page, 0)
	defer syscall.Syscall(syscall.SYS_MUNMAP, hbase, 3*page, 0)

	file, err := unix.Open(filepath.Join(dir, "a"), unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", err
	}
	defer unix.Close(file)

	var sched struct{ prio int32 }
	schedp := uintptr(unsafe.Pointer(&sched))
	cases := []edgeCase{
		{"getrandom flag 8", func() (uintptr, error) { return sys(unix.SYS_GETRANDOM, base, 16, 8) }, result{0, unix.EINVAL}},
		{"getrandom RANDOM|INSECURE", func() (uintptr, error) { return sys(unix.SYS_GETRANDOM, base, 16, 6) }, result{0, unix.EINVAL}},
		{"getrandom into an unmapped page", func() (uintptr, error) { return sys(unix.SYS_GETRANDOM, end-96, 200, 0) }, result{96, nil}},
		{"getrandom all unmapped", func() (uintptr, error) { return sys(unix.SYS_GETRANDOM, end, 200, 0) }, result{0, unix.EFAULT}},
		{"getdents64 two records fit", func() (uintptr, error) { return getdents(end-50, 4096) }, result{48, nil}},
		{"getdents64 none fits", func() (uintptr, error) { return getdents(end-20, 4096) }, result{0, unix.EFAULT}},
		{"getdents64 count too small", func() (uintptr, error) { return getdents(end-20, 20) }, result{0, unix.EINVAL}},
		{"getdents64 at the end, NULL", func() (uintptr, error) {
			buf := make([]byte, 4096)
			unix.Seek(dfd, 0, 0)
			for {
				n, err := unix.Getdents(dfd, buf)
				if n <= 0 || err != nil {
					break
				}
			}
			return sys(unix.SYS_GETDENTS64, uintptr(dfd), 0, 4096)
		}, result{0, nil}},
		{"futex WAKE|CLOCK_REALTIME", func() (uintptr, error) { return sys6(unix.SYS_FUTEX, w, 1|256, 1, 0, 0, 0) }, result{0, unix.ENOSYS}},
		{"futex WAIT|CLOCK_REALTIME", func() (uintptr, error) { return sys6(unix.SYS_FUTEX, w, 0|256, 5, 0, 0, 0) }, result{0, unix.ENOSYS}},
		{"futex WAKE_BITSET, no bits", func() (uintptr, error) { return sys6(unix.SYS_FUTEX, w, 10, 1, 0, 0, 0) }, result{0, unix.EINVAL}},
		{"futex WAIT, bad timeout first", func() (uintptr, error) { return sys6(unix.SYS_FUTEX, w, 0, 5, end, 0, 0) }, result{0, unix.EFAULT}},
		{"futex WAIT, misaligned kernel word", func() (uintptr, error) { return sys6(unix.SYS_FUTEX, kernel+2, 0, 5, 0, 0, 0) }, result{0, unix.EINVAL}},
		{"futex WAKE, kernel word", func() (uintptr, error) { return sys6(unix.SYS_FUTEX, kernel, 1|128, 1, 0, 0, 0) }, result{0, unix.EFAULT}},
		{"futex WAIT, bad time", func() (uintptr, error) { ts[1] = 1e9; return sys6(unix.SYS_FUTEX, w, 0, 5, tsp, 0, 0) }, result{0, unix.EINVAL}},
		{"madvise the kernel half", func() (uintptr, error) { return sys(unix.SYS_MADVISE, kernel, page, unix.MADV_NORMAL) }, result{0, unix.ENOMEM}},
		{"madvise over a hole", func() (uintptr, error) { return sys(unix.SYS_MADVISE, hbase, 3*page, unix.MADV_DONTNEED) }, result{0, unix.ENOMEM}},
		{"madvise, bad advice over a hole", func() (uintptr, error) { return sys(unix.SYS_MADVISE, hbase, 3*page, 12345) }, result{0, unix.EINVAL}},
		{"mmap unknown prot bits", func() (uintptr, error) {
			r, err := sys6(unix.SYS_MMAP, 0, page, unix.PROT_READ|0x10, unix.MAP_PRIVATE|unix.MAP_ANON, ^uintptr(0), 0)
			if err == nil {
				syscall.Syscall(syscall.SYS_MUNMAP, r, page, 0)
				r = 1
			}
			return r, err
		}, result{1, nil}},
		{"mmap MAP_SHARED_VALIDATE anonymous", func() (uintptr, error) {
			return sys6(unix.SYS_MMAP, 0, 1, unix.PROT_READ, unix.MAP_SHARED_VALIDATE|unix.MAP_ANON|unix.MAP_POPULATE, ^uintptr(0), ^uintptr(4095))
		}, result{0, unix.EINVAL}},
		{"mmap unaligned offset", func() (uintptr, error) {
			return sys6(unix.SYS_MMAP, 0, page, unix.PROT_READ, unix.MAP_PRIVATE|unix.MAP_ANON, ^uintptr(0), 1)
		}, result{0, unix.EINVAL}},
		{"mmap a length that rounds past the top", func() (uintptr, error) {
			return sys6(unix.SYS_MMAP, 0, ^uintptr(0)-10, unix.PROT_READ, unix.MAP_ANON, ^uintptr(0), 0) // no type: checked after the length
		}, result{0, unix.ENOMEM}},
		{"flock LOCK_MAND on no descriptor", func() (uintptr, error) { return sys(unix.SYS_FLOCK, 1<<20, 32|unix.LOCK_SH, 0) }, result{0, nil}},
		{"flock a bad operation before the descriptor", func() (uintptr, error) { return sys(unix.SYS_FLOCK, 1<<20, 3, 0) }, result{0, unix.EINVAL}},
		{"faccessat bad mode before the path", func() (uintptr, error) { return sys(unix.SYS_FACCESSAT, uintptr(0xffffff9c), end-3, 0x80) }, result{0, unix.EINVAL}},
		{"sched_setaffinity, 7 bytes", func() (uintptr, error) { return sys(unix.SYS_SCHED_SETAFFINITY, 0, 7, maskp) }, result{0, nil}},
		{"sched_getparam pid -1", func() (uintptr, error) { return sys(unix.SYS_SCHED_GETPARAM, ^uintptr(0), schedp, 0) }, result{0, unix.EINVAL}},
		{"sched_getscheduler pid -1", func() (uintptr, error) { return sys(unix.SYS_SCHED_GETSCHEDULER, ^uintptr(0), 0, 0) }, result{0, unix.EINVAL}},
		{"sched_setscheduler no param", func() (uintptr, error) { return sys(unix.SYS_SCHED_SETSCHEDULER, 0, 0, 0) }, result{0, unix.EINVAL}},
		{"wait4 unknown option", func() (uintptr, error) { return sys6(unix.SYS_WAIT4, ^uintptr(0), 0, 0x100000, 0, 0, 0) }, result{0, unix.EINVAL}},
		{"wait4 no child", func() (uintptr, error) { return sys6(unix.SYS_WAIT4, ^uintptr(0), 0, unix.WNOHANG, 0, 0, 0) }, result{0, unix.ECHILD}},
		{"waitid no event asked for", func() (uintptr, error) { return sys6(unix.SYS_WAITID, unix.P_ALL, 0, 0, 0, 0, 0) }, result{0, unix.EINVAL}},
		{"waitid P_PID 0", func() (uintptr, error) { return sys6(unix.SYS_WAITID, unix.P_PID, 0, 0, unix.WEXITED, 0, 0) }, result{0, unix.EINVAL}},
		{"waitid no child", func() (uintptr, error) {
			return sys6(unix.SYS_WAITID, unix.P_ALL, 0, 0, unix.WEXITED|unix.WNOHANG, 0, 0)
		}, result{0, unix.ECHILD}},
		{"unlinkat bad flags before the path", func() (uintptr, error) { return sys(unix.SYS_UNLINKAT, 1<<20, end-3, 0x8000000) }, result{0, unix.EINVAL}},
		{"renameat2 EXCHANGE|NOREPLACE before the paths", func() (uintptr, error) {
			return sys6(unix.SYS_RENAMEAT2, 1<<20, end-3, 1<<20, end-3, 3, 0)
		}, result{0, unix.EINVAL}},
		{"utimensat bad flags before the path", func() (uintptr, error) {
			return sys6(unix.SYS_UTIMENSAT, uintptr(0xffffff9c), end-3, 0, 0x300, 0, 0)
		}, result{0, unix.EINVAL}},
		{"lseek bad whence on a pipe", func() (uintptr, error) { return sys(unix.SYS_LSEEK, uintptr(pr), 0, 99) }, result{0, unix.EINVAL}},
		{"lseek SEEK_DATA on an eventfd", func() (uintptr, error) { return sys(unix.SYS_LSEEK, uintptr(efd), 5, 3) }, result{0, nil}},
		{"pwrite64 negative offset, bad descriptor", func() (uintptr, error) { return sys6(unix.SYS_PWRITE64, 1<<20, base, 1, ^uintptr(0), 0, 0) }, result{0, unix.EINVAL}},
		{"preadv on a pipe, bad iovec", func() (uintptr, error) { return sys6(unix.SYS_PREADV, uintptr(pr), end, 1, 0, 0, 0) }, result{0, unix.ESPIPE}},
		{"pipe2 bad flags, NULL", func() (uintptr, error) { return sys(unix.SYS_PIPE2, 0, 0x3fe7d845, 0) }, result{0, unix.EINVAL}},
		{"sync_file_range bad descriptor first", func() (uintptr, error) { return sys6(unix.SYS_SYNC_FILE_RANGE, 1<<20, 0, ^uintptr(0), 5, 0, 0) }, result{0, unix.EBADF}},
		{"epoll_pwait maxevents too large", func() (uintptr, error) { return sys6(unix.SYS_EPOLL_PWAIT, uintptr(epfd), base, 0x40000000, 0, 0, 0) }, result{0, unix.EINVAL}},
		{"epoll_pwait bad descriptor, unmapped events", func() (uintptr, error) { return sys6(unix.SYS_EPOLL_PWAIT, 1<<20, end, 1, 0, 0, 0) }, result{0, unix.EBADF}},
		{"epoll_pwait2 bad timeout before the mask", func() (uintptr, error) {
			return sys6(unix.SYS_EPOLL_PWAIT2, uintptr(epfd), base, 1, end, end, 0)
		}, result{0, unix.EFAULT}},
		{"mprotect a wrapping length before prot", func() (uintptr, error) { return sys(unix.SYS_MPROTECT, base, ^uintptr(4095), 0x7e4477be) }, result{0, unix.ENOMEM}},
		{"mprotect PROT_SEM", func() (uintptr, error) { return sys(unix.SYS_MPROTECT, base, page, unix.PROT_READ|unix.PROT_WRITE|8) }, result{0, nil}},
		{"shutdown bad descriptor before how", func() (uintptr, error) { return sys(unix.SYS_SHUTDOWN, 0x7fffffff, 3, 0) }, result{0, unix.EBADF}},
		{"sigaltstack checks the new stack before writing the old", func() (uintptr, error) {
			ss := [3]uint64{0, 0x1234, 0} // unknown flags
			return sys(unix.SYS_SIGALTSTACK, uintptr(unsafe.Pointer(&ss)), end, 0)
		}, result{0, unix.EINVAL}},
		{"timer_create reads the event first", func() (uintptr, error) { return sys(unix.SYS_TIMER_CREATE, 0xffffffff, end, base) }, result{0, unix.EFAULT}},
		{"timer_settime reads the value first", func() (uintptr, error) { return sys6(unix.SYS_TIMER_SETTIME, 0x100000, 2, end-2, base, 0, 0) }, result{0, unix.EFAULT}},
		{"eventfd write of 16 bytes", func() (uintptr, error) { return sys(unix.SYS_WRITE, uintptr(efd), base, 16) }, result{0, unix.EINVAL}},
		{"eventfd write of 8 bytes", func() (uintptr, error) { m[0] = 1; return sys(unix.SYS_WRITE, uintptr(efd), base, 8) }, result{8, nil}},
		{"rt_sigaction SIGKILL before the old action's pointer", func() (uintptr, error) {
			return sys6(unix.SYS_RT_SIGACTION, uintptr(unix.SIGKILL), base, end, 8, 0, 0)
		}, result{0, unix.EINVAL}},
		{"rt_sigaction reads the new action before the signal", func() (uintptr, error) {
			return sys6(unix.SYS_RT_SIGACTION, 9999, end, 0, 8, 0, 0)
		}, result{0, unix.EFAULT}},
		{"rt_sigprocmask a bad how before the old set's pointer", func() (uintptr, error) {
			return sys6(unix.SYS_RT_SIGPROCMASK, 7, base, end, 8, 0, 0)
		}, result{0, unix.EINVAL}},
		{"setitimer reads the value before which", func() (uintptr, error) { return sys(unix.SYS_SETITIMER, 99, end-8, 0) }, result{0, unix.EFAULT}},
		{"mknodat an unknown type before the path", func() (uintptr, error) { return sys6(unix.SYS_MKNODAT, 1<<20, end-3, 0o170644, 0, 0, 0) }, result{0, unix.EINVAL}},
		{"mknodat a directory before the path", func() (uintptr, error) { return sys6(unix.SYS_MKNODAT, 1<<20, end-3, unix.S_IFDIR|0o644, 0, 0, 0) }, result{0, unix.EPERM}},
		{"waitid writes infop even on error", func() (uintptr, error) { return sys6(unix.SYS_WAITID, 2, 0, end, 0x800, 0, 0) }, result{0, unix.EFAULT}},
		{"madvise MADV_COLD", func() (uintptr, error) { return sys(unix.SYS_MADVISE, base, page, 20) }, result{0, nil}},
		{"madvise MADV_REMOVE in the kernel half", func() (uintptr, error) { return sys(unix.SYS_MADVISE, kernel, 4*page, 9) }, result{0, unix.ENOMEM}},
		{"madvise MADV_REMOVE of private memory", func() (uintptr, error) { return sys(unix.SYS_MADVISE, base, page, 9) }, result{0, unix.EINVAL}},
		{"sched_getaffinity the size before the thread", func() (uintptr, error) { return sys(unix.SYS_SCHED_GETAFFINITY, ^uintptr(0), 0, base) }, result{0, unix.EINVAL}},
		{"symlinkat an empty target before the directory", func() (uintptr, error) {
			empty := []byte{0}
			return sys(unix.SYS_SYMLINKAT, uintptr(unsafe.Pointer(&empty[0])), 1<<20, end-3)
		}, result{0, unix.ENOENT}},
		{"tgkill no such thread before the signal", func() (uintptr, error) { return sys(unix.SYS_TGKILL, 99999999, 0x7fffffff, 1000) }, result{0, unix.ESRCH}},
		{"tgkill tgid 0", func() (uintptr, error) { return sys(unix.SYS_TGKILL, 0, uintptr(unix.Gettid()), 0) }, result{0, unix.EINVAL}},
		{"tkill no such thread before the signal", func() (uintptr, error) { return sys(unix.SYS_TKILL, 0x7fffffff, 1000, 0) }, result{0, unix.ESRCH}},
		{"kill no such process before the signal", func() (uintptr, error) { return sys(unix.SYS_KILL, 99999999, 1000, 0) }, result{0, unix.ESRCH}},
		{"kill a bad signal", func() (uintptr, error) { return sys(unix.SYS_KILL, uintptr(os.Getpid()), 1000, 0) }, result{0, unix.EINVAL}},
		{"linkat bad flags before the paths", func() (uintptr, error) { return sys6(unix.SYS_LINKAT, 1<<20, end-3, 1<<20, end-3, 0x20, 0) }, result{0, unix.EINVAL}},
		{"fchmodat2 bad flags before the path", func() (uintptr, error) {
			return sys6(452, uintptr(0xffffff9c), kernel, 0o644, 0x4900, 0, 0) // fchmodat2
		}, result{0, unix.EINVAL}},
		{"connect a socket pair to an AF_INET address", func() (uintptr, error) {
			sa := [16]byte{unix.AF_INET}
			return sys(unix.SYS_CONNECT, uintptr(sp[0]), uintptr(unsafe.Pointer(&sa)), 16)
		}, result{0, unix.EINVAL}},
		{"getsockopt SOL_IP on a socket pair, bad length", func() (uintptr, error) {
			return sys6(unix.SYS_GETSOCKOPT, uintptr(sp[0]), 0, 0x38, base, kernel, 0)
		}, result{0, unix.EOPNOTSUPP}},
		{"getsockopt bad descriptor, bad length", func() (uintptr, error) {
			return sys6(unix.SYS_GETSOCKOPT, 1<<20, 1, 1, base, kernel, 0)
		}, result{0, unix.EBADF}},
		{"munmap below the lowest mapping", func() (uintptr, error) { return sys(unix.SYS_MUNMAP, 0, 3*page, 0) }, result{0, nil}},
		{"ppoll reads the timeout before nfds", func() (uintptr, error) { return sys6(unix.SYS_PPOLL, base, 1<<20, end, 0, 8, 0) }, result{0, unix.EFAULT}},
		{"truncate a negative length before the path", func() (uintptr, error) { return sys(unix.SYS_TRUNCATE, end, ^uintptr(0), 0) }, result{0, unix.EINVAL}},
		{"pread64 past the end into the kernel half", func() (uintptr, error) { return sys6(unix.SYS_PREAD64, uintptr(file), kernel, 16, 1<<20, 0, 0) }, result{0, unix.EFAULT}},
		{"pwrite64 from a buffer that runs into a hole", func() (uintptr, error) { return sys6(unix.SYS_PWRITE64, uintptr(file), end-16, 64, 0, 0, 0) }, result{16, nil}},
		{"pread64 into a buffer that runs into a hole", func() (uintptr, error) { return sys6(unix.SYS_PREAD64, uintptr(file), end-8, 64, 0, 0, 0) }, result{8, nil}},
		{"sched_setscheduler SCHED_DEADLINE, an unaligned param", func() (uintptr, error) { return sys(unix.SYS_SCHED_SETSCHEDULER, 0, 6, base+1) }, result{0, unix.EINVAL}},
		{"timer_create a CPU clock stores the id first", func() (uintptr, error) { return sys(unix.SYS_TIMER_CREATE, 0xffffffff, 0, kernel) }, result{0, unix.EFAULT}},
		{"clock_nanosleep a coarse clock", func() (uintptr, error) {
			return sys6(unix.SYS_CLOCK_NANOSLEEP, unix.CLOCK_REALTIME_COARSE, 0, tsp, 0, 0, 0)
		}, result{0, unix.EOPNOTSUPP}},
		{"clock_nanosleep a CPU clock reads the time first", func() (uintptr, error) {
			return sys6(unix.SYS_CLOCK_NANOSLEEP, unix.CLOCK_PROCESS_CPUTIME_ID, 1, end-8, 0, 0, 0)
		}, result{0, unix.EFAULT}},
		{"socketpair AF_INET of no type", func() (uintptr, error) {
			return sys6(unix.SYS_SOCKETPAIR, unix.AF_INET, unix.SOCK_NONBLOCK, 6, base, 0, 0)
		}, result{0, unix.ESOCKTNOSUPPORT}},
		{"socketpair AF_INET stream of UDP", func() (uintptr, error) {
			return sys6(unix.SYS_SOCKETPAIR, unix.AF_INET, unix.SOCK_STREAM, 17, base, 0, 0)
		}, result{0, unix.EPROTONOSUPPORT}},
		{"socketpair AF_UNIX, the protocol before the type", func() (uintptr, error) {
			return sys6(unix.SYS_SOCKETPAIR, unix.AF_UNIX, unix.SOCK_SEQPACKET, 6, base, 0, 0)
		}, result{0, unix.EPROTONOSUPPORT}},
		{"splice reads the offsets before the modes", func() (uintptr, error) { return sys6(unix.SYS_SPLICE, uintptr(sp[0]), kernel, uintptr(dfd), 0, 16, 0) }, result{0, unix.EFAULT}},
	}
	more, mem, err := orderEdges(dir, file, sp, end, kernel)
	if err != nil {
		return "", err
	}
	defer unix.Munmap(mem)
	for _, c := range append(cases, more...) {
		r, err := c.got()
		if !errors.Is(err, c.want.err) && !(err == nil && c.want.err == nil) || err == nil && r != c.want.r {
			return "", fmt.Errorf("%s: %d %v, want %d %v", c.what, int64(r), err, c.want.r, c.want.err)
		}
	}
	return fmt.Sprintf("%d answers as Linux's", len(cases)+len(more)), nil
}

// edgeCase is one call and Linux's answer to it.
type edgeCase struct {
	what string
	got  func() (uintptr, error)
	want result // r is checked only when err is nil
}

type result struct {
	r   uintptr
	err error
}

func sys(nr, a, b, c uintptr) (uintptr, error) { return sys6(nr, a, b, c, 0, 0, 0) }

func sys6(nr, a, b, c, d, e, f uintptr) (uintptr, error) {
	r, _, errno := syscall.Syscall6(nr, a, b, c, d, e, f)
	if errno != 0 {
		return r, errno
	}
	return r, nil
}
