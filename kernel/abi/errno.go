// Package abi holds the Linux ABI's numbers that more than one part of the kernel uses, once:
// the error numbers (errno.go) and the socket constants (socket.go). Each is the value Linux's
// asm-generic headers give it, the same on amd64 and arm64 (the tests check them against the
// host's syscall package). Functions return error numbers positive; the system call layer
// negates them (Neg, ErrnoOr).
package abi

// Error numbers (asm-generic/errno-base.h, asm-generic/errno.h).
const (
	EPERM           = 1
	ENOENT          = 2
	ESRCH           = 3
	EINTR           = 4
	EIO             = 5
	ENXIO           = 6
	E2BIG           = 7
	EBADF           = 9
	ECHILD          = 10
	EAGAIN          = 11
	ENOMEM          = 12
	EACCES          = 13
	EFAULT          = 14
	EBUSY           = 16
	EEXIST          = 17
	EXDEV           = 18
	ENODEV          = 19
	ENOTDIR         = 20
	EISDIR          = 21
	EINVAL          = 22
	ENFILE          = 23
	EMFILE          = 24
	ENOTTY          = 25
	EFBIG           = 27
	ENOSPC          = 28
	ESPIPE          = 29
	EROFS           = 30
	EMLINK          = 31
	EPIPE           = 32
	ERANGE          = 34
	ENAMETOOLONG    = 36
	ENOLCK          = 37
	ENOSYS          = 38
	ENOTEMPTY       = 39
	ELOOP           = 40
	ENODATA         = 61
	EPROTO          = 71
	EOVERFLOW       = 75
	ENOTSOCK        = 88
	EDESTADDRREQ    = 89
	EMSGSIZE        = 90
	ENOPROTOOPT     = 92
	EPROTONOSUPPORT = 93
	ESOCKTNOSUPPORT = 94
	EOPNOTSUPP      = 95
	EAFNOSUPPORT    = 97
	EADDRINUSE      = 98
	EADDRNOTAVAIL   = 99
	ENETUNREACH     = 101
	ENOBUFS         = 105
	EISCONN         = 106
	ENOTCONN        = 107
	ETIMEDOUT       = 110
	ECONNREFUSED    = 111
	EINPROGRESS     = 115
	ESTALE          = 116

	// ERESTARTSYS is what an interrupted call that restarts reports to syscall_exit
	// (include/linux/errno.h); a program never sees it.
	ERESTARTSYS = 512
)

// Neg is errno as a system call returns it: -errno in the result register.
func Neg(errno int) uint64 { return uint64(-int64(errno)) }

// ErrnoOr is a system call's result: -errno if errno is not 0, else v.
func ErrnoOr(errno int, v uint64) uint64 {
	if errno != 0 {
		return Neg(errno)
	}
	return v
}
