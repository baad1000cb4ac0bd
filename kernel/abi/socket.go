package abi

// Linux's socket constants (include/linux/socket.h, net.h, asm-generic/socket.h); the same on
// amd64 and arm64.
const (
	AF_UNIX        = 1
	AF_INET        = 2
	AF_INET6       = 10
	SOCK_STREAM    = 1
	SOCK_DGRAM     = 2
	SOCK_RAW       = 3
	SOCK_SEQPACKET = 5
	SOCK_TYPE_MASK = 0xf
	SOCK_NONBLOCK  = 0o4000
	SOCK_CLOEXEC   = 0o2000000
	MSG_PEEK       = 0x2
	MSG_DONTWAIT   = 0x40
	MSG_TRUNC      = 0x20
	MSG_NOSIGNAL   = 0x4000
	SOL_SOCKET     = 1
	SO_TYPE        = 3
	SO_ERROR       = 4
	SO_DOMAIN      = 39
	SizeofMsghdr   = 56 // struct msghdr on 64-bit machines
)
