package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"unsafe"
)

// pointers passes the kernel bad pointers and overlong paths, through raw system calls: each
// must fail with EFAULT or ENAMETOOLONG, as on Linux, and never fault the kernel.
func pointers(dir string) (string, error) {
	const bad = uintptr(8) // in the unmapped page at 0
	fdcwd := -100
	_, _, openErr := syscall.Syscall6(syscall.SYS_OPENAT, uintptr(fdcwd), bad, 0, 0, 0, 0)
	fd, err := syscall.Open(filepath.Join(dir, "b.txt"), syscall.O_RDONLY, 0)
	if err != nil {
		return "", err
	}
	defer syscall.Close(fd)
	_, _, readErr := syscall.Syscall(syscall.SYS_READ, uintptr(fd), bad, 4)
	_, _, statErr := syscall.Syscall(syscall.SYS_FSTAT, uintptr(fd), bad, 0)

	// A path that ends at the end of a page, its NUL the page's last byte, with nothing readable
	// after it, is fine; one that runs on into the unreadable page is EFAULT.
	mem, err := syscall.Mmap(-1, 0, 2*4096, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return "", err
	}
	defer syscall.Munmap(mem)
	if err := syscall.Mprotect(mem[4096:], syscall.PROT_NONE); err != nil {
		return "", err
	}
	p := "/dev/null"
	copy(mem[4096-len(p)-1:], p+"\x00")
	edge := uintptr(unsafe.Pointer(&mem[4096-len(p)-1]))
	r, _, edgeErr := syscall.Syscall6(syscall.SYS_OPENAT, uintptr(fdcwd), edge, 0, 0, 0, 0)
	if edgeErr == 0 {
		syscall.Close(int(r))
	}
	mem[4095] = 'x'
	_, _, overErr := syscall.Syscall6(syscall.SYS_OPENAT, uintptr(fdcwd), edge, 0, 0, 0, 0)

	long := "/" + strings.Repeat("a/", 2048) // 4097 bytes: PATH_MAX counts the NUL
	var st syscall.Stat_t
	longErr := syscall.Stat(long, &st)
	return fmt.Sprintf("bad path %s, bad buffer %s, bad stat buffer %s, path at a page's end %s, past it %s, %d-byte path %s",
		errnoName(errOrNil(openErr)), errnoName(errOrNil(readErr)), errnoName(errOrNil(statErr)), errnoName(errOrNil(edgeErr)),
		errnoName(errOrNil(overErr)), len(long), errnoName(longErr)), nil
}

func errOrNil(e syscall.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}
