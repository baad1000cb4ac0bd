package fd

// Linux ABI numbers, the same on amd64 and arm64 (asm-generic values).

// Open-file status flags and descriptor flags (fcntl.h), and the open flags an open file's
// description keeps or drops (file.go). Only O_DIRECTORY and O_NOFOLLOW differ on arm64, and
// neither is here.
const (
	O_RDONLY   = 0x0
	O_WRONLY   = 0x1
	O_RDWR     = 0x2
	O_CREAT    = 0o100
	O_EXCL     = 0o200
	O_NOCTTY   = 0o400
	O_TRUNC    = 0o1000
	O_APPEND   = 0o2000
	O_NONBLOCK = 0x800
	O_CLOEXEC  = 0x80000
	O_PATH     = 0o10000000
	FD_CLOEXEC = 1
)

// fcntl commands this table implements.
const (
	F_GETFD = 1
	F_SETFD = 2
	F_GETFL = 3
	F_SETFL = 4

	F_SETPIPE_SZ = 1031 // linux/fcntl.h: F_LINUX_SPECIFIC_BASE + 7
	F_GETPIPE_SZ = 1032
)

// eventfd2 flags.
const (
	EFD_SEMAPHORE = 1
	EFD_NONBLOCK  = O_NONBLOCK
	EFD_CLOEXEC   = O_CLOEXEC
)

// epoll_create1 flag and epoll_ctl operations.
const (
	EPOLL_CLOEXEC = O_CLOEXEC
	EPOLL_CTL_ADD = 1
	EPOLL_CTL_DEL = 2
	EPOLL_CTL_MOD = 3
)

// epoll event bits (eventpoll.h).
const (
	EPOLLIN        = 0x1
	EPOLLPRI       = 0x2
	EPOLLOUT       = 0x4
	EPOLLERR       = 0x8
	EPOLLHUP       = 0x10
	EPOLLRDNORM    = 0x40
	EPOLLRDBAND    = 0x80
	EPOLLWRNORM    = 0x100
	EPOLLWRBAND    = 0x200
	EPOLLMSG       = 0x400
	EPOLLRDHUP     = 0x2000
	EPOLLEXCLUSIVE = 1 << 28
	EPOLLWAKEUP    = 1 << 29
	EPOLLONESHOT   = 1 << 30
	EPOLLET        = 1 << 31
)

// privateBits are the epoll flags that select behaviour rather than events;
// a one-shot watch that fired keeps only these, which disables it.
const privateBits = EPOLLWAKEUP | EPOLLONESHOT | EPOLLET | EPOLLEXCLUSIVE

// exclusiveOKBits are the only bits EPOLL_CTL_ADD accepts with EPOLLEXCLUSIVE.
const exclusiveOKBits = EPOLLIN | EPOLLOUT | EPOLLERR | EPOLLHUP | EPOLLWAKEUP | EPOLLET | EPOLLEXCLUSIVE

// maxNests is Linux's EP_MAX_NESTS: a chain of epoll instances watching one
// another has at most this many links (five instances).
const maxNests = 4
