package vmconfig

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"syscall"

	"github.com/hugelgupf/vmtest/qemu"
)

// Launcher exit statuses other than the guest's own.
const (
	StatusKernelFault = 70  // the kernel reported a fault it could not hand to Go
	StatusTimeout     = 124 // the guest ran past the timeout (as timeout(1))
	StatusQEMUFailed  = 125 // QEMU did not start, died, or exited without the guest's exit line
	// StatusQEMUKilled plus the signal's number is the status when a signal from outside the
	// launcher ended QEMU: a shell's convention for a child killed by a signal, so SIGKILL gives
	// 137 and SIGTERM 143.
	StatusQEMUKilled = 128
)

// FaultExitCode is what the kernel writes to its exit device after a fault report.
const FaultExitCode = 0x7f

// ErrTimeout marks a wait error caused by the caller's own deadline.
var ErrTimeout = errors.New("timed out")

// Kind classifies how a VM ended.
type Kind int

// Ways a VM ends.
const (
	Exited      Kind = iota // the guest exited through the protocol
	KernelFault             // the guest kernel reported a fault
	Hung                    // the guest ran past the timeout
	QEMUFailed              // anything else
	QEMUKilled              // a signal ended QEMU (not one of the launcher's)
)

func (k Kind) String() string {
	switch k {
	case Exited:
		return "exited"
	case KernelFault:
		return "kernel fault"
	case Hung:
		return "hung"
	case QEMUKilled:
		return "QEMU killed"
	}
	return "QEMU failed"
}

// Outcome is how a VM ended and what the launcher exits with.
type Outcome struct {
	Kind   Kind
	Status int    // the guest's status for Exited, else 70, 124, 125 or 128+signal
	Reason string // one sentence for the user
}

// QEMUStatus is the exit status QEMU reports when the guest hands code to
// its exit device: isa-debug-exit doubles it and sets bit 0, and the shell
// sees 8 bits; semihosting SYS_EXIT passes it through.
func QEMUStatus(arch qemu.Arch, code int) int {
	if arch == qemu.ArchArm64 {
		return code & 0xff
	}
	return (code<<1 | 1) & 0xff
}

// GuestExit decodes how a VM ended from the error of waiting for QEMU
// (exec.Cmd.Wait or vmtest's VM.Wait; wrap ErrTimeout into it when your own
// deadline killed QEMU) and from what its console and standard error showed.
// A signal that ended QEMU without ErrTimeout came from outside: QEMU was
// killed by it (a signal QEMU dies of), or stopped on it (SIGINT, SIGTERM,
// SIGHUP: QEMU says so on standard error and exits with status 0).
func GuestExit(arch qemu.Arch, waitErr error, seen Seen) Outcome {
	if arch == "" {
		arch = qemu.ArchAMD64 // as in Config
	}
	status, sig, exitErr := 0, syscall.Signal(0), (*exec.ExitError)(nil)
	if errors.As(waitErr, &exitErr) {
		status = exitErr.ExitCode()
		if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			sig = ws.Signal()
		}
	}
	timedOut := errors.Is(waitErr, ErrTimeout) || errors.Is(waitErr, context.DeadlineExceeded)
	if sig == 0 && status == 0 && exitErr == nil && waitErr == nil && seen.QEMUSignal != 0 {
		sig = syscall.Signal(seen.QEMUSignal) // QEMU caught it and exited 0
	}

	switch {
	case seen.Fault:
		reason := "the guest kernel faulted"
		if !seen.FaultHalting {
			reason += ", and its fault report did not finish"
		}
		switch {
		case timedOut:
			reason += "; then it hung until the timeout"
		case exitErr == nil && waitErr != nil:
			reason += fmt.Sprintf("; QEMU: %v", waitErr)
		case sig != 0:
			reason += "; " + killedBy(sig)
		case status != QEMUStatus(arch, FaultExitCode):
			reason += fmt.Sprintf("; QEMU exited with status %d instead of %d", status, QEMUStatus(arch, FaultExitCode))
		}
		return Outcome{KernelFault, StatusKernelFault, reason}
	case timedOut:
		return Outcome{Hung, StatusTimeout, "the guest did not exit before the timeout"}
	case waitErr != nil && exitErr == nil:
		return Outcome{QEMUFailed, StatusQEMUFailed, fmt.Sprintf("QEMU failed: %v", waitErr)}
	case sig != 0:
		return Outcome{QEMUKilled, StatusQEMUKilled + int(sig), killedBy(sig)}
	case seen.ExitLine && status == QEMUStatus(arch, seen.ExitStatus):
		return Outcome{Exited, seen.ExitStatus, fmt.Sprintf("the guest exited with status %d", seen.ExitStatus)}
	case seen.ExitLine:
		return Outcome{QEMUFailed, StatusQEMUFailed, fmt.Sprintf("the guest printed exit status %d, but QEMU exited with %d instead of %d",
			seen.ExitStatus, status, QEMUStatus(arch, seen.ExitStatus))}
	case arch == qemu.ArchAMD64 && status == 0:
		return Outcome{QEMUFailed, StatusQEMUFailed,
			"QEMU exited with status 0 and no exit line: the guest reset or triple-faulted"}
	case arch == qemu.ArchAMD64 && status == 1:
		return Outcome{QEMUFailed, StatusQEMUFailed,
			"QEMU exited with status 1 and no exit line: QEMU's own error (see above), or the guest wrote 0 to isa-debug-exit"}
	case arch == qemu.ArchAMD64 && status&1 == 1:
		return Outcome{QEMUFailed, StatusQEMUFailed, fmt.Sprintf(
			"QEMU exited with status %d and no exit line: the guest wrote %d to isa-debug-exit without printing its exit line", status, status>>1)}
	}
	return Outcome{QEMUFailed, StatusQEMUFailed, fmt.Sprintf("QEMU exited with status %d and no exit line", status)}
}

// killedBy names how sig ended QEMU: "QEMU was killed by signal 9 (killed)", or "stopped on"
// for the signals QEMU catches.
func killedBy(sig syscall.Signal) string {
	verb := "was killed by"
	switch sig {
	case syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP:
		verb = "stopped on"
	}
	return fmt.Sprintf("QEMU %s signal %d (%v)", verb, int(sig), sig)
}
