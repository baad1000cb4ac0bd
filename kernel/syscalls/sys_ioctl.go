package syscalls

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/dev/console"
	"github.com/unitrace/unitrace/kernel/dev/serial"
	"github.com/unitrace/unitrace/kernel/fd"
	"github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/signal"
	"github.com/unitrace/unitrace/kernel/sockwire"
	"github.com/unitrace/unitrace/kernel/syscalls/files"
	"github.com/unitrace/unitrace/kernel/termios"
)

// ioctl serves the requests the Go standard library and golang.org/x/term make, as Linux's
// do_vfs_ioctl and tty_ioctl answer them:
//
//   - on every descriptor FIOCLEX and FIONCLEX (FD_CLOEXEC) and FIONBIO (O_NONBLOCK, from the
//     int at arg);
//   - FIONREAD, the bytes a read would find: a regular file's size less its position, a pipe's
//     or a socket pair's buffered bytes, the console's received bytes, a socket's as its host
//     socket says (the launcher asks the host's FIONREAD);
//   - on the console, which is a terminal (a serial line, as Linux's ttyS0 or ttyAMA0, and the
//     program's controlling terminal, with the process as its foreground process group): TCGETS
//     (package termios: raw input, "\n" written as "\r\n", 115200 8N1), TCSETS, TCSETSW and
//     TCSETSF (accepted; the line keeps those settings, as a driver keeps what its hardware
//     cannot change), TIOCGWINSZ and TIOCSWINSZ (zeros until set; a change sends SIGWINCH, as a
//     tty does to its foreground process group), TIOCGPGRP and TIOCSPGRP (the one process
//     group);
//   - on a namespace's file (/proc/<pid>/ns), NS_GET_NSTYPE and its kin (nsIoctl);
//   - anything else ENOTTY, as Linux answers a request a file does not know (an epoll instance,
//     whose own ioctl knows none of these, EINVAL).

// conWinsize is the console's window size (TIOCSWINSZ's).
var conWinsize termios.Winsize

func Ioctl(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	n := int(int32(a[0]))
	req := uint32(a[1])
	arg := uintptr(a[2])
	kind := core.FDs.Kind(n)
	if kind == fd.KindNone {
		return abi.Neg(abi.EBADF), true
	}
	if file, ok := core.FDs.File(n); ok && file.Flags&fs.O_PATH != 0 {
		return abi.Neg(abi.EBADF), true
	}
	switch req {
	case termios.FIOCLEX, termios.FIONCLEX:
		cloexec := uintptr(0)
		if req == termios.FIOCLEX {
			cloexec = fd.FD_CLOEXEC
		}
		_, errno := core.FDs.Fcntl(n, fd.F_SETFD, cloexec)
		return abi.ErrnoOr(errno, 0), true
	case termios.FIONBIO:
		on, ok := core.ReadUser32(arg)
		if !ok {
			return abi.Neg(abi.EFAULT), true
		}
		return setNonblock(n, on != 0), true
	case termios.FIONREAD:
		return ioctlFIONREAD(f, n, kind, arg)
	}
	if kind == fd.KindConsole {
		return consoleIoctl(req, arg), true
	}
	if kind == fd.KindEpoll {
		return abi.Neg(abi.EINVAL), true
	}
	if kind == fd.KindSocket || kind == fd.KindPair {
		if r, ok := files.SocketIoctl(n, kind, req, arg); ok {
			return r, true
		}
	}
	if file, ok := core.FDs.File(n); ok {
		if st, errno := core.RootNS.Stat(file.Node); errno == 0 && st.Mode&fs.S_IFMT == fs.S_IFCHR && fs.IsRandomDevice(st.Rdev) {
			return randomIoctl(req, arg), true
		}
		if clone, ok := core.RootNS.NamespaceType(file.Node); ok {
			return nsIoctl(file, clone, req, arg), true
		}
	}
	return abi.Neg(abi.ENOTTY), true
}

// randomIoctl answers /dev/random's and /dev/urandom's ioctls as Linux's random_ioctl does for
// root, with a generator seeded from boot: the entropy count is the full pool, credits and
// mixed bytes are checked and dropped (as writes to the devices are), the rest EINVAL.
func randomIoctl(req uint32, arg uintptr) uint64 {
	switch req {
	case fs.RNDGETENTCNT:
		if !core.WriteUser32(arg, fs.PoolReadyBits) {
			return abi.Neg(abi.EFAULT)
		}
		return 0
	case fs.RNDADDTOENTCNT:
		bits, ok := core.ReadUser32(arg)
		switch {
		case !ok:
			return abi.Neg(abi.EFAULT)
		case int32(bits) < 0:
			return abi.Neg(abi.EINVAL)
		}
		return 0
	case fs.RNDADDENTROPY:
		bits, ok := core.ReadUser32(arg)
		if !ok {
			return abi.Neg(abi.EFAULT)
		}
		if int32(bits) < 0 {
			return abi.Neg(abi.EINVAL)
		}
		size, ok := core.ReadUser32(arg + 4)
		switch {
		case !ok:
			return abi.Neg(abi.EFAULT)
		case int32(size) < 0:
			return abi.Neg(abi.EINVAL)
		case !core.UserRange(arg+8, uintptr(size), false):
			return abi.Neg(abi.EFAULT)
		}
		return 0
	case fs.RNDZAPENTCNT, fs.RNDCLEARPOOL, fs.RNDRESEEDCRNG:
		return 0
	}
	return abi.Neg(abi.EINVAL)
}

// setNonblock sets or clears descriptor n's O_NONBLOCK, as fcntl's F_SETFL would.
func setNonblock(n int, on bool) uint64 {
	fl, errno := core.FDs.Fcntl(n, fd.F_GETFL, 0)
	if errno != 0 {
		return abi.Neg(errno)
	}
	if on {
		fl |= fd.O_NONBLOCK
	} else {
		fl &^= fd.O_NONBLOCK
	}
	_, errno = core.FDs.Fcntl(n, fd.F_SETFL, uintptr(fl))
	return abi.ErrnoOr(errno, 0)
}

func ioctlFIONREAD(f *machine.Frame, n int, kind fd.Kind, arg uintptr) (uint64, bool) {
	var count int64
	switch kind {
	case fd.KindFile:
		file, _ := core.FDs.File(n)
		st, errno := core.RootNS.Stat(file.Node)
		if errno != 0 {
			return abi.Neg(errno), true
		}
		if st.Mode&fs.S_IFMT != fs.S_IFREG {
			return abi.Neg(abi.ENOTTY), true // directories and devices have no FIONREAD
		}
		count = st.Size - file.Pos // negative past the end, as Linux's
	case fd.KindPipe, fd.KindPair:
		k, _ := core.FDs.Buffered(n)
		count = int64(k)
	case fd.KindConsole:
		count = int64(console.Input.Len())
	case fd.KindSocket:
		if !core.UserRange(arg, 4, true) {
			return abi.Neg(abi.EFAULT), true
		}
		return files.SockSimple(f, n, sockwire.OpIoctl, [3]int64{termios.FIONREAD}, files.SockCall{Out: serial.NetCall{Buf: arg}})
	case fd.KindEpoll:
		return abi.Neg(abi.EINVAL), true
	default:
		return abi.Neg(abi.ENOTTY), true
	}
	if !core.WriteUser32(arg, uint32(int32(count))) {
		return abi.Neg(abi.EFAULT), true
	}
	return 0, true
}

// consoleIoctl serves the terminal requests on a console descriptor.
func consoleIoctl(req uint32, arg uintptr) uint64 {
	switch req {
	case termios.TCGETS:
		b, ok := core.UserBytes(arg, termios.Size, true)
		if !ok {
			return abi.Neg(abi.EFAULT)
		}
		termios.Console().Put(b)
		return 0
	case termios.TCSETS, termios.TCSETSW, termios.TCSETSF:
		if _, ok := core.UserBytes(arg, termios.Size, false); !ok {
			return abi.Neg(abi.EFAULT)
		}
		if req == termios.TCSETSF { // "flush": the input not yet read goes, as a read would take it
			if console.Input.Discard(console.Input.Len()) {
				console.Resume()
			}
			core.FDs.SetConsoleInput(console.Input.Readable(), false)
		}
		return 0
	case termios.TIOCGWINSZ:
		b, ok := core.UserBytes(arg, termios.WinsizeSize, true)
		if !ok {
			return abi.Neg(abi.EFAULT)
		}
		conWinsize.Put(b)
		return 0
	case termios.TIOCSWINSZ:
		b, ok := core.UserBytes(arg, termios.WinsizeSize, false)
		if !ok {
			return abi.Neg(abi.EFAULT)
		}
		w := termios.GetWinsize(b)
		if w != conWinsize {
			conWinsize = w
			target := core.ProcessTarget(signal.SIGWINCH, -1)
			if target >= 0 {
				core.SendSignal(target, signal.SIGWINCH, signal.Info{Signo: signal.SIGWINCH, Code: signal.SI_KERNEL})
			}
		}
		return 0
	case termios.TIOCGPGRP:
		if !core.WriteUser32(arg, core.ProcessID) {
			return abi.Neg(abi.EFAULT)
		}
		return 0
	case termios.TIOCSPGRP:
		pgrp, ok := core.ReadUser32(arg)
		switch {
		case !ok:
			return abi.Neg(abi.EFAULT)
		case int32(pgrp) < 0:
			return abi.Neg(abi.EINVAL)
		case pgrp != core.ProcessID:
			return abi.Neg(abi.ESRCH) // the one process is the one process group
		}
		return 0
	}
	return abi.Neg(abi.ENOTTY)
}
