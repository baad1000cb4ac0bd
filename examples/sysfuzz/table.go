package main

import (
	"encoding/binary"
	"runtime"

	"golang.org/x/sys/unix"

	"github.com/unitrace/unitrace/examples/sysfuzz/fuzz"
	"github.com/unitrace/unitrace/kernel/sysnames"
)

// spec is one system call the fuzzer makes: its Linux name and how to build its arguments.
type spec struct {
	name string
	gen  func(c *call)
}

// excluded are the calls the kernel serves that the fuzzer never makes, and why. A test fails
// when a call of kernel/systab's list is neither in table nor here.
var excluded = map[string]string{
	"exit":         "ends the fuzzing thread under the runtime",
	"exit_group":   "ends the program",
	"rt_sigreturn": "restores a signal frame the thread does not have: a random context",
	"execve":       "on the host, would run another program",
	"execveat":     "as execve",
	"fork":         "on the host, a second fuzzer sharing its descriptors",
	"vfork":        "as fork, and the parent waits on a child that runs on its stack",
}

// fileFlags are open's flags; O_NONBLOCK is always added (a FIFO must not block the open).
var fileFlags = []uint64{unix.O_RDONLY, unix.O_WRONLY, unix.O_RDWR, unix.O_CREAT, unix.O_EXCL, unix.O_TRUNC,
	unix.O_APPEND, unix.O_DIRECTORY, unix.O_NOFOLLOW, unix.O_CLOEXEC, unix.O_PATH, unix.O_TMPFILE, unix.O_SYNC,
	unix.O_NOATIME, unix.O_DIRECT, unix.O_LARGEFILE, unix.O_NOCTTY}

var atFlags = []uint64{unix.AT_SYMLINK_NOFOLLOW, unix.AT_EMPTY_PATH, unix.AT_REMOVEDIR, unix.AT_SYMLINK_FOLLOW,
	unix.AT_NO_AUTOMOUNT, unix.AT_EACCESS, unix.AT_STATX_DONT_SYNC}

func mode(c *call) uintptr {
	return uintptr(fuzz.Pick(c.r, 0o644, 0o755, 0o600, 0o777, 0, 0o7777, int(c.r.Uint64()&0xffff)))
}

func open(c *call, dir bool) {
	flags := fuzz.Flags(c.r, fileFlags...) | unix.O_NONBLOCK
	k := kFile
	if flags&unix.O_DIRECTORY != 0 {
		k = kDir
	}
	if dir {
		c.set(c.dirfd(), c.path(), uintptr(flags), mode(c))
	} else {
		c.set(c.path(), uintptr(flags), mode(c))
	}
	c.newFDAfter(k)
}

func rw(c *call, kinds ...fdKind) {
	p, n := c.buf()
	c.set(c.fd(kinds...), p, n)
}

func prw(c *call) {
	p, n := c.buf()
	c.set(c.fd(kFile), p, n, uintptr(fuzz.Off(c.r)))
}

func rwv(c *call, pos bool) {
	iov, n := c.iovec()
	c.set(c.fd(kFile, kPipeR, kPipeW, kSock), iov, n, uintptr(fuzz.Off(c.r)), 0)
	_ = pos
}

func dupAfter(c *call, old uintptr) {
	k, ok := c.e.kindOf(int(old))
	if !ok {
		k = kOther
	}
	c.newFDAfter(k)
}

func newfd(c *call) uintptr {
	if c.r.Chance(1, 2) {
		return uintptr(dupLo + c.r.Intn(100))
	}
	return c.fd()
}

func statbuf(c *call) uintptr { return c.out(256) }

func sigset(c *call) uintptr {
	var b [16]byte
	if c.r.Chance(1, 2) {
		binary.LittleEndian.PutUint64(b[:], 1<<(unix.SIGUSR2-1))
	}
	return c.inb(b[:])
}

func sigsetsize(c *call) uintptr { return uintptr(fuzz.Pick(c.r, 8, 8, 8, 0, 4, 16, 128)) }

// selfPid is the fuzzer's pid or a number no process has.
func selfPid(c *call) uintptr {
	return uintptr(fuzz.Pick(c.r, c.e.pid, c.e.pid, 0x7fffffff, -0x7fffffff, 99999999))
}

func selfTid(c *call) uintptr {
	return uintptr(fuzz.Pick(c.r, c.t.tid, c.t.tid, 0, -1, 0x7fffffff))
}

// table lists every call the fuzzer makes.
var table = []spec{
	// Descriptors.
	{"read", func(c *call) { rw(c) }},
	{"write", func(c *call) { rw(c) }},
	{"close", func(c *call) {
		fd := c.fd()
		c.set(fd)
		c.after = func(uintptr) { c.e.closed(int(fd)) }
	}},
	{"fcntl", func(c *call) {
		fd := c.fd()
		cmd := fuzz.Pick(c.r, unix.F_DUPFD, unix.F_DUPFD_CLOEXEC, unix.F_GETFD, unix.F_SETFD, unix.F_GETFL,
			unix.F_SETFL, unix.F_GETPIPE_SZ, unix.F_SETPIPE_SZ, unix.F_GETLK, 1000, -1, unix.F_GETOWN, unix.F_GETSIG)
		arg := uintptr(fuzz.Int(c.r))
		switch cmd {
		case unix.F_SETFL:
			arg |= unix.O_NONBLOCK // never a blocking descriptor
		case unix.F_DUPFD, unix.F_DUPFD_CLOEXEC:
			arg = uintptr(fuzz.Pick(c.r, 0, dupLo+c.r.Intn(100), 1<<20, -1))
			dupAfter(c, fd)
		case unix.F_GETLK:
			arg = c.in(32)
		}
		c.set(fd, uintptr(cmd), arg)
	}},
	{"dup", func(c *call) { fd := c.fd(); c.set(fd); dupAfter(c, fd) }},
	{"dup2", func(c *call) { fd := c.fd(); c.set(fd, newfd(c)); dupAfter(c, fd) }},
	{"dup3", func(c *call) {
		fd := c.fd()
		c.set(fd, newfd(c), uintptr(fuzz.Flags(c.r, unix.O_CLOEXEC)))
		dupAfter(c, fd)
	}},
	{"epoll_create1", func(c *call) { c.set(uintptr(fuzz.Flags(c.r, unix.EPOLL_CLOEXEC))); c.newFDAfter(kEpoll) }},
	{"epoll_ctl", func(c *call) {
		c.set(c.fd(kEpoll), uintptr(fuzz.Pick(c.r, 1, 2, 3, 0, 4)), c.fd(), c.in(16))
	}},
	{"epoll_wait", func(c *call) {
		c.set(c.fd(kEpoll), c.out(16*16), uintptr(fuzz.Pick(c.r, 1, 16, 0, -1, 1<<30)), uintptr(c.r.Intn(3)))
	}},
	{"epoll_pwait", func(c *call) {
		c.set(c.fd(kEpoll), c.out(16*16), uintptr(fuzz.Pick(c.r, 1, 16, 0, -1, 1<<30)), uintptr(c.r.Intn(3)), sigset(c), sigsetsize(c))
	}},
	{"epoll_pwait2", func(c *call) {
		c.set(c.fd(kEpoll), c.out(16*16), uintptr(fuzz.Pick(c.r, 1, 16, 0, -1)), c.timespec(), sigset(c), sigsetsize(c))
	}},
	{"eventfd2", func(c *call) {
		c.set(uintptr(fuzz.Int(c.r)), uintptr(fuzz.Flags(c.r, unix.EFD_SEMAPHORE, unix.EFD_CLOEXEC)|unix.EFD_NONBLOCK))
		c.newFDAfter(kEvent)
	}},
	{"pipe2", func(c *call) {
		p := c.out(8)
		c.set(p, uintptr(fuzz.Flags(c.r, unix.O_CLOEXEC, unix.O_DIRECT)|unix.O_NONBLOCK))
		c.pairAfter(p, kPipeR, kPipeW)
	}},
	{"pipe", func(c *call) {
		// pipe has no flags: its descriptors block. They are made non-blocking before the
		// fuzzer uses them.
		p := c.out(8)
		c.set(p)
		c.pairAfter(p, kPipeR, kPipeW)
		after := c.after
		c.after = func(r uintptr) {
			if c.t.owns(p, 8) {
				b := bytesAt(p, 8)
				for _, fd := range []int{int(int32(binary.LittleEndian.Uint32(b))), int(int32(binary.LittleEndian.Uint32(b[4:])))} {
					unix.SetNonblock(fd, true)
				}
			}
			after(r)
		}
	}},

	// Sockets. Every socket is non-blocking; addresses are the fuzzer's own.
	{"socket", func(c *call) {
		typ := uintptr(fuzz.Pick(c.r, unix.SOCK_STREAM, unix.SOCK_DGRAM, unix.SOCK_SEQPACKET, unix.SOCK_RAW, 0, 77))
		typ |= uintptr(fuzz.Flags(c.r, unix.SOCK_CLOEXEC)) | unix.SOCK_NONBLOCK
		c.set(uintptr(fuzz.Pick(c.r, unix.AF_INET, unix.AF_INET6, unix.AF_UNIX, unix.AF_NETLINK, 0, 1000)), typ, uintptr(fuzz.Pick(c.r, 0, 0, 6, 17, 255)))
		c.newFDAfter(kSock)
	}},
	{"socketpair", func(c *call) {
		p := c.out(8)
		typ := uintptr(fuzz.Pick(c.r, unix.SOCK_STREAM, unix.SOCK_DGRAM, unix.SOCK_SEQPACKET, 0)) | unix.SOCK_NONBLOCK
		c.set(uintptr(fuzz.Pick(c.r, unix.AF_UNIX, unix.AF_INET, 0)), typ, uintptr(fuzz.Pick(c.r, 0, 0, 6)), p)
		c.pairAfter(p, kSock, kSock)
	}},
	{"bind", func(c *call) { p, l := c.sockaddr(); c.set(c.fd(kSock), p, l) }},
	{"listen", func(c *call) { c.set(c.fd(kSock), uintptr(fuzz.Int(c.r))) }},
	{"accept", func(c *call) {
		c.set(c.fd(kSock), c.out(128), c.inb([]byte{128, 0, 0, 0}))
		c.after = func(r uintptr) { unix.SetNonblock(int(r), true); c.e.add(int(r), kSock) }
	}},
	{"accept4", func(c *call) {
		c.set(c.fd(kSock), c.out(128), c.inb([]byte{128, 0, 0, 0}), uintptr(fuzz.Flags(c.r, unix.SOCK_CLOEXEC)|unix.SOCK_NONBLOCK))
		c.newFDAfter(kSock)
	}},
	{"connect", func(c *call) { p, l := c.sockaddr(); c.set(c.fd(kSock), p, l) }},
	{"getsockname", func(c *call) { c.set(c.fd(kSock), c.out(128), c.inb([]byte{byte(c.r.Intn(129)), 0, 0, 0})) }},
	{"getpeername", func(c *call) { c.set(c.fd(kSock), c.out(128), c.inb([]byte{byte(c.r.Intn(129)), 0, 0, 0})) }},
	{"setsockopt", func(c *call) {
		level := fuzz.Pick(c.r, unix.SOL_SOCKET, unix.IPPROTO_TCP, unix.IPPROTO_IP, unix.IPPROTO_IPV6, 0, 9999)
		opt := c.r.Intn(80)
		v := c.in(16)
		if level == unix.SOL_SOCKET && opt == unix.SO_LINGER {
			v = c.inb([]byte{1, 0, 0, 0, 0, 0, 0, 0}) // lingering, but for 0 s: a close must not wait
		}
		c.set(c.fd(kSock), uintptr(level), uintptr(opt), v, uintptr(fuzz.Len(c.r, 16)))
	}},
	{"getsockopt", func(c *call) {
		c.set(c.fd(kSock), uintptr(fuzz.Pick(c.r, unix.SOL_SOCKET, unix.IPPROTO_TCP, unix.IPPROTO_IP, unix.IPPROTO_IPV6, 0, 9999)),
			uintptr(c.r.Intn(80)), c.out(64), c.inb([]byte{byte(c.r.Intn(65)), 0, 0, 0}))
	}},
	{"sendto", func(c *call) {
		p, n := c.buf()
		a, l := c.sockaddr()
		if c.r.Chance(1, 3) {
			a, l = 0, 0
		}
		c.set(c.fd(kSock), p, n, uintptr(fuzz.Flags(c.r, unix.MSG_DONTWAIT, unix.MSG_NOSIGNAL, unix.MSG_OOB, unix.MSG_MORE, unix.MSG_EOR)), a, l)
	}},
	{"recvfrom", func(c *call) {
		p, n := c.buf()
		c.set(c.fd(kSock), p, n, uintptr(fuzz.Flags(c.r, unix.MSG_DONTWAIT, unix.MSG_PEEK, unix.MSG_TRUNC, unix.MSG_OOB)|unix.MSG_DONTWAIT), c.out(128), c.inb([]byte{128, 0, 0, 0}))
	}},
	{"sendmsg", func(c *call) {
		c.set(c.fd(kSock), c.msghdr(), uintptr(fuzz.Flags(c.r, unix.MSG_DONTWAIT, unix.MSG_NOSIGNAL)))
	}},
	{"recvmsg", func(c *call) {
		c.set(c.fd(kSock), c.msghdr(), uintptr(fuzz.Flags(c.r, unix.MSG_PEEK, unix.MSG_TRUNC)|unix.MSG_DONTWAIT))
	}},
	{"shutdown", func(c *call) { c.set(c.fd(kSock), uintptr(fuzz.Pick(c.r, 0, 1, 2, 3, -1))) }},

	// Files.
	{"openat", func(c *call) { open(c, true) }},
	{"open", func(c *call) { open(c, false) }},
	{"creat", func(c *call) { c.set(c.path(), mode(c)); c.newFDAfter(kFile) }},
	{"pread64", prw},
	{"pwrite64", prw},
	{"readv", func(c *call) { rwv(c, false) }},
	{"writev", func(c *call) { rwv(c, false) }},
	{"preadv", func(c *call) { rwv(c, true) }},
	{"pwritev", func(c *call) { rwv(c, true) }},
	{"lseek", func(c *call) {
		c.set(c.fd(kFile, kDir), uintptr(fuzz.Off(c.r)), uintptr(fuzz.Pick(c.r, 0, 1, 2, 3, 4, 5, -1)))
	}},
	{"getdents64", func(c *call) { p, n := c.buf(); c.set(c.fd(kDir), p, n) }},
	{"fstat", func(c *call) { c.set(c.fd(), statbuf(c)) }},
	{"newfstatat", func(c *call) { c.set(c.dirfd(), c.path(), statbuf(c), uintptr(fuzz.Flags(c.r, atFlags...))) }},
	{"stat", func(c *call) { c.set(c.path(), statbuf(c)) }},
	{"lstat", func(c *call) { c.set(c.path(), statbuf(c)) }},
	{"statx", func(c *call) {
		c.set(c.dirfd(), c.path(), uintptr(fuzz.Flags(c.r, atFlags...)), uintptr(fuzz.Int(c.r)), c.out(256))
	}},
	{"mkdirat", func(c *call) { c.set(c.dirfd(), c.path(), mode(c)) }},
	{"mkdir", func(c *call) { c.set(c.path(), mode(c)) }},
	{"mknodat", func(c *call) { c.set(c.dirfd(), c.path(), mknodMode(c), uintptr(fuzz.Int(c.r))) }},
	{"mknod", func(c *call) { c.set(c.path(), mknodMode(c), uintptr(fuzz.Int(c.r))) }},
	{"unlinkat", func(c *call) { c.set(c.dirfd(), c.path(), uintptr(fuzz.Flags(c.r, unix.AT_REMOVEDIR))) }},
	{"unlink", func(c *call) { c.set(c.path()) }},
	{"rmdir", func(c *call) { c.set(c.path()) }},
	{"renameat", func(c *call) { c.set(c.dirfd(), c.path(), c.dirfd(), c.path()) }},
	{"renameat2", func(c *call) {
		c.set(c.dirfd(), c.path(), c.dirfd(), c.path(), uintptr(fuzz.Flags(c.r, unix.RENAME_NOREPLACE, unix.RENAME_EXCHANGE, unix.RENAME_WHITEOUT)))
	}},
	{"rename", func(c *call) { c.set(c.path(), c.path()) }},
	{"linkat", func(c *call) {
		c.set(c.dirfd(), c.path(), c.dirfd(), c.path(), uintptr(fuzz.Flags(c.r, unix.AT_SYMLINK_FOLLOW, unix.AT_EMPTY_PATH)))
	}},
	{"link", func(c *call) { c.set(c.path(), c.path()) }},
	{"symlinkat", func(c *call) { c.set(c.target(), c.dirfd(), c.path()) }},
	{"symlink", func(c *call) { c.set(c.target(), c.path()) }},
	{"readlinkat", func(c *call) { p, n := c.buf(); c.set(c.dirfd(), c.path(), p, n) }},
	{"readlink", func(c *call) { p, n := c.buf(); c.set(c.path(), p, n) }},
	{"faccessat", func(c *call) { c.set(c.dirfd(), c.path(), uintptr(fuzz.Flags(c.r, 1, 2, 4))) }},
	{"faccessat2", func(c *call) {
		c.set(c.dirfd(), c.path(), uintptr(fuzz.Flags(c.r, 1, 2, 4)), uintptr(fuzz.Flags(c.r, atFlags...)))
	}},
	{"access", func(c *call) { c.set(c.path(), uintptr(fuzz.Flags(c.r, 1, 2, 4))) }},
	{"fchmod", func(c *call) { c.set(c.fd(), mode(c)) }},
	{"fchmodat", func(c *call) { c.set(c.dirfd(), c.path(), mode(c)) }},
	{"fchmodat2", func(c *call) { c.set(c.dirfd(), c.path(), mode(c), uintptr(fuzz.Flags(c.r, atFlags...))) }},
	{"chmod", func(c *call) { c.set(c.path(), mode(c)) }},
	{"fchown", func(c *call) { c.set(c.fd(), owner(c), owner(c)) }},
	{"fchownat", func(c *call) { c.set(c.dirfd(), c.path(), owner(c), owner(c), uintptr(fuzz.Flags(c.r, atFlags...))) }},
	{"chown", func(c *call) { c.set(c.path(), owner(c), owner(c)) }},
	{"lchown", func(c *call) { c.set(c.path(), owner(c), owner(c)) }},
	{"truncate", func(c *call) { c.set(c.path(), uintptr(fuzz.Off(c.r))) }},
	{"ftruncate", func(c *call) { c.set(c.fd(kFile), uintptr(fuzz.Off(c.r))) }},
	{"fsync", func(c *call) { c.set(c.fd()) }},
	{"fdatasync", func(c *call) { c.set(c.fd()) }},
	{"utimensat", func(c *call) {
		var ts [32]byte
		for i := range 2 {
			binary.LittleEndian.PutUint64(ts[16*i:], uint64(c.r.Intn(1<<31)))
			binary.LittleEndian.PutUint64(ts[16*i+8:], fuzz.Pick(c.r, uint64(0), 999999999, 1e9, (1<<30)-1, (1<<30)-2))
		}
		tp := c.inb(ts[:])
		if c.r.Chance(1, 4) {
			tp = 0
		}
		c.set(c.dirfd(), c.path(), tp, uintptr(fuzz.Flags(c.r, atFlags...)))
	}},
	{"umask", func(c *call) { c.set(uintptr(fuzz.Pick(c.r, 0o022, 0o077, 0, 0o777, int(c.r.Uint64())))) }},
	{"getcwd", func(c *call) { p, n := c.buf(); c.set(p, n) }},
	{"chdir", func(c *call) { c.set(c.path()) }},
	{"fchdir", func(c *call) { c.set(c.fd(kDir)) }},
	{"statfs", func(c *call) { c.set(c.path(), c.out(128)) }},
	{"fstatfs", func(c *call) { c.set(c.fd(), c.out(128)) }},

	// Memory: only the arena, and what mmap gives (unmapped at once).
	{"mmap", func(c *call) {
		c.mem = true
		prot := uintptr(fuzz.Flags(c.r, unix.PROT_READ, unix.PROT_WRITE, unix.PROT_EXEC) & 0xffffffff)
		flags := uintptr(fuzz.Pick(c.r, unix.MAP_PRIVATE, unix.MAP_SHARED, 0, 3)) | unix.MAP_ANONYMOUS
		if c.r.Chance(1, 4) {
			flags |= uintptr(fuzz.Pick(c.r, unix.MAP_POPULATE, unix.MAP_NORESERVE, unix.MAP_GROWSDOWN, unix.MAP_STACK, unix.MAP_LOCKED, unix.MAP_HUGETLB))
		}
		fd := ^uintptr(0)
		if c.r.Chance(1, 4) {
			flags &^= unix.MAP_ANONYMOUS
			fd = c.fd(kFile)
		}
		var addr, n uintptr
		fixed := c.r.Chance(1, 3)
		if fixed {
			addr, n = c.arenaRange()
			flags |= uintptr(fuzz.Pick(c.r, unix.MAP_FIXED, unix.MAP_FIXED_NOREPLACE))
		} else {
			addr = fuzz.Pick(c.r, 0, 0, c.e.arena, 0x10000, uintptr(c.r.Uint64()&0x7fff_ffff_f000), kernelHalf())
			n = uintptr(fuzz.Pick(c.r, pageSize, 1, 3*pageSize, 1<<20, 0))
			if flags&unix.MAP_POPULATE == 0 && c.r.Chance(1, 8) {
				n = uintptr(fuzz.Pick(c.r, 1<<40, 1<<46, 1<<62, -1))
			}
		}
		c.set(addr, n, prot, flags, fd, uintptr(fuzz.Pick(c.r, 0, 0, pageSize, 1, -pageSize)))
		c.after = func(r uintptr) {
			if r >= c.e.arena && r+n <= c.e.arena+arenaPages*pageSize {
				return
			}
			// Anywhere else: unmapped at once, so nothing of the fuzzer's lingers where the
			// runtime may want to map.
			unix.Syscall(unix.SYS_MUNMAP, r, n, 0)
		}
	}},
	{"munmap", func(c *call) {
		c.mem = true
		a, n := c.arenaRange()
		c.set(a, n)
		c.after = func(uintptr) { c.e.refill(a, n) }
	}},
	{"mprotect", func(c *call) {
		c.mem = true
		a, n := c.arenaRange()
		c.set(a, n, uintptr(fuzz.Flags(c.r, unix.PROT_READ, unix.PROT_WRITE, unix.PROT_EXEC, unix.PROT_GROWSDOWN, unix.PROT_GROWSUP)))
	}},
	{"madvise", func(c *call) {
		c.mem = true
		a, n := c.arenaRange()
		adv := fuzz.Pick(c.r, unix.MADV_NORMAL, unix.MADV_RANDOM, unix.MADV_SEQUENTIAL, unix.MADV_WILLNEED,
			unix.MADV_DONTNEED, unix.MADV_FREE, unix.MADV_MERGEABLE, unix.MADV_HUGEPAGE, unix.MADV_NOHUGEPAGE,
			unix.MADV_DONTDUMP, unix.MADV_DODUMP, unix.MADV_COLD, unix.MADV_PAGEOUT, unix.MADV_REMOVE, 12345, -1, 25)
		c.set(a, n, uintptr(adv))
	}},
	{"brk", func(c *call) { c.set(0) }}, // 0 asks; any other value moves the host's break

	// Signals, only to itself, only ones it handles or ignores.
	{"rt_sigaction", func(c *call) {
		// A real signal's action is only read (or a hostile new one refused): the runtime
		// owns every handler. Invalid numbers get a new action of random bytes.
		if c.r.Chance(1, 2) {
			c.set(uintptr(fuzz.Pick(c.r, 0, 65, 1000, int(unix.SIGKILL), int(unix.SIGSTOP), -1)), c.in(32), c.out(32), sigsetsize(c))
		} else {
			act := fuzz.Pick(c.r, 0, c.bad())
			c.set(uintptr(fuzz.Pick(c.r, int(unix.SIGUSR1), int(unix.SIGUSR2), int(unix.SIGSEGV), int(unix.SIGURG))), act, c.out(32), sigsetsize(c))
		}
	}},
	{"rt_sigprocmask", func(c *call) {
		c.set(uintptr(fuzz.Pick(c.r, unix.SIG_BLOCK, unix.SIG_UNBLOCK, 7, -1)), sigset(c), c.out(8), sigsetsize(c))
	}},
	{"sigaltstack", func(c *call) {
		// Never a new stack: only a query, a hostile pointer, or flags Linux refuses.
		var ss [24]byte
		binary.LittleEndian.PutUint32(ss[8:], uint32(fuzz.Pick(c.r, 0x1234, 8, 0x80000003)))
		ssp := fuzz.Pick(c.r, 0, c.bad(), c.bytes(ss[:]))
		c.set(ssp, c.out(24))
	}},
	{"tgkill", func(c *call) { c.set(selfPid(c), selfTid(c), c.sig()) }},
	{"tkill", func(c *call) { c.set(selfTid(c), c.sig()) }},
	{"kill", func(c *call) { c.set(selfPid(c), c.sig()) }},

	// Threads and scheduling.
	{"clone", func(c *call) {
		// Only flag combinations Linux refuses before it makes anything. (Not
		// CLONE_CLEAR_SIGHAND with CLONE_SIGHAND: clone, unlike clone3, drops the upper 32
		// bits, so Linux makes a process on the caller's stack.)
		c.set(uintptr(fuzz.Pick(c.r, unix.CLONE_THREAD, unix.CLONE_SIGHAND, unix.CLONE_THREAD|unix.CLONE_SIGHAND,
			unix.CLONE_NEWNS|unix.CLONE_FS, unix.CLONE_THREAD|unix.CLONE_VM)), 0, 0, 0, 0)
	}},
	{"set_tid_address", func(c *call) {
		// A word of its own that stays mapped for the thread's life (or a hostile pointer,
		// which Linux accepts: it writes there only at the thread's exit, and fails quietly).
		c.set(fuzz.Pick(c.r, c.t.region+regionSize-8, 0))
	}},
	{"arch_prctl", func(c *call) {
		// ARCH_GET_FS and ARCH_GET_GS; never a new FS (the runtime's TLS).
		c.set(uintptr(fuzz.Pick(c.r, 0x1003, 0x1004, 0x1099, 0, 0x3001)), c.out(8))
	}},
	{"futex", func(c *call) {
		// On a word of its own; a wait is always for a value the word does not hold or has a
		// timeout, so it never blocks for long.
		w := c.alloc(8)
		binary.LittleEndian.PutUint32(bytesAt(w, 4), uint32(c.r.Intn(3)))
		op := uintptr(fuzz.Pick(c.r, 0, 1, 9, 10, 128, 129, 137, 138, 3, 4, 5, 99))
		if c.r.Chance(1, 2) {
			op |= 256 // FUTEX_CLOCK_REALTIME
		}
		val := uintptr(c.r.Intn(3))
		uaddr := w
		if c.r.Chance(1, 6) {
			uaddr = c.hostile()
		}
		c.set(uaddr, op, val, c.timespec(), c.alloc(8), uintptr(fuzz.Int(c.r)))
	}},
	{"sched_yield", func(c *call) {}},
	{"sched_getaffinity", func(c *call) { c.set(selfTid(c), uintptr(fuzz.Pick(c.r, 8, 128, 0, 1, 7, 1<<20)), c.out(128)) }},
	{"sched_setaffinity", func(c *call) {
		var m [8]byte
		binary.LittleEndian.PutUint64(m[:], fuzz.Pick(c.r, uint64(1), 2, 3, 0, ^uint64(0)))
		c.set(selfTid(c), uintptr(fuzz.Pick(c.r, 8, 128, 0, 1, 7)), c.inb(m[:]))
	}},
	{"sched_setscheduler", func(c *call) {
		// SCHED_FIFO and SCHED_RR only with priority 0 (EINVAL): a real-time fuzzing thread
		// could starve the runtime's.
		pol := fuzz.Pick(c.r, 0, 3, 5, 1, 2, 6, 1000)
		var p [4]byte
		if pol != 1 && pol != 2 {
			binary.LittleEndian.PutUint32(p[:], uint32(fuzz.Pick(c.r, 0, 0, 1, 99, -1)))
		}
		c.set(selfTid(c), uintptr(pol), c.inb(p[:]))
	}},
	{"sched_getscheduler", func(c *call) { c.set(selfTid(c)) }},
	{"sched_getparam", func(c *call) { c.set(selfTid(c), c.out(4)) }},

	// Processes.
	{"wait4", func(c *call) {
		c.set(uintptr(fuzz.Pick(c.r, -1, 0, c.e.pid, 99999999)), c.out(4), uintptr(fuzz.Flags(c.r, unix.WNOHANG, unix.WUNTRACED, unix.WCONTINUED, unix.WALL)), c.out(256))
	}},
	{"waitid", func(c *call) {
		c.set(uintptr(fuzz.Pick(c.r, unix.P_ALL, unix.P_PID, unix.P_PGID, 3, 99)), uintptr(fuzz.Pick(c.r, 0, c.e.pid, 99999999)), c.out(128),
			uintptr(fuzz.Flags(c.r, unix.WNOHANG, unix.WEXITED, unix.WSTOPPED, unix.WCONTINUED, unix.WNOWAIT)), c.out(256))
	}},
	{"pidfd_open", func(c *call) { c.set(selfPid(c), uintptr(fuzz.Flags(c.r, unix.PIDFD_NONBLOCK))); c.newFDAfter(kOther) }},

	// Time.
	{"clock_gettime", func(c *call) { c.set(clock(c), c.out(16)) }},
	{"clock_getres", func(c *call) { c.set(clock(c), c.out(16)) }},
	{"nanosleep", func(c *call) { c.set(c.timespec(), c.out(16)) }},
	{"clock_nanosleep", func(c *call) {
		fl := uintptr(fuzz.Pick(c.r, 0, 0, 1, 2))
		clk := clock(c)
		if int32(clk) < 0 || clk == 2 || clk == 3 {
			// A CPU-time clock: while every thread sleeps it never advances, so only an
			// absolute time, and 0.
			fl |= 1
		}
		ts := c.timespec()
		if fl&1 != 0 && c.t.owns(ts, 16) {
			// TIMER_ABSTIME: a time in the past, or it would sleep for ever.
			clear(bytesAt(ts, 16))
		}
		c.set(clk, fl, ts, c.out(16))
	}},
	{"getrusage", func(c *call) { c.set(uintptr(fuzz.Pick(c.r, 0, 1, -1, -2, 5)), c.out(144)) }},
	{"times", func(c *call) { c.set(c.out(32)) }},
	{"setitimer", func(c *call) { c.set(uintptr(fuzz.Pick(c.r, 0, 1, 2, 3, -1)), c.itimer(), c.out(32)) }},
	{"getitimer", func(c *call) { c.set(uintptr(fuzz.Pick(c.r, 0, 1, 2, 3, -1)), c.out(32)) }},
	{"alarm", func(c *call) { c.set(uintptr(fuzz.Pick(c.r, 0, 0, 1, 1000))) }},
	{"timer_create", func(c *call) {
		var ev [64]byte
		binary.LittleEndian.PutUint32(ev[8:], uint32(c.sig()))
		binary.LittleEndian.PutUint32(ev[12:], uint32(fuzz.Pick(c.r, 0, 1, 2, 4, 99)))
		binary.LittleEndian.PutUint32(ev[16:], uint32(selfTid(c)))
		evp := c.inb(ev[:])
		if c.r.Chance(1, 4) {
			evp = 0
		}
		c.set(clock(c), evp, c.out(4))
	}},
	{"timer_settime", func(c *call) { c.set(timerID(c), uintptr(fuzz.Pick(c.r, 0, 1, 2)), c.itimer(), c.out(32)) }},
	{"timer_gettime", func(c *call) { c.set(timerID(c), c.out(32)) }},
	{"timer_getoverrun", func(c *call) { c.set(timerID(c)) }},
	{"timer_delete", func(c *call) { c.set(timerID(c)) }},

	// Identity and the machine.
	{"getpid", func(c *call) {}},
	{"getppid", func(c *call) {}},
	{"gettid", func(c *call) {}},
	{"getuid", func(c *call) {}},
	{"getgid", func(c *call) {}},
	{"geteuid", func(c *call) {}},
	{"getegid", func(c *call) {}},
	{"getgroups", func(c *call) { c.set(uintptr(fuzz.Pick(c.r, 0, 1, 64, -1, 1<<20)), c.out(256)) }},
	{"getrandom", func(c *call) { p, n := c.buf(); c.set(p, n, uintptr(fuzz.Flags(c.r, 1, 2, 4))) }},
	{"uname", func(c *call) { c.set(c.out(390)) }},

	// Answered with an error by the kernel (or being added).
	{"copy_file_range", func(c *call) {
		c.set(c.fd(kFile), c.offPtr(), c.fd(kFile), c.offPtr(), copyLen(c), uintptr(fuzz.Pick(c.r, 0, 0, 1)))
	}},
	{"ioctl", func(c *call) {
		// FIONREAD, TCGETS, TIOCGWINSZ, FIOCLEX, FIONCLEX, FS_IOC_GETFLAGS, the interface
		// requests SIOCGIFINDEX, SIOCGIFCONF and SIOCETHTOOL (on a zeroed struct: no name, no
		// buffer), NS_GET_NSTYPE and numbers no driver has; never FIONBIO (a blocking
		// descriptor) or FIOASYNC.
		req := fuzz.Pick(c.r, uint64(0x541b), 0x5401, 0x5413, 0x5451, 0x5450, 0x80086601, 0x8933, 0x8912, 0x8946, 0xb703, 0xdead0001, 0)
		c.set(c.fd(), uintptr(req), c.out(64))
	}},
	{"prctl", func(c *call) {
		// PR_GET_NAME, PR_GET_DUMPABLE, PR_GET_TIMERSLACK, PR_SET_VMA and numbers Linux lacks.
		c.set(uintptr(fuzz.Pick(c.r, 16, 3, 30, 0x53564d41, 0xdead, 0, 1000)), c.out(64), uintptr(fuzz.Int(c.r)), 0, 0)
	}},
	{"prlimit64", func(c *call) {
		// Only reads a limit: a new one could take the fuzzer's descriptors or stack away.
		c.set(uintptr(fuzz.Pick(c.r, 0, 0, c.e.pid, 99999999)), uintptr(fuzz.Pick(c.r, 7, 3, 0, 15, 16, 1000, -1)), fuzz.Pick(c.r, 0, c.bad()), c.out(16))
	}},
	{"rseq", func(c *call) {
		// Never a registration of memory it may unmap: lengths or flags Linux refuses, or a
		// hostile area.
		// hostile area. (Since Linux 6.3 a length above 32 registers too: the kernel then
		// writes into the area at every preemption and reads a critical-section pointer from
		// it, which the fuzzer's later calls would overwrite.)
		if c.r.Chance(1, 2) {
			c.set(fuzz.Pick(c.r, 0, c.bad(), c.alloc(64)), uintptr(fuzz.Pick(c.r, 0, 16, 31)), uintptr(fuzz.Pick(c.r, 0, 2, 4)), uintptr(c.r.Uint64()&0xffffffff))
		} else {
			c.set(c.alloc(64)+4, 32, 0, uintptr(c.r.Uint64()&0xffffffff)) // misaligned
		}
	}},
	{"mincore", func(c *call) { c.mem = true; a, n := c.arenaRange(); c.set(a, n, c.out(arenaPages)) }},

	// Calls other engineers are adding to the kernel: the fuzzer covers them already.
	{"ppoll", func(c *call) {
		var pf [16]byte
		binary.LittleEndian.PutUint32(pf[:], uint32(c.fd()))
		binary.LittleEndian.PutUint16(pf[4:], uint16(c.r.Uint64()))
		binary.LittleEndian.PutUint32(pf[8:], uint32(c.fd()))
		binary.LittleEndian.PutUint16(pf[12:], uint16(c.r.Uint64()))
		c.set(c.inb(pf[:]), uintptr(fuzz.Pick(c.r, 0, 1, 2, 1<<20)), c.timespec(), sigset(c), sigsetsize(c))
	}},
	{"pselect6", func(c *call) {
		c.set(uintptr(fuzz.Pick(c.r, 0, 1, 64, 1024, -1, 1<<20)), c.in(128), c.in(128), c.in(128), c.timespec(), 0)
	}},
	{"sysinfo", func(c *call) { c.set(c.out(112)) }},
	{"timerfd_create", func(c *call) {
		c.set(clock(c), uintptr(fuzz.Flags(c.r, unix.TFD_CLOEXEC, 0x1234)|unix.TFD_NONBLOCK))
		c.newFDAfter(kTimerFD)
	}},
	{"timerfd_settime", func(c *call) { c.set(c.fd(kTimerFD), uintptr(fuzz.Pick(c.r, 0, 1, 2, 4)), c.itimer(), c.out(32)) }},
	{"timerfd_gettime", func(c *call) { c.set(c.fd(kTimerFD), c.out(32)) }},
	{"rt_sigpending", func(c *call) { c.set(c.out(16), sigsetsize(c)) }},
	{"gettimeofday", func(c *call) { c.set(c.out(16), c.out(8)) }},
	{"splice", func(c *call) {
		c.set(c.fd(kPipeR, kFile, kSock), c.offPtr(), c.fd(kPipeW, kFile, kSock), c.offPtr(), copyLen(c),
			uintptr(fuzz.Flags(c.r, unix.SPLICE_F_MOVE, unix.SPLICE_F_MORE)|unix.SPLICE_F_NONBLOCK))
	}},
	{"sendfile", func(c *call) {
		// Never a pipe: sendfile into a full one, or out of an empty one, may wait.
		c.set(c.fd(kFile, kSock), c.fd(kFile), c.offPtr(), copyLen(c))
		if k, _ := c.e.kindOf(int(c.a[0])); k == kPipeR || k == kPipeW {
			c.skip = true
		}
		if k, _ := c.e.kindOf(int(c.a[1])); k == kPipeR || k == kPipeW {
			c.skip = true
		}
	}},
}

// offPtr is a pointer to an offset, NULL, or hostile.
func (c *call) offPtr() uintptr {
	if c.r.Chance(1, 3) {
		return 0
	}
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], fuzz.Off(c.r))
	return c.inb(b[:])
}

// mknodMode is mknod's mode: a random file type, permission bits and flags.
//
// Never a FIFO: creat opens its path without O_NONBLOCK (it takes no flags), and a creat that
// met a FIFO the fuzzer made waits for a reader for ever, on Linux as in the guest (`unitrace
// stacks` showed the hung guest's fuzzing thread "blocked (fifo-open)" in creat).
func mknodMode(c *call) uintptr {
	return uintptr(fuzz.Pick(c.r, unix.S_IFREG, unix.S_IFCHR, unix.S_IFBLK, unix.S_IFSOCK, 0, unix.S_IFDIR, 0o170000)) | mode(c)&0o7777
}

func owner(c *call) uintptr { return uintptr(fuzz.Pick(c.r, 0, -1, 65534, 1000, int(^uint32(0)))) }

func clock(c *call) uintptr {
	return uintptr(fuzz.Pick(c.r, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 16, -2, -6, int(^uint32(0)), 1000))
}

// timerID is a POSIX timer id: small numbers (the first timers made), or invalid ones.
func timerID(c *call) uintptr { return uintptr(fuzz.Pick(c.r, 0, 1, 2, 3, -1, 1<<20)) }

// numbers maps a call's name to its number on this architecture.
func numbers() map[string]uintptr {
	m := map[string]uintptr{}
	name := sysnames.AMD64
	if runtime.GOARCH == "arm64" {
		name = sysnames.ARM64
	}
	for nr := range uint64(1024) {
		if n := name(nr); n != "" {
			m[n] = uintptr(nr)
		}
	}
	return m
}

// refill maps the range of the arena a munmap took away again (PROT_NONE), so that no hole of
// the fuzzer's is left where the runtime's next mapping might land.
func (e *env) refill(a, n uintptr) {
	lo, hi := e.arena, e.arena+arenaPages*pageSize
	if a < lo || a >= hi {
		return
	}
	end := min((a+n+pageSize-1)&^(pageSize-1), hi)
	mmapRaw(a, end-a, unix.PROT_NONE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_FIXED)
}

// copyLen is a length for copy_file_range, sendfile and splice: they really copy (from file to
// file, on the host's disk), so never gigabytes.
func copyLen(c *call) uintptr {
	return uintptr(fuzz.Pick(c.r, 0, 1, 4096, 65536, c.r.Intn(65536)))
}
