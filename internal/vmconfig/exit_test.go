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
	segv := waitErr(t, "kill -SEGV $$")
	timedOut := func(err error) error { return fmt.Errorf("%w after 1s: %w", ErrTimeout, err) }
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
		{"fault report cut short", amd, timedOut(killed), Seen{Fault: true}, KernelFault, 70, "did not finish; then it hung"},
		{"fault, then killed", amd, killed, Seen{Fault: true}, KernelFault, 70, "did not finish; QEMU was killed by signal 9 (killed)"},
		{"fault, odd QEMU status", amd, exit(3), fault, KernelFault, 70, "instead of 255"},
		{"fault wins over exit line", amd, exit(255), Seen{ExitLine: true, ExitStatus: 127, Fault: true, FaultHalting: true}, KernelFault, 70, ""},
		{"timeout", amd, timedOut(killed), Seen{}, Hung, 124, "timeout"},
		{"timeout after the exit line", amd, timedOut(killed), exited(3), Hung, 124, ""},
		// Signals from outside: QEMU killed by one, or stopped on one it catches (status 0 and
		// its own line on standard error), is neither a timeout nor a triple fault.
		{"killed from outside", amd, killed, Seen{}, QEMUKilled, 137, "QEMU was killed by signal 9 (killed)"},
		{"arm64 killed from outside", arm, killed, exited(0), QEMUKilled, 137, "killed by signal 9"},
		{"died of SIGSEGV", amd, segv, Seen{}, QEMUKilled, 139, "killed by signal 11 (segmentation fault)"},
		{"died of SIGINT", amd, interrupted, Seen{}, QEMUKilled, 130, "stopped on signal 2 (interrupt)"},
		{"stopped on SIGTERM", amd, nil, Seen{QEMUSignal: 15}, QEMUKilled, 143, "QEMU stopped on signal 15 (terminated)"},
		{"arm64 stopped on SIGHUP", arm, nil, Seen{QEMUSignal: 1}, QEMUKilled, 129, "stopped on signal 1 (hangup)"},
		{"a signal line with a status", amd, exit(1), Seen{QEMUSignal: 15}, QEMUFailed, 125, "status 1"},
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

// TestScanQEMULine: QEMU's line for a signal it stops on, with and without the sender, and
// lines that only look like it.
func TestScanQEMULine(t *testing.T) {
	for line, want := range map[string]int{
		"qemu-system-x86_64: terminating on signal 15 from pid 15070 (bash)":         15,
		"qemu-system-aarch64: terminating on signal 2":                               2,
		"qemu-system-x86_64: terminating on signal 1 from pid 7 (<unknown process>)": 1,
		"qemu-system-x86_64: terminating on signal 99":                               0,
		"qemu-system-x86_64: terminating on signal x":                                0,
		"guest: terminating on signal 15":                                            0,
		"qemu-system-x86_64: warning: something else":                                0,
	} {
		var s Seen
		ScanQEMULine(&s, line)
		if s.QEMUSignal != want {
			t.Errorf("%q: %d, want %d", line, s.QEMUSignal, want)
		}
	}
	c := NewStderrScanner()
	fmt.Fprint(c, "qemu-system-x86_64: terminating on signal 15 from pid 1 (x)\r\nunitrace: exit status 3\n")
	if s := c.Seen(); s.QEMUSignal != 15 || s.ExitLine {
		t.Errorf("stderr scanner: %+v", s)
	}
}
