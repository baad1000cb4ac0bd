package vm_test

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestSignals signals examples/signals from the host, each way once per architecture:
//   - unitrace signal over run -ctl SOCK: USR1, then INT; the program's handler prints a line for
//     each and exits 0 after INT;
//   - SIGQUIT the same way: the Go runtime's default prints every goroutine and exits 2, which
//     the launcher reports as the guest's own status;
//   - SIGINT to the launcher (^C): the program gets it, with the launcher's line on standard
//     error, and exits 0; when the program stays (-exit-after 2), a second SIGINT stops QEMU
//     (status 125, "interrupted").
//
// The program blocks in a plain channel receive, so all its threads may sleep when a signal
// comes; the agent's kill(2) makes its own thread take it.
func TestSignals(t *testing.T) { forEachArch(t, testSignals) }

func testSignals(t *testing.T, a guestArch) {
	img := a.path("signals.elf")
	sock := filepath.Join(t.TempDir(), "ctl.sock")

	t.Run("unitrace signal", func(t *testing.T) {
		l := startLauncher(t, "run", "-arch", a.name, "-image", img, "-timeout", "2m", "-ctl", sock, "examples/signals")
		l.waitLine(t, "signals: ready")
		signalTool(t, sock, "USR1")
		l.waitLine(t, "signals: received user defined signal 1")
		signalTool(t, sock, "SIGINT")
		out, stderr, status := l.wait(t)
		want := []string{"signals: ready", "signals: received user defined signal 1", "signals: received interrupt", "unitrace: exit status 0"}
		if status != 0 || !slices.Equal(out, want) || stderr != "" {
			t.Errorf("status %d, console %q, stderr %q; want 0, %q and nothing", status, out, stderr, want)
		}
	})
	t.Run("while tracing", func(t *testing.T) {
		// The trace session holds the control port: the proxy's commands share its connection,
		// stacks included, and the recording still ends whole.
		rec := a.path("signals.utrace")
		l := startLauncher(t, "run", "-arch", a.name, "-image", img, "-timeout", "2m", "-o", rec, "-ctl", sock, "examples/signals")
		l.waitLine(t, "signals: ready")
		if out, _, status := runTool(t, "stacks", "-ctl", sock, "-timeout", "1m"); status != 0 || !strings.Contains(out, "thread ") {
			t.Errorf("unitrace stacks through the proxy: status %d, output %q", status, out)
		}
		signalTool(t, sock, "USR1")
		l.waitLine(t, "signals: received user defined signal 1")
		l.cmd.Process.Signal(syscall.SIGINT)
		out, stderr, status := l.wait(t)
		if status != 0 || !slices.Contains(out, "signals: received interrupt") ||
			!strings.Contains(stderr, "unitrace run: SIGINT sent to the program") || !strings.Contains(stderr, "END exit") {
			t.Errorf("status %d, console %q, stderr %q", status, out, stderr)
		}
		if _, stderr, status := runTool(t, "check", rec); status != 0 {
			t.Errorf("unitrace check: status %d, %s", status, stderr)
		}
	})
	t.Run("SIGQUIT dumps the goroutines", func(t *testing.T) {
		l := startLauncher(t, "run", "-arch", a.name, "-image", img, "-timeout", "2m", "-ctl", sock, "examples/signals")
		l.waitLine(t, "signals: ready")
		signalTool(t, sock, "QUIT")
		out, stderr, status := l.wait(t)
		console := strings.Join(out, "\n")
		// "goroutine 1 gp=0x... m=nil [chan receive]:": SIGQUIT's dump has the runtime's details.
		main := regexp.MustCompile(`(?m)^goroutine 1 (gp=\S+ m=\S+ )?\[chan receive\]:$`)
		if status != 2 || !strings.Contains(console, "SIGQUIT: quit") || !main.MatchString(console) ||
			!strings.Contains(console, "main.main()") || stderr != "" {
			t.Errorf("status %d, stderr %q; want 2 and the dump of every goroutine, main's included:\n%s", status, stderr, console)
		}
	})
	t.Run("^C to the launcher", func(t *testing.T) {
		l := startLauncher(t, "run", "-arch", a.name, "-image", img, "-timeout", "2m", "examples/signals")
		l.waitLine(t, "signals: ready")
		l.cmd.Process.Signal(syscall.SIGINT)
		out, stderr, status := l.wait(t)
		if status != 0 || !slices.Contains(out, "signals: received interrupt") ||
			stderr != "unitrace run: SIGINT sent to the program; ^C again stops the guest\n" {
			t.Errorf("status %d, console %q, stderr %q", status, out, stderr)
		}
	})
	t.Run("^C twice", func(t *testing.T) {
		// The program stays after its first SIGINT here; the second stops QEMU.
		l := startLauncher(t, "run", "-arch", a.name, "-image", img, "-timeout", "2m", "examples/signals", "--", "-exit-after", "2")
		l.waitLine(t, "signals: ready")
		l.cmd.Process.Signal(syscall.SIGINT)
		l.waitLine(t, "signals: received interrupt")
		l.cmd.Process.Signal(syscall.SIGINT)
		out, stderr, status := l.wait(t)
		if status != 125 || slices.Contains(out, "unitrace: exit status 0") || !strings.HasPrefix(stderr, "unitrace run: SIGINT sent to the program; ^C again stops the guest\n") ||
			!strings.Contains(stderr, "unitrace run: interrupted: QEMU stopped on the signal before the guest exited (exit status 125)") {
			t.Errorf("status %d, console %q, stderr %q", status, out, stderr)
		}
	})
}

// signalTool runs unitrace signal -ctl sock sig, which must succeed.
func signalTool(t *testing.T, sock, sig string) {
	t.Helper()
	if out, stderr, status := runTool(t, "signal", "-ctl", sock, "-timeout", "1m", sig); status != 0 || out != "" || stderr != "" {
		t.Fatalf("unitrace signal %s: status %d, stdout %q, stderr %q", sig, status, out, stderr)
	}
}

// liveLauncher is a unitrace command the test talks to while it runs.
type liveLauncher struct {
	cmd    *exec.Cmd
	out    lines
	stderr lockedBuffer
}

// startLauncher starts unitrace args... from the module root.
func startLauncher(t *testing.T, args ...string) *liveLauncher {
	t.Helper()
	l := &liveLauncher{cmd: exec.Command(launcherPath(t), args...)}
	l.cmd.Dir = repoRoot
	l.cmd.Stdout, l.cmd.Stderr = &l.out, &l.stderr
	if err := l.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.cmd.Process.Kill(); l.cmd.Wait() })
	return l
}

// launcherWait bounds each wait for the launcher: a build and a boot under TCG.
const launcherWait = 3 * time.Minute

// waitLine waits for a console line.
func (l *liveLauncher) waitLine(t *testing.T, line string) {
	t.Helper()
	for end := time.Now().Add(launcherWait); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if slices.Contains(l.out.all(), line) {
			return
		}
	}
	t.Fatalf("no console line %q within %v; console %q, stderr %q", line, launcherWait, l.out.all(), l.stderr.String())
}

// wait waits for the launcher to exit and returns its console lines, standard error and status.
func (l *liveLauncher) wait(t *testing.T) (console []string, stderr string, status int) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- l.cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(launcherWait):
		l.cmd.Process.Kill()
		t.Fatalf("the launcher did not exit within %v; console %q, stderr %q", launcherWait, l.out.all(), l.stderr.String())
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		status = ee.ExitCode()
	default:
		t.Fatal(err)
	}
	l.out.Close()
	t.Logf("unitrace %s: status %d\nstderr:\n%s", strings.Join(l.cmd.Args[1:], " "), status, l.stderr.String())
	return l.out.all(), l.stderr.String(), status
}

// lockedBuffer is a bytes.Buffer that one goroutine writes while another reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
