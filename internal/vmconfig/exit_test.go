package vmconfig

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/hugelgupf/vmtest/qemu"
)

// waitErr returns the error exec gives for a process that ends as script
// makes it end.
func waitErr(t *testing.T, script string) error {
	t.Helper()
	err := exec.Command("sh", "-c", script).Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("sh: %v", err)
	}
	return err
}

func TestQEMUStatus(t *testing.T) {
	for code, want := range map[int]int{0: 1, 3: 7, 0x21: 67, 0x7f: 255, 128: 1, 255: 255} {
		if got := QEMUStatus(qemu.ArchAMD64, code); got != want {
			t.Errorf("amd64 %d: %d, want %d", code, got, want)
		}
	}
	if got := QEMUStatus(qemu.ArchArm64, 3); got != 3 {
		t.Errorf("arm64 3: %d", got)
	}
}

func TestGuestExit(t *testing.T) {
	exit := func(n int) error { return waitErr(t, fmt.Sprintf("exit %d", n)) }
	killed := waitErr(t, "kill -KILL $$")
	interrupted := waitErr(t, "kill -INT $$")
	exited := func(n int) Seen { return Seen{ExitLine: true, ExitStatus: n} }
	fault := Seen{Fault: true, FaultHalting: true}
	amd, arm := qemu.ArchAMD64, qemu.ArchArm64

	tests := []struct {
		name   string
		arch   qemu.Arch
		err    error
		seen   Seen
		kind   Kind
		status int
		reason string
	}{
		{"exit 3", amd, exit(7), exited(3), Exited, 3, "exited with status 3"},
		{"exit 0", amd, exit(1), exited(0), Exited, 0, "status 0"},
		{"exit 200 (QEMU sees 8 bits)", amd, exit(0x91), exited(200), Exited, 200, ""},
		{"arm64 exit 3", arm, exit(3), exited(3), Exited, 3, ""},
		{"arm64 exit 0", arm, nil, exited(0), Exited, 0, ""},
		{"status disagrees", amd, exit(9), exited(3), QEMUFailed, 125, "printed exit status 3, but QEMU exited with 9 instead of 7"},
		{"kernel fault", amd, exit(255), fault, KernelFault, 70, "kernel faulted"},
		{"arm64 kernel fault", arm, exit(0x7f), fault, KernelFault, 70, "kernel faulted"},
		{"fault report cut short", amd, killed, Seen{Fault: true}, KernelFault, 70, "did not finish; then it hung"},
		{"fault, odd QEMU status", amd, exit(3), fault, KernelFault, 70, "instead of 255"},
		{"fault wins over exit line", amd, exit(255), Seen{ExitLine: true, ExitStatus: 127, Fault: true, FaultHalting: true}, KernelFault, 70, ""},
		{"timeout by vmtest", amd, killed, Seen{}, Hung, 124, "timeout"},
		{"timeout by launcher", amd, fmt.Errorf("%w after 1s: %w", ErrTimeout, killed), exited(3), Hung, 124, ""},
		{"interrupted", amd, interrupted, Seen{}, QEMUFailed, 125, "died of signal 2 (interrupt)"},
		{"QEMU missing", amd, exec.Command("/nonexistent/qemu").Run(), Seen{}, QEMUFailed, 125, "QEMU failed"},
		{"triple fault", amd, nil, Seen{}, QEMUFailed, 125, "triple-faulted"},
		{"triple fault after exit line", amd, nil, exited(0), QEMUFailed, 125, "instead of 1"},
		{"QEMU error", amd, exit(1), Seen{}, QEMUFailed, 125, "QEMU's own error"},
		{"silent debug exit", amd, exit(7), Seen{}, QEMUFailed, 125, "wrote 3 to isa-debug-exit"},
		{"arm64 silent exit", arm, exit(4), Seen{}, QEMUFailed, 125, "status 4 and no exit line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := GuestExit(tt.arch, tt.err, tt.seen)
			if got.Kind != tt.kind || got.Status != tt.status || !strings.Contains(got.Reason, tt.reason) {
				t.Errorf("got %v %d %q, want %v %d containing %q", got.Kind, got.Status, got.Reason, tt.kind, tt.status, tt.reason)
			}
		})
	}
}
