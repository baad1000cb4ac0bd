// Command splice moves bytes between the guest's files, pipes and TCP connections the ways Go's
// io.Copy does (copy_file_range, splice, sendfile, or read and write where the kernel refuses
// them), and with the system calls themselves, and checks every byte: tests/vm's TestSplice
// drives it. Each line says what moved and how much; the last says "splice: ok".
package main

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"time"
	"unsafe"

	_ "github.com/unitrace/unitrace/kernel"
)

const size = 1 << 20

var failed bool

func check(what string, err error) {
	if err != nil {
		fmt.Printf("%s: %v\n", what, err)
		failed = true
	}
}

// payload is n bytes of a fixed pseudo-random sequence, different for each seed.
func payload(n int, seed uint32) []byte {
	b := make([]byte, n)
	x := seed*2654435761 + 1
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return b
}

func same(what string, got, want []byte) {
	if !bytes.Equal(got, want) {
		fmt.Printf("%s: %d bytes, sha256 %x; want %d bytes, sha256 %x\n", what, len(got), sha256.Sum256(got), len(want), sha256.Sum256(want))
		failed = true
		return
	}
	fmt.Printf("%s: %d bytes, sha256 ok\n", what, len(got))
}

func main() {
	networkCopies()
	fileCopies()
	pipeSplices()
	errorCases()
	if failed {
		fmt.Println("splice: FAIL")
		os.Exit(1)
	}
	fmt.Println("splice: ok")
}

// networkCopies: io.Copy from a connection into a file, from the file into a connection, and
// from one connection into another (a proxy), each over the guest's TCP sockets.
func networkCopies() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		check("listen", err)
		return
	}
	defer ln.Close()
	data := payload(size, 1)

	// A connection into a file.
	go func() {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			check("dial", err)
			return
		}
		c.Write(data)
		c.Close()
	}()
	c, err := ln.Accept()
	check("accept", err)
	f, err := os.Create("/tmp/conn.bin")
	check("create", err)
	_, err = io.Copy(f, c)
	check("conn to file", err)
	c.Close()
	f.Close()
	got, err := os.ReadFile("/tmp/conn.bin")
	check("read back", err)
	same("conn to file", got, data)

	// The file into a connection.
	done := make(chan []byte)
	go func() {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			check("dial", err)
			done <- nil
			return
		}
		b, err := io.ReadAll(c)
		check("read all", err)
		c.Close()
		done <- b
	}()
	c, err = ln.Accept()
	check("accept", err)
	f, err = os.Open("/tmp/conn.bin")
	check("open", err)
	_, err = io.Copy(c, f)
	check("file to conn", err)
	f.Close()
	c.Close()
	same("file to conn", <-done, data)

	// One connection into another: a client sends through a proxy to a server.
	data = payload(size, 2)
	back, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		check("listen", err)
		return
	}
	defer back.Close()
	go func() {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			check("dial", err)
			return
		}
		c.Write(data)
		c.Close()
	}()
	go func() {
		in, err := ln.Accept()
		if err != nil {
			check("accept", err)
			return
		}
		out, err := net.Dial("tcp", back.Addr().String())
		if err != nil {
			check("dial", err)
			in.Close()
			return
		}
		_, err = io.Copy(out, in)
		check("conn to conn", err)
		in.Close()
		out.Close()
	}()
	s, err := back.Accept()
	check("accept", err)
	got, err = io.ReadAll(s)
	check("read all", err)
	s.Close()
	same("conn to conn", got, data)

	// A blocking pipe into a connection with splice itself: the first call waits for the
	// pipe's writer, then sends.
	data = payload(200000, 5)
	var p [2]int
	check("pipe", syscall.Pipe2(p[:], syscall.O_CLOEXEC))
	go func() {
		time.Sleep(20 * time.Millisecond)
		for i := 0; i < len(data); i += 9000 {
			syscall.Write(p[1], data[i:min(i+9000, len(data))])
		}
		syscall.Close(p[1])
	}()
	go func() {
		c, err := net.Dial("tcp", back.Addr().String())
		if err != nil {
			check("dial", err)
			return
		}
		raw, _ := c.(*net.TCPConn).SyscallConn()
		raw.Write(func(fd uintptr) bool {
			for {
				n, err := syscall.Splice(p[0], nil, int(fd), nil, 65536, 0)
				if err == syscall.EAGAIN {
					return false // the socket is full: the netpoller waits for room
				}
				if err != nil {
					check("splice pipe to conn", err)
				}
				if n <= 0 {
					return true
				}
			}
		})
		syscall.Close(p[0])
		c.Close()
	}()
	s, err = back.Accept()
	check("accept", err)
	got, err = io.ReadAll(s)
	check("read all", err)
	s.Close()
	same("pipe to conn", got, data)
}

// fileCopies: io.Copy between two files (copy_file_range), and sendfile to a file and to the
// console-free /dev/null, with and without an offset.
func fileCopies() {
	data := payload(size+12345, 3)
	check("write", os.WriteFile("/tmp/src.bin", data, 0o644))
	src, err := os.Open("/tmp/src.bin")
	check("open", err)
	dst, err := os.Create("/tmp/dst.bin")
	check("create", err)
	_, err = io.Copy(dst, src)
	check("file to file", err)
	src.Close()
	dst.Close()
	got, _ := os.ReadFile("/tmp/dst.bin")
	same("file to file", got, data)

	in, _ := syscall.Open("/tmp/src.bin", syscall.O_RDONLY, 0)
	out, _ := syscall.Open("/tmp/sendfile.bin", syscall.O_WRONLY|syscall.O_CREAT|syscall.O_TRUNC, 0o644)
	off := int64(1000)
	total := 0
	for {
		n, err := syscall.Sendfile(out, in, &off, 100000)
		if err != nil {
			check("sendfile", err)
			break
		}
		if n == 0 {
			break
		}
		total += n
	}
	pos, _ := syscall.Seek(in, 0, io.SeekCurrent)
	syscall.Close(out)
	got, _ = os.ReadFile("/tmp/sendfile.bin")
	same("sendfile at an offset", got, data[1000:])
	fmt.Printf("sendfile: offset %d, position %d\n", off, pos)

	// copy_file_range with offsets, and within one file.
	out, _ = syscall.Open("/tmp/dst.bin", syscall.O_RDWR, 0)
	offIn, offOut := int64(10), int64(0)
	n, err := copyFileRange(in, &offIn, out, &offOut, 100, 0)
	check("copy_file_range", err)
	n2, err := copyFileRange(out, nil, out, &offOut, 50, 0) // from position 0 to 100: apart
	check("copy_file_range within a file", err)
	b := make([]byte, 150)
	syscall.Pread(out, b, 0)
	want := append(append([]byte{}, data[10:110]...), data[10:60]...)
	same(fmt.Sprintf("copy_file_range %d+%d, offsets %d %d", n, n2, offIn, offOut), b, want)
	syscall.Close(in)
	syscall.Close(out)
}

func copyFileRange(in int, offIn *int64, out int, offOut *int64, n int, flags int) (int, error) {
	r, _, e := syscall.Syscall6(sysCopyFileRange, uintptr(in), uintptr(unsafe.Pointer(offIn)),
		uintptr(out), uintptr(unsafe.Pointer(offOut)), uintptr(n), uintptr(flags))
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

// pipeSplices: a pipe into a file and a file into a pipe with splice, blocking on the pipe
// while a writer or reader catches up; sendfile into a pipe; tee.
func pipeSplices() {
	data := payload(300000, 4)
	var p [2]int
	check("pipe", syscall.Pipe2(p[:], syscall.O_CLOEXEC))
	go func() {
		for i := 0; i < len(data); i += 7000 {
			time.Sleep(time.Millisecond)
			syscall.Write(p[1], data[i:min(i+7000, len(data))])
		}
		syscall.Close(p[1])
	}()
	fd, _ := syscall.Open("/tmp/pipe.bin", syscall.O_RDWR|syscall.O_CREAT|syscall.O_TRUNC, 0o644)
	off := int64(0)
	for {
		n, err := syscall.Splice(p[0], nil, fd, &off, 65536, 0)
		if err != nil {
			check("splice pipe to file", err)
			break
		}
		if n == 0 {
			break
		}
	}
	syscall.Close(p[0])
	got, _ := os.ReadFile("/tmp/pipe.bin")
	same("pipe to file", got, data)
	pos, _ := syscall.Seek(fd, 0, io.SeekCurrent)
	fmt.Printf("pipe to file: offset %d, position %d\n", off, pos)

	// The file back into a pipe, at its position.
	check("pipe", syscall.Pipe2(p[:], syscall.O_CLOEXEC))
	done := make(chan []byte)
	go func() {
		var b []byte
		buf := make([]byte, 5000)
		for {
			time.Sleep(time.Millisecond)
			n, err := syscall.Read(p[0], buf)
			if n <= 0 || err != nil {
				break
			}
			b = append(b, buf[:n]...)
		}
		syscall.Close(p[0])
		done <- b
	}()
	syscall.Seek(fd, 0, io.SeekStart)
	for {
		n, err := syscall.Splice(fd, nil, p[1], nil, 100000, 0)
		if err != nil {
			check("splice file to pipe", err)
			break
		}
		if n == 0 {
			break
		}
	}
	syscall.Close(p[1])
	same("file to pipe", <-done, data)

	// sendfile into a pipe, and tee from it into another.
	var q [2]int
	check("pipe", syscall.Pipe2(p[:], syscall.O_CLOEXEC))
	check("pipe", syscall.Pipe2(q[:], syscall.O_CLOEXEC))
	soff := int64(100)
	n, err := syscall.Sendfile(p[1], fd, &soff, 4000)
	check("sendfile to pipe", err)
	t, err := syscall.Tee(p[0], q[1], 3000, 0)
	check("tee", err)
	a := make([]byte, 5000)
	na, _ := syscall.Read(p[0], a)
	b := make([]byte, 5000)
	nb, _ := syscall.Read(q[0], b)
	same(fmt.Sprintf("sendfile to pipe %d, offset %d", n, soff), a[:na], data[100:4100])
	same(fmt.Sprintf("tee %d", t), b[:nb], data[100:3100])
	// tee across the end of the pipe's ring: 60000 bytes in and out first, then 10000 that wrap.
	syscall.Write(p[1], make([]byte, 60000))
	syscall.Read(p[0], make([]byte, 60000))
	syscall.Write(p[1], data[:10000])
	t, err = syscall.Tee(p[0], q[1], 20000, 0)
	check("tee", err)
	nb, _ = syscall.Read(q[0], b[:cap(b)])
	c := make([]byte, 20000)
	nc, _ := syscall.Read(p[0], c)
	if nb != 5000 { // the rest is still in q
		fmt.Printf("tee across the ring: read %d of q\n", nb)
	}
	rest := make([]byte, 10000)
	nr, _ := syscall.Read(q[0], rest)
	same(fmt.Sprintf("tee across the ring %d", t), append(b[:nb:nb], rest[:nr]...), data[:10000])
	same("the bytes tee left", c[:nc], data[:10000])
	for _, x := range []int{p[0], p[1], q[0], q[1], fd} {
		syscall.Close(x)
	}
}

// errorCases: the errors Linux gives.
func errorCases() {
	var p [2]int
	syscall.Pipe2(p[:], syscall.O_CLOEXEC|syscall.O_NONBLOCK)
	a, _ := syscall.Open("/tmp/src.bin", syscall.O_RDONLY, 0)
	b, _ := syscall.Open("/tmp/dst.bin", syscall.O_RDWR, 0)
	app, _ := syscall.Open("/tmp/dst.bin", syscall.O_WRONLY|syscall.O_APPEND, 0)
	off := int64(0)
	errno := func(_ int64, err error) string {
		var e syscall.Errno
		if errors.As(err, &e) {
			return errnoName(e)
		}
		if err == nil {
			return "ok"
		}
		return err.Error()
	}
	n64 := func(n int, err error) (int64, error) { return int64(n), err }
	fmt.Println("errors:",
		"file to file", errno(syscall.Splice(a, nil, b, nil, 10, 0)),
		"| pipe offset", errno(syscall.Splice(p[0], &off, b, nil, 10, 0)),
		"| empty", errno(syscall.Splice(p[0], nil, b, nil, 10, 0)),
		"| to itself", errno(syscall.Splice(p[0], nil, p[1], nil, 10, 0)),
		"| append", errno(syscall.Splice(p[0], nil, app, nil, 10, 0)),
		"| flags", errno(syscall.Splice(p[0], nil, b, nil, 10, 0x10)),
		"| write end", errno(syscall.Splice(p[1], nil, b, nil, 10, 0)),
		"| sendfile from pipe", errno(n64(syscall.Sendfile(b, p[0], nil, 10))),
		"| copy flags", errno(n64(copyFileRange(a, nil, b, nil, 10, 1))),
		"| copy to append", errno(n64(copyFileRange(a, nil, app, nil, 10, 0))),
		"| copy from pipe", errno(n64(copyFileRange(p[0], nil, b, nil, 10, 0))),
		"| copy to /proc", errno(n64(copyFileRange(a, nil, mustOpen("/proc/self/comm", syscall.O_WRONLY), nil, 10, 0))),
		"| vmsplice", errno(vmsplice(p[1])))
}

func mustOpen(path string, mode int) int {
	fd, err := syscall.Open(path, mode, 0)
	if err != nil {
		return -1
	}
	return fd
}

func vmsplice(fd int) (int64, error) {
	b := []byte("x")
	iov := [2]uintptr{uintptr(unsafe.Pointer(&b[0])), 1}
	_, _, e := syscall.Syscall6(sysVmsplice, uintptr(fd), uintptr(unsafe.Pointer(&iov)), 1, 0, 0, 0)
	if e != 0 {
		return 0, e
	}
	return 0, nil
}

func errnoName(e syscall.Errno) string {
	for _, n := range []struct {
		e    syscall.Errno
		name string
	}{{syscall.EINVAL, "EINVAL"}, {syscall.ESPIPE, "ESPIPE"}, {syscall.EAGAIN, "EAGAIN"}, {syscall.EBADF, "EBADF"},
		{syscall.EXDEV, "EXDEV"}, {syscall.ENOSYS, "ENOSYS"}, {syscall.EISDIR, "EISDIR"}} {
		if e == n.e {
			return n.name
		}
	}
	return e.Error()
}
