package kernel

// Linux errno values (asm-generic/errno-base.h, errno.h); system calls return -errno.
const (
	EPERM           = 1
	ENOENT          = 2
	ESRCH           = 3
	EINTR           = 4
	EIO             = 5
	EBADF           = 9
	ECHILD          = 10
	EAGAIN          = 11
	ENOMEM          = 12
	EACCES          = 13
	EFAULT          = 14
	EBUSY           = 16
	EEXIST          = 17
	ENODEV          = 19
	EINVAL          = 22
	ENOTTY          = 25
	EPIPE           = 32
	ENOSPC          = 28
	ESPIPE          = 29
	ENFILE          = 23
	EMFILE          = 24
	ENOSYS          = 38
	ENOTSOCK        = 88
	EDESTADDRREQ    = 89
	EMSGSIZE        = 90
	ENOPROTOOPT     = 92
	EPROTONOSUPPORT = 93
	ESOCKTNOSUPPORT = 94
	EOPNOTSUPP      = 95
	EAFNOSUPPORT    = 97
	ENETUNREACH     = 101
	ENOBUFS         = 105
	EISCONN         = 106
	ENOTCONN        = 107
	ETIMEDOUT       = 110
	ECONNREFUSED    = 111
	EINPROGRESS     = 115
	// ERESTARTSYS is what an interrupted call that restarts reports to syscall_exit
	// (include/linux/errno.h; never returned to the program).
	ERESTARTSYS = 512
)

func neg(errno int) uint64 { return uint64(-int64(errno)) }
