package main

import (
	"os"
	"syscall"
	"unsafe"
)

// saveTerminal records the terminal settings of f, if it is a terminal, and
// returns a function that puts them back. QEMU switches the terminal to raw
// mode for -serial stdio and restores it when it exits by itself; when it is
// killed (timeout, crash) the launcher has to do it.
func saveTerminal(f *os.File) (restore func()) {
	var t syscall.Termios
	if ioctl(f.Fd(), syscall.TCGETS, &t) != nil {
		return func() {}
	}
	return func() { ioctl(f.Fd(), syscall.TCSETS, &t) }
}

func ioctl(fd uintptr, req uint, t *syscall.Termios) error {
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, uintptr(req), uintptr(unsafe.Pointer(t))); errno != 0 {
		return errno
	}
	return nil
}
