// Package pollset translates between a descriptor's readiness and what poll(2), ppoll(2),
// select(2) and pselect6(2) report: struct pollfd's revents, and the bits of select's three
// descriptor sets.
//
// The package is kernel-mode Go: pointer-free, allocation-free, never panics on any input.
package pollset

// poll's event bits (include/uapi/asm-generic/poll.h): the same values as epoll's, which the
// descriptor table's readiness uses.
const (
	POLLIN     = 0x1
	POLLPRI    = 0x2
	POLLOUT    = 0x4
	POLLERR    = 0x8
	POLLHUP    = 0x10
	POLLNVAL   = 0x20
	POLLRDNORM = 0x40
	POLLRDBAND = 0x80
	POLLWRNORM = 0x100
	POLLWRBAND = 0x200
	POLLRDHUP  = 0x2000
)

// DefaultMask is the readiness of a file that cannot be polled (Linux's DEFAULT_POLLMASK):
// regular files and devices without a poll method are always readable and writable.
const DefaultMask = POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM

// PollfdSize is the size of struct pollfd: fd (int), events and revents (short).
const PollfdSize = 8

// Revents is what poll reports for a descriptor with readiness ready that asked for events:
// the events it asked for, and POLLERR and POLLHUP always (as Linux's do_pollfd).
func Revents(ready uint32, events uint16) uint16 {
	return uint16(ready) & (events | POLLERR | POLLHUP)
}

// The readiness that makes select report a descriptor in each set (fs/select.c: POLLIN_SET,
// POLLOUT_SET, POLLEX_SET).
const (
	InSet  = POLLRDNORM | POLLRDBAND | POLLIN | POLLHUP | POLLERR
	OutSet = POLLWRBAND | POLLWRNORM | POLLOUT | POLLERR
	ExSet  = POLLPRI
)

// Select says in which of select's sets a descriptor with readiness ready is reported, given
// the sets it is in (each bit of want and got: 1 read, 2 write, 4 except).
func Select(ready uint32, want uint8) (got uint8) {
	if want&1 != 0 && ready&InSet != 0 {
		got |= 1
	}
	if want&2 != 0 && ready&OutSet != 0 {
		got |= 2
	}
	if want&4 != 0 && ready&ExSet != 0 {
		got |= 4
	}
	return got
}

// SetBytes is how many bytes of a descriptor set select reads and writes for nfds descriptors:
// whole unsigned longs (8 bytes), as the kernel's get_fd_set copies them.
func SetBytes(nfds int) uintptr {
	if nfds <= 0 {
		return 0
	}
	return uintptr((nfds+63)/64) * 8
}

// Has reports whether fd's bit is set in a descriptor set's bytes (little-endian longs: bit fd%8
// of byte fd/8).
func Has(set []byte, fd int) bool {
	return fd >= 0 && fd/8 < len(set) && set[fd/8]&(1<<uint(fd%8)) != 0
}

// Put sets or clears fd's bit in set.
func Put(set []byte, fd int, on bool) {
	if fd < 0 || fd/8 >= len(set) {
		return
	}
	if on {
		set[fd/8] |= 1 << uint(fd%8)
	} else {
		set[fd/8] &^= 1 << uint(fd%8)
	}
}
