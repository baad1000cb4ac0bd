package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

// The calls below the os package that Linux programs use on files, memory and socket pairs:
// named FIFOs, file locks, extended attributes, mremap and msync, and ancillary data. Each
// check's line is the same on Linux.

func errnoIs(err error, e syscall.Errno) bool { return errors.Is(err, e) }

// The lines of the fifos and xattrs checks on a file system that has neither, as a unitrace
// shared directory (9P) answers mknod of a FIFO (EPERM) and setxattr (EOPNOTSUPP); on Linux's
// own file systems, and on memfs, they never show.
const (
	noFIFOs  = "mkfifo EPERM: the file system makes no FIFOs"
	noXattrs = "setxattr EOPNOTSUPP: the file system keeps no extended attributes"
)

// fifos checks a named FIFO: a non-blocking writer without a reader is ENXIO, a blocking reader
// waits for a writer, bytes pass, fstat says FIFO, the writer's close is end of file, and
// O_RDWR opens at once.
func fifos(dir string) (string, error) {
	name := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(name, 0o644); errnoIs(err, syscall.EPERM) {
		return noFIFOs, nil // a file system that makes no FIFOs: unitrace's shared directories
	} else if err != nil {
		return "", err
	}
	if _, err := syscall.Open(name, syscall.O_WRONLY|syscall.O_NONBLOCK, 0); !errnoIs(err, syscall.ENXIO) {
		return "", fmt.Errorf("O_WRONLY|O_NONBLOCK without a reader: %v, want ENXIO", err)
	}
	opened := make(chan int, 1)
	go func() {
		time.Sleep(20 * time.Millisecond)
		w, err := syscall.Open(name, syscall.O_WRONLY, 0)
		if err != nil {
			w = -1
		}
		opened <- w
	}()
	r, err := syscall.Open(name, syscall.O_RDONLY, 0) // waits for the writer
	if err != nil {
		return "", err
	}
	defer syscall.Close(r)
	w := <-opened
	if w < 0 {
		return "", errors.New("the writer's open failed")
	}
	syscall.Write(w, []byte("through"))
	buf := make([]byte, 16)
	n, _ := syscall.Read(r, buf)
	got := string(buf[:n])
	var st syscall.Stat_t
	syscall.Fstat(r, &st)
	syscall.Close(w)
	eof, _ := syscall.Read(r, buf)
	rw, err := syscall.Open(name, syscall.O_RDWR|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", fmt.Errorf("O_RDWR: %v", err)
	}
	syscall.Write(rw, []byte("x"))
	n2, _ := syscall.Read(rw, buf)
	syscall.Close(rw)
	return fmt.Sprintf("ENXIO without a reader, %q passed, fifo %v, end of file %v, O_RDWR reads itself %v",
		got, st.Mode&syscall.S_IFMT == syscall.S_IFIFO, eof == 0, n2 == 1), nil
}

// F_OFD_GETLK and F_OFD_SETLK (linux/fcntl.h): the syscall package has no names for them.
const (
	fOFDGetlk = 36
	fOFDSetlk = 37
)

// locks checks flock and fcntl's record locks between two open file descriptions of one file.
func locks(dir string) (string, error) {
	name := filepath.Join(dir, "locked")
	if err := os.WriteFile(name, make([]byte, 100), 0o644); err != nil {
		return "", err
	}
	a, err := syscall.Open(name, syscall.O_RDWR, 0)
	if err != nil {
		return "", err
	}
	defer syscall.Close(a)
	b, err := syscall.Open(name, syscall.O_RDWR, 0)
	if err != nil {
		return "", err
	}
	defer syscall.Close(b)
	ro, err := syscall.Open(name, syscall.O_RDONLY, 0)
	if err != nil {
		return "", err
	}
	defer syscall.Close(ro)
	var out []string
	note := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }

	e1 := syscall.Flock(a, syscall.LOCK_EX|syscall.LOCK_NB)
	e2 := syscall.Flock(b, syscall.LOCK_EX|syscall.LOCK_NB)
	syscall.Flock(a, syscall.LOCK_UN)
	e3 := syscall.Flock(b, syscall.LOCK_SH|syscall.LOCK_NB)
	note("flock %v/%v/%v", e1 == nil, errnoIs(e2, syscall.EWOULDBLOCK), e3 == nil)

	lk := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: 0, Start: 0, Len: 10}
	e1 = syscall.FcntlFlock(uintptr(a), syscall.F_SETLK, &lk)
	q := syscall.Flock_t{Type: syscall.F_WRLCK, Start: 5, Len: 1}
	e2 = syscall.FcntlFlock(uintptr(b), syscall.F_GETLK, &q)
	note("posix %v, own lock unseen %v", e1 == nil, e2 == nil && q.Type == syscall.F_UNLCK)
	lk.Type = syscall.F_UNLCK
	syscall.FcntlFlock(uintptr(a), syscall.F_SETLK, &lk)

	lk = syscall.Flock_t{Type: syscall.F_WRLCK, Start: 0, Len: 10}
	e1 = syscall.FcntlFlock(uintptr(a), fOFDSetlk, &lk)
	q = syscall.Flock_t{Type: syscall.F_RDLCK, Start: 5, Len: 1}
	e2 = syscall.FcntlFlock(uintptr(b), fOFDGetlk, &q)
	try := syscall.Flock_t{Type: syscall.F_RDLCK, Start: 9, Len: 5}
	e3 = syscall.FcntlFlock(uintptr(b), fOFDSetlk, &try)
	note("ofd %v, conflict %v %d+%d pid %d, EAGAIN %v", e1 == nil, e2 == nil && q.Type == syscall.F_WRLCK, q.Start, q.Len, q.Pid, errnoIs(e3, syscall.EAGAIN))
	syscall.Close(a) // the description's last close drops its OFD lock
	a = -1
	e1 = syscall.FcntlFlock(uintptr(b), fOFDSetlk, &try)
	note("after close %v", e1 == nil)

	wl := syscall.Flock_t{Type: syscall.F_WRLCK, Len: 1}
	bad := syscall.Flock_t{Type: 7, Len: 1}
	note("EBADF %v, EINVAL %v", errnoIs(syscall.FcntlFlock(uintptr(ro), syscall.F_SETLK, &wl), syscall.EBADF),
		errnoIs(syscall.FcntlFlock(uintptr(b), syscall.F_SETLK, &bad), syscall.EINVAL))
	return strings.Join(out, "; "), nil
}

// xattrs checks user.* extended attributes on a file and a symbolic link.
func xattrs(dir string) (string, error) {
	name := filepath.Join(dir, "attrs")
	if err := os.WriteFile(name, nil, 0o644); err != nil {
		return "", err
	}
	var out []string
	note := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	if err := syscall.Setxattr(name, "user.a", []byte("one"), 0); errnoIs(err, syscall.EOPNOTSUPP) {
		return noXattrs, nil // a file system that keeps none: unitrace's shared directories
	} else if err != nil {
		return "", fmt.Errorf("setxattr: %v", err)
	}
	syscall.Setxattr(name, "user.b", nil, 0)
	size, _ := syscall.Getxattr(name, "user.a", nil)
	buf := make([]byte, 16)
	n, _ := syscall.Getxattr(name, "user.a", buf)
	_, eRange := syscall.Getxattr(name, "user.a", buf[:1])
	note("value %q size %d, ERANGE %v", buf[:n], size, errnoIs(eRange, syscall.ERANGE))
	note("EEXIST %v, ENODATA %v",
		errnoIs(syscall.Setxattr(name, "user.a", nil, 1 /* XATTR_CREATE */), syscall.EEXIST),
		errnoIs(syscall.Setxattr(name, "user.c", nil, 2 /* XATTR_REPLACE */), syscall.ENODATA))
	ln, _ := syscall.Listxattr(name, nil)
	list := make([]byte, ln)
	syscall.Listxattr(name, list)
	users := 0
	for _, s := range bytes.Split(bytes.TrimSuffix(list, []byte{0}), []byte{0}) {
		if bytes.HasPrefix(s, []byte("user.")) {
			users++
		}
	}
	note("user names listed %d", users)
	e1 := syscall.Removexattr(name, "user.a")
	_, e2 := syscall.Getxattr(name, "user.a", buf)
	note("removed %v, then ENODATA %v", e1 == nil, errnoIs(e2, syscall.ENODATA))
	note("EINVAL %v, EOPNOTSUPP %v", errnoIs(syscall.Setxattr(name, "user.", nil, 0), syscall.EINVAL),
		errnoIs(syscall.Setxattr(name, "nonamespace", nil, 0), syscall.EOPNOTSUPP))
	link := filepath.Join(dir, "attrlink")
	os.Symlink("attrs", link)
	_, _, e := syscall.Syscall6(syscall.SYS_LSETXATTR, uintptr(unsafe.Pointer(bytePtr(link))), uintptr(unsafe.Pointer(bytePtr("user.x"))), 0, 0, 0, 0)
	note("link EPERM %v", e == syscall.EPERM)
	return strings.Join(out, "; "), nil
}

func bytePtr(s string) *byte {
	p, _ := syscall.BytePtrFromString(s)
	return p
}

// mremap flags (linux/mman.h).
const (
	mremapMaymove = 1
	mremapFixed   = 2
)

// remaps checks mremap and msync on anonymous memory.
func remaps(dir string) (string, error) {
	pg := os.Getpagesize()
	b, err := syscall.Mmap(-1, 0, pg, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return "", err
	}
	b[0] = 42
	addr := uintptr(unsafe.Pointer(&b[0]))
	_, _, e := syscall.Syscall6(syscall.SYS_MSYNC, addr, uintptr(pg), syscall.MS_SYNC, 0, 0, 0)
	_, _, eBoth := syscall.Syscall6(syscall.SYS_MSYNC, addr, uintptr(pg), syscall.MS_SYNC|syscall.MS_ASYNC, 0, 0, 0)
	na, _, e2 := syscall.Syscall6(syscall.SYS_MREMAP, addr, uintptr(pg), uintptr(3*pg), mremapMaymove, 0, 0)
	if e2 != 0 {
		return "", fmt.Errorf("mremap: %v", e2)
	}
	nb := unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(&b[0]), int(na)-int(addr))), 3*pg) // mmap'ed memory: no Go object
	kept := nb[0] == 42
	nb[3*pg-1] = 1
	_, _, eFixed := syscall.Syscall6(syscall.SYS_MREMAP, na, uintptr(pg), uintptr(pg), mremapFixed, 0, 0)
	syscall.Syscall(syscall.SYS_MUNMAP, na, uintptr(3*pg), 0)
	_, _, eGone := syscall.Syscall6(syscall.SYS_MSYNC, na, uintptr(pg), syscall.MS_SYNC, 0, 0, 0)
	return fmt.Sprintf("msync %v, both EINVAL %v, grown keeps %v, FIXED alone EINVAL %v, unmapped ENOMEM %v",
		e == 0, eBoth == syscall.EINVAL, kept, eFixed == syscall.EINVAL, eGone == syscall.ENOMEM), nil
}

// scm checks a datagram socket pair carrying SCM_CREDENTIALS and SCM_RIGHTS, and a message of
// no bytes.
func scm(dir string) (string, error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_DGRAM, 0)
	if err != nil {
		return "", err
	}
	defer syscall.Close(fds[0])
	defer syscall.Close(fds[1])
	if err := syscall.SetsockoptInt(fds[0], syscall.SOL_SOCKET, syscall.SO_PASSCRED, 1); err != nil {
		return "", err
	}
	name := filepath.Join(dir, "passed")
	os.WriteFile(name, []byte("passed along"), 0o644)
	f, err := os.Open(name)
	if err != nil {
		return "", err
	}
	oob := append(syscall.UnixCredentials(&syscall.Ucred{Pid: int32(os.Getpid())}), syscall.UnixRights(int(f.Fd()))...)
	if err := syscall.Sendmsg(fds[1], []byte("datagram"), oob, nil, 0); err != nil {
		return "", fmt.Errorf("sendmsg: %v", err)
	}
	f.Close() // in flight, it stays open
	syscall.Sendmsg(fds[1], nil, nil, nil, 0)
	buf, ctl := make([]byte, 4), make([]byte, 256)
	n, cn, flags, _, err := syscall.Recvmsg(fds[0], buf, ctl, 0)
	if err != nil {
		return "", fmt.Errorf("recvmsg: %v", err)
	}
	msgs, _ := syscall.ParseSocketControlMessage(ctl[:cn])
	credsOK, content := false, ""
	for _, m := range msgs {
		if c, err := syscall.ParseUnixCredentials(&m); err == nil {
			credsOK = c.Pid == int32(os.Getpid())
		}
		if r, err := syscall.ParseUnixRights(&m); err == nil && len(r) == 1 {
			b := make([]byte, 32)
			k, _ := syscall.Read(r[0], b)
			content = string(b[:k])
			syscall.Close(r[0])
		}
	}
	n2, cn2, _, _, err2 := syscall.Recvmsg(fds[0], buf, ctl, 0)
	return fmt.Sprintf("%q truncated %v, %d messages, creds %v, passed file reads %q, empty datagram %v %v",
		buf[:n], flags&syscall.MSG_TRUNC != 0, len(msgs), credsOK, content, n2 == 0 && err2 == nil, cn2 > 0), nil
}
