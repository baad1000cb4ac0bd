package main

import (
	"errors"
	"fmt"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Linux's values that x/sys does not name (include/uapi/linux/shm.h).
const (
	shmRemap = 0o40000
	shmDest  = 0o1000
)

// checkShm: System V shared memory. Two attachments of one segment see each other's writes; the
// segment's pages survive mprotect PROT_NONE and MADV_DONTNEED of a mapping and a munmap of
// another; IPC_STAT counts the mappings; IPC_RMID while mapped keeps the segment until its last
// mapping goes, then its identifier is refused; bad input gets Linux's errors.
func checkShm() (string, error) {
	id, err := unix.SysvShmGet(unix.IPC_PRIVATE, 3*4096+100, unix.IPC_CREAT|unix.IPC_EXCL|0o600)
	if err != nil {
		return "", fmt.Errorf("shmget: %v", err)
	}
	removed := false
	defer func() {
		if !removed {
			unix.SysvShmCtl(id, unix.IPC_RMID, nil)
		}
	}()
	a, err := unix.SysvShmAttach(id, 0, 0)
	if err != nil {
		return "", fmt.Errorf("shmat: %v", err)
	}
	b, err := unix.SysvShmAttach(id, 0, 0)
	if err != nil {
		return "", fmt.Errorf("second shmat: %v", err)
	}
	if len(a) != 3*4096+100 || &a[0] == &b[0] {
		return "", fmt.Errorf("attachments of %d bytes at %p and %p", len(a), &a[0], &b[0])
	}
	a[5], b[3*4096+7] = 'a', 'b'
	if b[5] != 'a' || a[3*4096+7] != 'b' {
		return "", errors.New("the two attachments do not share their pages")
	}
	var desc unix.SysvShmDesc
	if _, err := unix.SysvShmCtl(id, unix.IPC_STAT, &desc); err != nil || desc.Nattch != 2 || desc.Segsz != 3*4096+100 || desc.Perm.Mode&0o777 != 0o600 {
		return "", fmt.Errorf("IPC_STAT: %v, nattch %d, size %d, mode %o", err, desc.Nattch, desc.Segsz, desc.Perm.Mode)
	}
	// PROT_NONE and back, and MADV_DONTNEED: the pages read the segment again.
	if err := unix.Mprotect(b[:4096], unix.PROT_NONE); err != nil {
		return "", fmt.Errorf("mprotect: %v", err)
	}
	if err := unix.Mprotect(b[:4096], unix.PROT_READ|unix.PROT_WRITE); err != nil {
		return "", fmt.Errorf("mprotect: %v", err)
	}
	if err := unix.Madvise(a[:8192], unix.MADV_DONTNEED); err != nil {
		return "", fmt.Errorf("madvise: %v", err)
	}
	if a[5] != 'a' || b[5] != 'a' {
		return "", errors.New("mprotect PROT_NONE or MADV_DONTNEED lost the segment's contents")
	}
	// A munmap of part of a mapping is a detach of that part (Linux counts the split as two).
	base := uintptr(unsafe.Pointer(&b[0]))
	if _, _, e := syscall.Syscall(syscall.SYS_MUNMAP, base+4096, 4096, 0); e != 0 {
		return "", fmt.Errorf("munmap: %v", e)
	}
	if _, err := unix.SysvShmCtl(id, unix.IPC_STAT, &desc); err != nil || desc.Nattch != 3 {
		return "", fmt.Errorf("IPC_STAT after a munmap splits a mapping: %v, nattch %d, want 3", err, desc.Nattch)
	}
	// Errors, in Linux's order.
	if _, err := unix.SysvShmGet(unix.IPC_PRIVATE, 0, unix.IPC_CREAT); err != unix.EINVAL {
		return "", fmt.Errorf("shmget of size 0: %v, want EINVAL", err)
	}
	key := 0x7a11 + int(base>>12&0xfff)
	if _, err := unix.SysvShmGet(key, 10, 0); err != unix.ENOENT {
		return "", fmt.Errorf("shmget of a key no segment has: %v, want ENOENT", err)
	}
	kid, err := unix.SysvShmGet(key, 10, unix.IPC_CREAT|0o600)
	if err != nil {
		return "", fmt.Errorf("shmget with a key: %v", err)
	}
	if again, err := unix.SysvShmGet(key, 5, 0); err != nil || again != kid {
		return "", fmt.Errorf("shmget of the key again: %d %v, want %d", again, err, kid)
	}
	if _, err := unix.SysvShmGet(key, 5, unix.IPC_CREAT|unix.IPC_EXCL); err != unix.EEXIST {
		return "", fmt.Errorf("IPC_EXCL on an existing key: %v, want EEXIST", err)
	}
	if _, err := unix.SysvShmGet(key, 4097, 0); err != unix.EINVAL {
		return "", fmt.Errorf("a size above the segment's: %v, want EINVAL", err)
	}
	if _, err := unix.SysvShmCtl(kid, unix.IPC_RMID, nil); err != nil {
		return "", fmt.Errorf("IPC_RMID: %v", err)
	}
	if _, err := unix.SysvShmCtl(kid, unix.IPC_STAT, &desc); err != unix.EINVAL {
		return "", fmt.Errorf("IPC_STAT of a removed, unmapped segment: %v, want EINVAL", err)
	}
	if _, _, e := syscall.Syscall(syscall.SYS_SHMAT, ^uintptr(0), 0, 0); e != unix.EINVAL {
		return "", fmt.Errorf("shmat(-1): %v, want EINVAL", e)
	}
	if _, _, e := syscall.Syscall(syscall.SYS_SHMAT, uintptr(id), 0x10001, 0); e != unix.EINVAL {
		return "", fmt.Errorf("shmat at an unaligned address without SHM_RND: %v, want EINVAL", e)
	}
	if _, _, e := syscall.Syscall(syscall.SYS_SHMAT, uintptr(id), base, 0); e != unix.EINVAL {
		return "", fmt.Errorf("shmat over a mapping without SHM_REMAP: %v, want EINVAL", e)
	}
	if _, _, e := syscall.Syscall(syscall.SYS_SHMAT, uintptr(id), 0, shmRemap); e != unix.EINVAL {
		return "", fmt.Errorf("SHM_REMAP without an address: %v, want EINVAL", e)
	}
	if _, _, e := syscall.Syscall(syscall.SYS_SHMDT, base+1, 0, 0); e != unix.EINVAL {
		return "", fmt.Errorf("shmdt of an unaligned address: %v, want EINVAL", e)
	}
	if _, _, e := syscall.Syscall(syscall.SYS_SHMCTL, uintptr(id), 99, 0); e != unix.EINVAL {
		return "", fmt.Errorf("shmctl command 99: %v, want EINVAL", e)
	}
	if _, _, e := syscall.Syscall(syscall.SYS_SHMCTL, uintptr(id), unix.IPC_STAT, 8); e != unix.EFAULT {
		return "", fmt.Errorf("IPC_STAT to a bad address: %v, want EFAULT", e)
	}
	// Removed while mapped: it lives on, nameless, until the last mapping goes.
	if _, err := unix.SysvShmCtl(id, unix.IPC_RMID, nil); err != nil {
		return "", fmt.Errorf("IPC_RMID while mapped: %v", err)
	}
	removed = true
	if _, err := unix.SysvShmCtl(id, unix.IPC_STAT, &desc); err != nil || desc.Perm.Mode&shmDest == 0 || desc.Perm.Key != 0 {
		return "", fmt.Errorf("IPC_STAT of a removed, mapped segment: %v, mode %o, key %d", err, desc.Perm.Mode, desc.Perm.Key)
	}
	b[8192] = 'c' // the mapping's last piece is still the segment's
	if a[8192] != 'c' {
		return "", errors.New("a removed segment's mappings no longer share")
	}
	if err := unix.SysvShmDetach(a); err != nil {
		return "", fmt.Errorf("shmdt: %v", err)
	}
	if err := unix.SysvShmDetach(b); err != nil { // the first piece, and the last one beyond the hole
		return "", fmt.Errorf("shmdt of a split mapping: %v", err)
	}
	if _, err := unix.SysvShmCtl(id, unix.IPC_STAT, &desc); err != unix.EINVAL {
		return "", fmt.Errorf("IPC_STAT after the last shmdt: %v, want EINVAL (the segment gone)", err)
	}
	if _, _, e := syscall.Syscall(syscall.SYS_SHMDT, base, 0, 0); e != unix.EINVAL {
		return "", fmt.Errorf("shmdt where nothing is attached: %v, want EINVAL", e)
	}
	return "2 attachments share, contents survive PROT_NONE and DONTNEED, IPC_RMID waits for the last shmdt", nil
}
