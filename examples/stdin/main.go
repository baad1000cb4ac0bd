// Command stdin reads the console, its standard input: the bytes typed into QEMU's serial line.
// tests/vm's TestConsoleInput drives it; it prints a prompt line before each step and the test
// answers on the serial line:
//
//   - "stdin: nonblock": with nothing typed, a non-blocking read is EAGAIN and epoll reports
//     nothing;
//   - "stdin: lines": blocking reads, begun before the test types anything, of two lines,
//     each printed back as "got: LINE"; a signal the reading thread takes while it waits
//     restarts the read (the runtime's handlers are SA_RESTART) and loses nothing;
//   - "stdin: poll": epoll (edge-triggered) waits for input, then readv reads the line into
//     two buffers;
//   - "stdin: big": the program sleeps while the test types more than the kernel's ring holds
//     (the UART's receive interrupt goes off, QEMU stops taking the host's input), then reads it
//     all in 4 KiB reads and checks every byte.
//
// With the argument "eof" it reads its standard input to the end instead, as a program given a
// pipe or a file does: unitrace run feeds it the launcher's own standard input and says where it
// ends (TestLauncherStdin). It sleeps a moment first, so that an input larger than the kernel's
// ring fills it and the launcher's bytes wait (flow control), then prints the bytes' count and
// SHA-256, what reads after the end give (0, blocking or not) and whether epoll reports the
// console readable there.
package main

import (
	"bufio"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	_ "github.com/unitrace/unitrace/kernel"
)

// BigSize is how many bytes the big step reads: twice the kernel's ring.
const BigSize = 8192

// epollET is EPOLLET as the uint32 that epoll_event holds (package syscall's is negative).
const epollET = 1 << 31

func main() {
	if len(os.Args) > 1 && os.Args[1] == "eof" {
		readToEOF()
		return
	}
	fmt.Println("stdin: nonblock")
	if err := syscall.SetNonblock(0, true); err != nil {
		fail("set O_NONBLOCK", err)
	}
	var b [16]byte
	n, err := syscall.Read(0, b[:])
	fmt.Printf("nonblocking read: %d %v\n", max(n, 0), err)
	if err := syscall.SetNonblock(0, false); err != nil {
		fail("clear O_NONBLOCK", err)
	}
	ep, err := syscall.EpollCreate1(0)
	if err != nil {
		fail("epoll_create1", err)
	}
	if err := syscall.EpollCtl(ep, syscall.EPOLL_CTL_ADD, 0, &syscall.EpollEvent{Events: syscall.EPOLLIN | epollET, Fd: 0}); err != nil {
		fail("epoll_ctl", err)
	}
	var evs [4]syscall.EpollEvent
	n, err = syscall.EpollWait(ep, evs[:], 0)
	fmt.Printf("epoll before input: %d %v\n", n, err)

	in := bufio.NewReader(os.Stdin)
	var signals atomic.Int32
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGUSR1)
	go func() {
		for range sigs {
			signals.Add(1)
		}
	}()
	// Signal this thread while its read waits (the test types a second after the prompt).
	runtime.LockOSThread()
	tid := syscall.Gettid()
	go func() {
		time.Sleep(300 * time.Millisecond)
		syscall.Tgkill(os.Getpid(), tid, syscall.SIGUSR1)
	}()
	fmt.Println("stdin: lines")
	for range 2 {
		fmt.Printf("got: %s\n", readLine(in))
	}
	runtime.UnlockOSThread()
	fmt.Printf("signals during the read: %d\n", signals.Load())

	fmt.Println("stdin: poll")
	for {
		n, err = syscall.EpollWait(ep, evs[:], -1)
		if err != syscall.EINTR {
			break
		}
	}
	if n != 1 || evs[0].Events&syscall.EPOLLIN == 0 {
		fail("epoll_wait", fmt.Errorf("%d events %+v, %v", n, evs[0], err))
	}
	fmt.Println("epoll: EPOLLIN")
	var head [4]byte
	var tail [16]byte
	iov := [2]syscall.Iovec{{Base: &head[0]}, {Base: &tail[0]}}
	iov[0].SetLen(len(head))
	iov[1].SetLen(len(tail))
	r, _, errno := syscall.Syscall(syscall.SYS_READV, 0, uintptr(unsafe.Pointer(&iov[0])), uintptr(len(iov)))
	if errno != 0 || r == 0 {
		fail("readv", fmt.Errorf("%d bytes, %v", r, errno))
	}
	// A read returns what has come, which may be part of the line (the PL011 interrupts for
	// each byte): read the rest of it.
	line := string(head[:min(r, uintptr(len(head)))])
	if r > uintptr(len(head)) {
		line += string(tail[:r-uintptr(len(head))])
	}
	if !strings.HasSuffix(line, "\n") {
		line += readLine(in) + "\n"
	}
	fmt.Printf("readv: %q\n", line)

	fmt.Println("stdin: big")
	time.Sleep(2 * time.Second) // the test types on meanwhile: the ring fills, then the UART
	buf := make([]byte, 4096)
	got, reads := 0, 0
	for got < BigSize {
		n, err := os.Stdin.Read(buf)
		if err != nil {
			fail("read", err)
		}
		for i, c := range buf[:n] {
			if want := byte('a' + (got+i)%26); c != want {
				fail("big", fmt.Errorf("byte %d is %q, want %q", got+i, c, want))
			}
		}
		got += n
		reads++
	}
	fmt.Printf("big: %d bytes in order (%d reads)\n", got, reads)
	fmt.Println("stdin: done")
}

// readToEOF reads the standard input to its end, then reads again and polls at the end.
func readToEOF() {
	time.Sleep(300 * time.Millisecond) // the ring (4 KiB) fills in about 40 ms under TCG
	h := sha256.New()
	n, err := io.Copy(h, os.Stdin)
	if err != nil {
		fail("read to the end", err)
	}
	fmt.Printf("eof: %d bytes, sha256 %x\n", n, h.Sum(nil))
	var b [16]byte
	for range 2 {
		k, err := syscall.Read(0, b[:])
		fmt.Printf("read after the end: %d %v\n", k, err)
	}
	if err := syscall.SetNonblock(0, true); err != nil {
		fail("set O_NONBLOCK", err)
	}
	k, err := syscall.Read(0, b[:])
	fmt.Printf("nonblocking read after the end: %d %v\n", k, err)
	ep, err := syscall.EpollCreate1(0)
	if err != nil {
		fail("epoll_create1", err)
	}
	if err := syscall.EpollCtl(ep, syscall.EPOLL_CTL_ADD, 0, &syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: 0}); err != nil {
		fail("epoll_ctl", err)
	}
	var evs [4]syscall.EpollEvent
	k, err = syscall.EpollWait(ep, evs[:], 0)
	fmt.Printf("epoll at the end: %d events, EPOLLIN %v, EPOLLHUP %v, %v\n", k,
		evs[0].Events&syscall.EPOLLIN != 0, evs[0].Events&syscall.EPOLLHUP != 0, err)
}

// readLine reads one line through in, without its newline.
func readLine(in *bufio.Reader) string {
	s, err := in.ReadString('\n')
	if err != nil {
		fail("read line", err)
	}
	return s[:len(s)-1]
}

func fail(what string, err error) {
	fmt.Printf("stdin: %s: %v\n", what, err)
	os.Exit(1)
}
