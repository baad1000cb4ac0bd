// Package splice answers the questions of splice(2), sendfile(2) and copy_file_range(2) that
// need no kernel state, with Linux's rules and in Linux's order: which way a splice moves bytes
// or the error that refuses it, which of copy_file_range's errors applies and how many bytes
// it copies. The kernel (kernel/syscalls/files/sys_splice.go) moves the bytes with its own read and write
// paths.
//
// Kernel-mode Go: no pointers, no allocation.
package splice

import "github.com/unitrace/unitrace/kernel/abi"

// Flags of splice(2) (include/linux/splice.h).
const (
	FMove     = 0x1
	FNonblock = 0x2
	FMore     = 0x4
	FGift     = 0x8
	FAll      = FMove | FNonblock | FMore | FGift
)

// Kind is what an end of a splice is.
type Kind uint8

const (
	Other   Kind = iota // no splice support: eventfds, epoll instances, the trace ports, socket pairs
	Pipe                // an end of a pipe
	File                // a file of the file system: a regular file or a device
	Console             // the console: written as a tty is, never positioned
	Socket              // a stream socket: read or written as recv and send do, never positioned
)

// End is one side of a splice: its descriptor's kind and access, and whether the call gave an
// offset pointer for it.
type End struct {
	Kind              Kind
	CanRead, CanWrite bool // FMODE_READ, FMODE_WRITE
	Append            bool // O_APPEND
	Nonblock          bool // O_NONBLOCK
	Offset            bool // the call passed an offset pointer for this end
}

// Way is the direction a splice moves bytes.
type Way uint8

const (
	PipeToPipe Way = iota + 1
	PipeToFile     // the out end is a File or the Console
	FileToPipe
	PipeToSocket
	SocketToPipe
)

// Splice returns the way a splice from in to out goes, or Linux's error (fs/splice.c,
// __do_splice and do_splice): an offset for a pipe ESPIPE, an end not open for its direction
// EBADF, a pipe spliced to itself, an offset for an end that cannot seek, an O_APPEND output, or
// no pipe at all EINVAL. samePipe says both ends are the same pipe. A kind that cannot splice
// is EINVAL where Linux finds it has no splice_read or splice_write.
func Splice(in, out End, samePipe bool) (Way, int) {
	switch {
	case in.Kind == Pipe && in.Offset, out.Kind == Pipe && out.Offset:
		return 0, abi.ESPIPE
	case !in.CanRead || !out.CanWrite:
		return 0, abi.EBADF
	}
	switch {
	case in.Kind == Pipe && out.Kind == Pipe:
		if samePipe {
			return 0, abi.EINVAL
		}
		return PipeToPipe, 0
	case in.Kind == Pipe:
		switch {
		case out.Offset && out.Kind != File, out.Append:
			return 0, abi.EINVAL
		case out.Kind == File, out.Kind == Console:
			return PipeToFile, 0
		case out.Kind == Socket:
			return PipeToSocket, 0
		}
	case out.Kind == Pipe:
		switch {
		case in.Offset && in.Kind != File:
			return 0, abi.EINVAL
		case in.Kind == File:
			return FileToPipe, 0
		case in.Kind == Socket:
			return SocketToPipe, 0
		} // the console's reads wait on the serial line: not spliced
	}
	return 0, abi.EINVAL
}

// Nonblocking says whether a splice of way w must not wait, as Linux's do_splice decides:
// SPLICE_F_NONBLOCK, or O_NONBLOCK on its pipe (either pipe's between two). The other end's
// O_NONBLOCK is its own business (a socket's read or write).
func Nonblocking(w Way, in, out End, flags uint32) bool {
	if flags&FNonblock != 0 {
		return true
	}
	switch w {
	case PipeToPipe:
		return in.Nonblock || out.Nonblock
	case PipeToFile, PipeToSocket:
		return in.Nonblock
	}
	return out.Nonblock
}

// S_IFMT values of the files copy_file_range looks at.
const (
	sIFMT  = 0o170000
	sIFDIR = 0o040000
	sIFREG = 0o100000
)

// RangeFile is one file of copy_file_range: its type and size, where it is (the file system
// it belongs to and its inode), and its descriptor's access.
type RangeFile struct {
	Mode              uint32
	FS                int
	Ino               uint64
	Size              int64
	CanRead, CanWrite bool
	Append            bool
}

// CopyRange checks a copy_file_range of count bytes from in at posIn to out at posOut and
// returns how many bytes it copies, as Linux's generic_copy_file_checks: flags other than 0
// EINVAL; a directory EISDIR; anything but regular files EINVAL; in not readable, out not
// writable or O_APPEND EBADF; files of two file systems EXDEV (none of unitrace's has its own
// copy_file_range, so the copy stays within one, as on Linux since 5.19); a negative position
// EINVAL; a range that wraps EOVERFLOW; the copy ends at in's end of file; overlapping ranges of
// one file EINVAL.
func CopyRange(in, out RangeFile, posIn, posOut int64, count uint64, flags uint32) (int64, int) {
	switch {
	case flags != 0:
		return 0, abi.EINVAL
	case in.Mode&sIFMT == sIFDIR || out.Mode&sIFMT == sIFDIR:
		return 0, abi.EISDIR
	case in.Mode&sIFMT != sIFREG || out.Mode&sIFMT != sIFREG:
		return 0, abi.EINVAL
	case !in.CanRead || !out.CanWrite || out.Append:
		return 0, abi.EBADF
	case in.FS != out.FS:
		return 0, abi.EXDEV
	case posIn < 0 || posOut < 0:
		return 0, abi.EINVAL
	}
	const maxOff = 1<<63 - 1
	if count > maxOff || uint64(posIn) > maxOff-count || uint64(posOut) > maxOff-count {
		return 0, abi.EOVERFLOW
	}
	n := int64(count)
	if posIn >= in.Size {
		n = 0
	} else {
		n = min(n, in.Size-posIn)
	}
	if in.FS == out.FS && in.Ino == out.Ino && posOut+n > posIn && posOut < posIn+n {
		return 0, abi.EINVAL
	}
	return n, 0
}
