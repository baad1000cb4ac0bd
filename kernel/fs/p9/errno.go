package p9

// Linux errno values the client returns itself (asm-generic/errno-base.h, asm-generic/errno.h:
// the same on amd64 and arm64). Like the rest of the kernel's, they are positive; the system
// call layer negates them.
const (
	EPERM        = 1
	ENOENT       = 2
	EINTR        = 4
	EIO          = 5
	EBADF        = 9
	EAGAIN       = 11
	ENOMEM       = 12
	EBUSY        = 16
	EEXIST       = 17
	ENOTDIR      = 20
	EISDIR       = 21
	EINVAL       = 22
	ENAMETOOLONG = 36
	ENOTEMPTY    = 39
	EPROTO       = 71
	EHWPOISON    = 133 // the largest errno a Linux system call returns
)

// Errno maps an Rlerror's ecode to the errno a system call returns. 9P2000.L carries Linux
// errno values (QEMU sends its host's, translated to Linux numbering on other hosts), so a
// valid one passes through. Zero, and values outside Linux's user-visible range (the kernel's
// internal ERESTARTSYS and up included), would make a failed call look successful or
// meaningless: they become EPROTO, as Linux's safe_errno (net/9p/client.c) does for the values
// it rejects.
func Errno(ecode uint32) int {
	if ecode == 0 || ecode > EHWPOISON {
		return EPROTO
	}
	return int(ecode)
}
