package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

// pipes checks os.Pipe between goroutines: a write larger than the pipe's 64 KiB, so that the
// writer blocks until the reader drains it; a read that waits in the netpoller for its deadline
// (os.Pipe's ends are non-blocking and polled); end of file once the writer closed; EPIPE on a
// write after the reader closed (SIGPIPE, which the Go runtime ignores for descriptors other
// than 1 and 2); and the ends' fstat and fcntl.
func pipes(dir string) (string, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return "", err
	}
	defer r.Close()
	st, err := w.Stat()
	if err != nil {
		return "", err
	}
	fifo := st.Mode()&os.ModeNamedPipe != 0

	// A deadline with nothing written: the read waits in the netpoller and times out.
	r.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	_, err = r.Read(make([]byte, 1))
	timedOut := errors.Is(err, os.ErrDeadlineExceeded)
	r.SetReadDeadline(time.Time{})

	// 200 KiB through a 64 KiB pipe: the writer waits for the reader, then closes.
	want := bytes.Repeat([]byte("0123456789abcdef"), 200<<10/16)
	done := make(chan error, 1)
	go func() {
		_, err := w.Write(want)
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		done <- err
	}()
	r.SetReadDeadline(time.Now().Add(30 * time.Second))
	got, err := io.ReadAll(r) // to end of file, which the writer's close makes
	if err != nil {
		return "", fmt.Errorf("read: %v", err)
	}
	if err := <-done; err != nil {
		return "", fmt.Errorf("write: %v", err)
	}

	// A write with the reader gone.
	r2, w2, err := os.Pipe()
	if err != nil {
		return "", err
	}
	defer w2.Close()
	r2.Close()
	_, err = w2.Write([]byte("nobody reads this"))
	return fmt.Sprintf("fifo %v, read deadline exceeded %v, %d bytes through and EOF %v, write without a reader %s",
		fifo, timedOut, len(got), bytes.Equal(got, want), errnoName(err)), nil
}

// rawPipes checks pipe2 on its own, without the netpoller: O_NONBLOCK's EAGAIN on an empty
// pipe, PIPE_BUF's atomic writes once the pipe is nearly full, F_GETPIPE_SZ, dup, and a long
// write taking what fits.
func rawPipes(dir string) (string, error) {
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC|syscall.O_NONBLOCK); err != nil {
		return "", err
	}
	defer syscall.Close(p[0])
	defer syscall.Close(p[1])
	buf := make([]byte, 1<<20)
	_, empty := syscall.Read(p[0], buf)
	size, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(p[1]), 1032, 0) // F_GETPIPE_SZ
	if errno != 0 {
		return "", errno
	}
	n, err := syscall.Write(p[1], buf[:size-100])
	if err != nil {
		return "", err
	}
	_, atomic := syscall.Write(p[1], buf[:200]) // does not fit whole: nothing goes in
	d, err := syscall.Dup(p[0])
	if err != nil {
		return "", err
	}
	got, _ := syscall.Read(d, buf)
	syscall.Close(d)
	long, _ := syscall.Write(p[1], buf[:100000]) // more than fits: as much as fits
	_, full := syscall.Write(p[1], buf[:1])
	return fmt.Sprintf("empty read %s, size %d, filled %d, atomic write %s, read through a dup %d, long write took %d, then %s",
		errnoName(empty), size, n, errnoName(atomic), got, long, errnoName(full)), nil
}

// blockingPipes checks a pipe without O_NONBLOCK, outside the netpoller: a writer goroutine's
// write(2) of more than the pipe holds blocks until the reader's read(2)s drain it, a writev of
// two pieces arrives whole, and the reader sees end of file once the writer closed.
func blockingPipes(dir string) (string, error) {
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		return "", err
	}
	defer syscall.Close(p[0])
	want := bytes.Repeat([]byte("pipe"), 50000)
	done := make(chan error, 1)
	go func() {
		defer syscall.Close(p[1])
		for b := want; len(b) > 0; {
			n, err := syscall.Write(p[1], b)
			if err != nil {
				done <- err
				return
			}
			b = b[n:]
		}
		a, b := []byte("two "), []byte("pieces")
		iov := [2]syscall.Iovec{{Base: &a[0]}, {Base: &b[0]}}
		iov[0].SetLen(len(a))
		iov[1].SetLen(len(b))
		_, _, errno := syscall.Syscall(syscall.SYS_WRITEV, uintptr(p[1]), uintptr(unsafe.Pointer(&iov[0])), 2)
		if errno != 0 {
			done <- errno
			return
		}
		done <- nil
	}()
	var got []byte
	buf := make([]byte, 10000)
	reads := 0
	for {
		n, err := syscall.Read(p[0], buf)
		if err != nil {
			return "", fmt.Errorf("read: %v", err)
		}
		if n == 0 {
			break
		}
		reads++
		got = append(got, buf[:n]...)
	}
	if err := <-done; err != nil {
		return "", fmt.Errorf("write: %v", err)
	}
	tail := string(got[min(len(want), len(got)):])
	return fmt.Sprintf("%d bytes in order %v, then %q, then EOF, in more than one read %v",
		len(want), bytes.Equal(got[:min(len(want), len(got))], want), tail, reads > 1), nil
}

// noExec checks that a unitrace image cannot start a process: running an executable file fails
// (and the kernel says why on the console, which the VM test checks).
func noExec(dir string) (string, error) {
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(bin, "true"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		return "", err
	}
	old := os.Getenv("PATH")
	os.Setenv("PATH", bin)
	defer os.Setenv("PATH", old)
	err := exec.Command("true").Run()
	if err == nil {
		return "", errors.New(`exec.Command("true").Run() succeeded`)
	}
	return fmt.Sprintf(`exec.Command("true").Run(): %s`, strings.ReplaceAll(err.Error(), dir, "$DIR")), nil
}
