package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

// inGuest reports whether the program runs on unitrace (its uname release says so), where the
// standard streams are the console, a terminal.
func inGuest() bool {
	var u unix.Utsname
	return unix.Uname(&u) == nil && strings.Contains(unix.ByteSliceToString(u.Release[:]), "unitrace")
}

// The generic ioctls (include/uapi/asm-generic/ioctls.h), which x/sys/unix does not name;
// FIONREAD is its TIOCINQ.
const (
	fionbio  = 0x5421
	fionclex = 0x5450
	fioclex  = 0x5451
)

func ioctl(fd int, req uint, arg unsafe.Pointer) error {
	_, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(arg))
	if e != 0 {
		return e
	}
	return nil
}

// checkTerm: on unitrace stdin and stdout are terminals (x/term.IsTerminal's TCGETS), with the
// console's raw settings; MakeRaw changes nothing that matters and Restore succeeds; the window
// size reads zeros, then what TIOCSWINSZ set (and SIGWINCH comes); the foreground process group
// is the process. A pipe is no terminal: ENOTTY.
func checkTerm() (string, error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return "", err
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	if term.IsTerminal(p[0]) {
		return "", fmt.Errorf("a pipe is a terminal")
	}
	if _, err := unix.IoctlGetTermios(p[0], unix.TCGETS); !errors.Is(err, unix.ENOTTY) {
		return "", fmt.Errorf("TCGETS on a pipe: %v, want ENOTTY", err)
	}
	if _, err := unix.IoctlGetWinsize(p[0], unix.TIOCGWINSZ); !errors.Is(err, unix.ENOTTY) {
		return "", fmt.Errorf("TIOCGWINSZ on a pipe: %v, want ENOTTY", err)
	}
	if err := ioctl(p[0], 0x1234, nil); !errors.Is(err, unix.ENOTTY) {
		return "", fmt.Errorf("an unknown request on a pipe: %v, want ENOTTY", err)
	}
	if err := ioctl(999, unix.TCGETS, nil); !errors.Is(err, unix.EBADF) {
		return "", fmt.Errorf("TCGETS on a closed descriptor: %v, want EBADF", err)
	}
	in, out := term.IsTerminal(0), term.IsTerminal(1)
	if !inGuest() {
		return fmt.Sprintf("host: stdin terminal=%v stdout terminal=%v", in, out), nil
	}
	if !in || !out {
		return "", fmt.Errorf("stdin terminal=%v, stdout terminal=%v: the console is one", in, out)
	}
	tio, err := unix.IoctlGetTermios(1, unix.TCGETS)
	if err != nil {
		return "", err
	}
	if tio.Lflag&(unix.ICANON|unix.ECHO|unix.ISIG) != 0 || tio.Cflag&unix.CBAUD != unix.B115200 || tio.Cflag&unix.CSIZE != unix.CS8 || tio.Oflag&unix.ONLCR == 0 {
		return "", fmt.Errorf("the console's termios %+v: want raw, 115200 8N1, ONLCR", tio)
	}
	old, err := term.MakeRaw(0)
	if err != nil {
		return "", fmt.Errorf("MakeRaw: %v", err)
	}
	if err := term.Restore(0, old); err != nil {
		return "", fmt.Errorf("Restore: %v", err)
	}
	if err := unix.IoctlSetTermios(0, unix.TCSETSF, tio); err != nil {
		return "", fmt.Errorf("TCSETSF: %v", err)
	}
	if err := unix.IoctlSetPointerInt(0, unix.TIOCSPGRP, 12345); !errors.Is(err, unix.ESRCH) {
		return "", fmt.Errorf("TIOCSPGRP of another group: %v, want ESRCH", err)
	}
	pgrp, err := unix.IoctlGetInt(0, unix.TIOCGPGRP)
	if err != nil || pgrp != os.Getpid() {
		return "", fmt.Errorf("TIOCGPGRP: %d %v, want the pid", pgrp, err)
	}
	if err := unix.IoctlSetPointerInt(0, unix.TIOCSPGRP, pgrp); err != nil {
		return "", fmt.Errorf("TIOCSPGRP of its own group: %v", err)
	}
	w0, err := unix.IoctlGetWinsize(1, unix.TIOCGWINSZ)
	if err != nil {
		return "", err
	}
	winch := make(chan os.Signal, 1)
	notifySignal(winch, syscall.SIGWINCH)
	defer stopSignal(winch)
	if err := unix.IoctlSetWinsize(1, unix.TIOCSWINSZ, &unix.Winsize{Row: 40, Col: 132}); err != nil {
		return "", err
	}
	w, err := unix.IoctlGetWinsize(0, unix.TIOCGWINSZ)
	if err != nil || w.Row != 40 || w.Col != 132 {
		return "", fmt.Errorf("the size set: %+v %v", w, err)
	}
	width, height, err := term.GetSize(1)
	if err != nil || width != 132 || height != 40 {
		return "", fmt.Errorf("term.GetSize: %d×%d %v", width, height, err)
	}
	if err := waitSignal(winch); err != nil {
		return "", fmt.Errorf("SIGWINCH: %v", err)
	}
	return fmt.Sprintf("stdin and stdout terminals, iflag=%#o oflag=%#o cflag=%#o lflag=%#o, size %d×%d then 132×40", tio.Iflag, tio.Oflag, tio.Cflag, tio.Lflag, w0.Col, w0.Row), nil
}

// checkFIONREAD: a pipe's and a socket pair's buffered bytes; a file's size less its position
// (negative past the end); a directory ENOTTY. FIONBIO sets O_NONBLOCK, FIOCLEX FD_CLOEXEC.
func checkFIONREAD() (string, error) {
	var p [2]int
	if err := unix.Pipe(p[:]); err != nil {
		return "", err
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	unix.Write(p[1], []byte("hello"))
	for _, fd := range p {
		if n, err := unix.IoctlGetInt(fd, unix.TIOCINQ); err != nil || n != 5 {
			return "", fmt.Errorf("FIONREAD of pipe end %d: %d %v, want 5", fd, n, err)
		}
	}
	sp, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		return "", err
	}
	defer unix.Close(sp[0])
	defer unix.Close(sp[1])
	unix.Write(sp[0], []byte("abc"))
	if n, err := unix.IoctlGetInt(sp[1], unix.TIOCINQ); err != nil || n != 3 {
		return "", fmt.Errorf("FIONREAD of a socket pair: %d %v, want 3", n, err)
	}
	f, err := os.CreateTemp("", "fionread")
	if err != nil {
		return "", err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	f.Write(make([]byte, 100))
	f.Seek(30, 0)
	fd := int(f.Fd())
	if n, err := unix.IoctlGetInt(fd, unix.TIOCINQ); err != nil || n != 70 {
		return "", fmt.Errorf("FIONREAD of a file at 30 of 100: %d %v, want 70", n, err)
	}
	f.Seek(300, 0)
	if n, err := unix.IoctlGetInt(fd, unix.TIOCINQ); err != nil || int32(n) != -200 {
		return "", fmt.Errorf("FIONREAD of a file past its end: %d %v, want -200", n, err)
	}
	if err := ioctl(fd, unix.TIOCINQ, nil); !errors.Is(err, unix.EFAULT) {
		return "", fmt.Errorf("FIONREAD to NULL: %v, want EFAULT", err)
	}
	d, err := os.Open(os.TempDir())
	if err != nil {
		return "", err
	}
	defer d.Close()
	if _, err := unix.IoctlGetInt(int(d.Fd()), unix.TIOCINQ); !errors.Is(err, unix.ENOTTY) {
		return "", fmt.Errorf("FIONREAD of a directory: %v, want ENOTTY", err)
	}
	one := int32(1)
	if err := ioctl(p[0], fionbio, unsafe.Pointer(&one)); err != nil {
		return "", err
	}
	if fl, _ := unix.FcntlInt(uintptr(p[0]), unix.F_GETFL, 0); fl&unix.O_NONBLOCK == 0 {
		return "", fmt.Errorf("FIONBIO did not set O_NONBLOCK: %#x", fl)
	}
	if err := ioctl(p[0], fioclex, nil); err != nil {
		return "", err
	}
	if fl, _ := unix.FcntlInt(uintptr(p[0]), unix.F_GETFD, 0); fl != unix.FD_CLOEXEC {
		return "", fmt.Errorf("FIOCLEX: F_GETFD %d", fl)
	}
	if err := ioctl(p[0], fionclex, nil); err != nil {
		return "", err
	}
	if fl, _ := unix.FcntlInt(uintptr(p[0]), unix.F_GETFD, 0); fl != 0 {
		return "", fmt.Errorf("FIONCLEX: F_GETFD %d", fl)
	}
	sock, err := tcpFIONREAD()
	if err != nil {
		return "", err
	}
	return "pipe 5, socket pair 3, file 70 and -200, directory ENOTTY, " + sock + "; FIONBIO, FIOCLEX, FIONCLEX", nil
}

// tcpFIONREAD connects to a listener on the loopback address, sends 7 bytes, and waits until
// FIONREAD on the accepted socket says 7. Without sockets (a guest booted without the
// launcher's network port: EAFNOSUPPORT) it says so.
func tcpFIONREAD() (string, error) {
	ln, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if errors.Is(err, unix.EAFNOSUPPORT) {
		return "no sockets", nil
	}
	if err != nil {
		return "", err
	}
	defer unix.Close(ln)
	if err := unix.Bind(ln, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		return "", err
	}
	if err := unix.Listen(ln, 1); err != nil {
		return "", err
	}
	sa, err := unix.Getsockname(ln)
	if err != nil {
		return "", err
	}
	c, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return "", err
	}
	defer unix.Close(c)
	if err := unix.Connect(c, sa); err != nil {
		return "", err
	}
	s, _, err := unix.Accept4(ln, unix.SOCK_CLOEXEC)
	if err != nil {
		return "", err
	}
	defer unix.Close(s)
	if n, err := unix.IoctlGetInt(s, unix.TIOCINQ); err != nil || n != 0 {
		return "", fmt.Errorf("FIONREAD of a socket with nothing sent: %d %v", n, err)
	}
	unix.Write(c, []byte("1234567"))
	fds := []unix.PollFd{{Fd: int32(s), Events: unix.POLLIN}}
	if n, err := retryEINTR(func() (int, error) { return unix.Poll(fds, 5000) }); n != 1 || err != nil {
		return "", fmt.Errorf("poll of a socket sent 7 bytes: %d %v", n, err)
	}
	for i := 0; ; i++ { // the bytes may reach the host socket's buffer one segment at a time
		n, err := unix.IoctlGetInt(s, unix.TIOCINQ)
		if err != nil {
			return "", fmt.Errorf("FIONREAD of a socket: %v", err)
		}
		if n == 7 {
			break
		}
		if i == 100 || n > 7 {
			return "", fmt.Errorf("FIONREAD of a socket sent 7 bytes: %d", n)
		}
		unix.Nanosleep(&unix.Timespec{Nsec: 1e6}, nil)
	}
	return "socket 7", nil
}
