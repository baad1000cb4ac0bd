package p9

import (
	"github.com/unitrace/unitrace/kernel/abi"
)

// lastErrno is the largest errno a Linux system call returns (EHWPOISON, asm-generic/errno.h).
const lastErrno = 133

// Errno maps an Rlerror's ecode to the errno a system call returns. 9P2000.L carries Linux
// errno values (QEMU sends its host's, translated to Linux numbering on other hosts), so a
// valid one passes through. Zero, and values outside Linux's user-visible range (the kernel's
// internal ERESTARTSYS and up included), would make a failed call look successful or
// meaningless: they become EPROTO, as Linux's safe_errno (net/9p/client.c) does for the values
// it rejects.
func Errno(ecode uint32) int {
	if ecode == 0 || ecode > lastErrno {
		return abi.EPROTO
	}
	return int(ecode)
}
