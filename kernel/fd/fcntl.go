package fd

import "github.com/unitrace/unitrace/kernel/abi"

// Fcntl implements fcntl(fd, cmd, arg) for the descriptor and status flags:
//
//   - F_GETFD returns FD_CLOEXEC or 0; F_SETFD sets it from bit 0 of arg.
//   - F_GETFL returns O_RDWR, plus O_NONBLOCK if set: every descriptor here
//     is open for reading and writing (Linux opens eventfd and epoll files
//     O_RDWR too, and the runtime wants O_RDWR without O_NONBLOCK on 0..2).
//   - F_SETFL changes O_NONBLOCK only; Linux ignores the access mode and
//     creation flags there too, and the other changeable flags (O_APPEND,
//     O_ASYNC, O_DIRECT, O_NOATIME) mean nothing for these files, so they
//     are ignored rather than refused.
//
// An open file's F_GETFL and F_SETFL are its description's flags instead
// (file.go); a pipe end's F_GETFL its access mode, and F_GETPIPE_SZ and
// F_SETPIPE_SZ are the pipe's (pipe.go; EBADF on anything else). A closed fd is EBADF, any other cmd EINVAL (F_DUPFD and
// F_DUPFD_CLOEXEC are Dup's).
func (t *Table) Fcntl(fd, cmd int, arg uintptr) (ret int, errno int) {
	if !t.isOpen(fd) {
		return 0, abi.EBADF
	}
	f := &t.files[fd]
	if f.kind == KindFile && (cmd == F_GETFL || cmd == F_SETFL) {
		return t.fileFcntl(fd, cmd, arg)
	}
	if cmd == F_GETPIPE_SZ || cmd == F_SETPIPE_SZ {
		if f.kind != KindPipe {
			return 0, abi.EBADF // as Linux: not a pipe
		}
		return t.pipeFcntl(fd, cmd, arg)
	}
	if f.kind == KindPipe && cmd == F_GETFL {
		return t.pipeFcntl(fd, cmd, arg)
	}
	flags := uint32(arg) // Linux reads arg as an int for these commands
	switch cmd {
	case F_GETFD:
		if f.cloexec {
			return FD_CLOEXEC, 0
		}
		return 0, 0
	case F_SETFD:
		f.cloexec = flags&FD_CLOEXEC != 0
		return 0, 0
	case F_GETFL:
		if f.nonblock {
			return O_RDWR | O_NONBLOCK, 0
		}
		return O_RDWR, 0
	case F_SETFL:
		f.nonblock = flags&O_NONBLOCK != 0
		return 0, 0
	}
	return 0, abi.EINVAL
}
