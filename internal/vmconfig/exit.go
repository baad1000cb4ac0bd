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
)

func (k Kind) String() string {
	switch k {
	case Exited:
		return "exited"
	case KernelFault:
		return "kernel fault"
	case Hung:
		return "hung"
	}
	return "QEMU failed"
}

// Outcome is how a VM ended and what the launcher exits with.
type Outcome struct {
	Kind   Kind
	Status int    // the guest's status for Exited, else 70, 124 or 125
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
// deadline killed QEMU) and from what its console showed.
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
	// vmtest kills QEMU with SIGKILL when its VMTimeout expires.
	timedOut := errors.Is(waitErr, ErrTimeout) || errors.Is(waitErr, context.DeadlineExceeded) || sig == syscall.SIGKILL

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
			reason += fmt.Sprintf("; QEMU died of signal %d (%v)", int(sig), sig)
		case status != QEMUStatus(arch, FaultExitCode):
			reason += fmt.Sprintf("; QEMU exited with status %d instead of %d", status, QEMUStatus(arch, FaultExitCode))
		}
		return Outcome{KernelFault, StatusKernelFault, reason}
	case timedOut:
		return Outcome{Hung, StatusTimeout, "the guest did not exit before the timeout"}
	case waitErr != nil && exitErr == nil:
		return Outcome{QEMUFailed, StatusQEMUFailed, fmt.Sprintf("QEMU failed: %v", waitErr)}
	case sig != 0:
		return Outcome{QEMUFailed, StatusQEMUFailed, fmt.Sprintf("QEMU died of signal %d (%v)", int(sig), sig)}
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
