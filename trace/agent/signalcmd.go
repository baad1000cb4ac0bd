package agent

import (
	"os"
	"syscall"

	"github.com/unitrace/unitrace/trace/ctl"
)

// The signal command: the host signals the program, as kill(1) would on Linux. kill(2) on our
// own pid makes it a process-directed signal with si_code SI_USER, which the kernel gives to a
// thread that does not block it (the agent's own, when it does not), so the program's
// os/signal handlers or the Go runtime's default action (SIGQUIT's goroutine dump) run as on
// Linux.

// canSignal asks the kernel, with signal 0, whether kill(2) works at all, so the reply can say
// so before the real signal, which goes out after the reply.
func canSignal() ctl.Err {
	switch err := syscall.Kill(syscall.Getpid(), 0); err {
	case nil:
		return ctl.ErrNone
	case syscall.ENOSYS:
		return ctl.ErrUnavailable
	default:
		return ctl.ErrFailed
	}
}

// raise sends sig to the program. It runs after the reply went out; a failure (which signal 0
// did not show) can only be told on the console.
func raise(sig uint8) {
	if err := syscall.Kill(syscall.Getpid(), syscall.Signal(sig)); err != nil {
		os.Stderr.WriteString("unitrace trace agent: kill(" + syscall.Signal(sig).String() + "): " + err.Error() + "\n")
	}
}
