package fd

import "github.com/unitrace/unitrace/kernel/abi"

// The console's descriptors (0, 1 and 2 at first, and their dups) share one input: the bytes
// the kernel's receive ring holds. The table keeps only whether a read would return at once
// (bytes wait, or the input is at its end); the kernel says when that changes and when bytes
// arrive.

// consolePoll is a console descriptor's readiness: writable always (a write to the UART never
// waits for room), readable while a read would not wait: bytes wait, or the input is at its end
// (as a pipe's reader is readable once its writer has gone). Never EPOLLHUP, not even at the
// input's end: every console descriptor is also the console's output, which has not hung up.
func consolePoll(in bool) uint32 {
	ev := uint32(EPOLLOUT | EPOLLWRNORM)
	if in {
		ev |= EPOLLIN | EPOLLRDNORM
	}
	return ev
}

// SetConsoleInput records whether a read of the console would return at once. arrived says that
// bytes came in, or the input reached its end: an event (EPOLLIN) for every watch of a console
// descriptor, so an edge-triggered watch fires for each arrival, as on a Linux tty, not only
// when the input was empty before. The caller then wakes the waiters of ConsoleDescriptors and
// of their watchers.
func (t *Table) SetConsoleInput(readable, arrived bool) {
	t.consoleIn = readable
	if !arrived || !readable {
		return
	}
	for fd := range t.files {
		if t.files[fd].kind == KindConsole && t.files[fd].watchers.head != none {
			t.notify(fd, EPOLLIN)
		}
	}
}

// ConsoleInput reports what SetConsoleInput last recorded.
func (t *Table) ConsoleInput() bool { return t.consoleIn }

// ConsoleDescriptors writes to out the open console descriptors, in order, and returns how
// many.
func (t *Table) ConsoleDescriptors(out []int32) int {
	n := 0
	for fd := range t.files {
		if n < len(out) && t.files[fd].kind == KindConsole {
			out[n] = int32(fd)
			n++
		}
	}
	return n
}

// OpenConsole opens the lowest free descriptor on the console, with FD_CLOEXEC and O_NONBLOCK
// from open's flags: an open of /dev/tty, the process's controlling terminal. No free
// descriptor is EMFILE.
func (t *Table) OpenConsole(flags int) (fd int, errno int) {
	fd = t.open(KindConsole, flags&O_CLOEXEC != 0, flags&O_NONBLOCK != 0)
	if fd < 0 {
		return -1, abi.EMFILE
	}
	return fd, 0
}
