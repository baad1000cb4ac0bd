package agent

import (
	"syscall"

	"github.com/unitrace/unitrace/trace"
	"github.com/unitrace/unitrace/trace/ctl"
)

// The stdin commands: the launcher feeds the console's serial line from its own standard input
// and, since a serial line cannot carry an end of file, says here where the input ends.
// stdin.open asks whether the console takes input before the first byte goes out (the agent
// runs long after the kernel set its UART up, so no byte is lost to that); stdin.end gives the
// input's length in all, after which the program's reads of the console are at end of file.
// Both are served with and without the tracer, and after stop: they are the console's, not the
// tracer's.

// stdinCommand carries out stdin.open or stdin.end in the kernel.
func stdinCommand(c *ctl.Command) ctl.Err {
	var err error
	if c.Op == ctl.OpStdinOpen {
		err = kernelCtl(trace.CtlConsoleOpen, 0, 0)
	} else {
		err = kernelCtl(trace.CtlConsoleEnd, c.Total, 0)
	}
	switch err {
	case nil:
		return ctl.ErrNone
	case syscall.ENODEV:
		return ctl.ErrNoInput
	case syscall.EINVAL:
		return ctl.ErrBadTotal
	case syscall.ENOSYS:
		return ctl.ErrUnavailable
	}
	return ctl.ErrFailed
}
