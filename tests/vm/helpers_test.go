package vm_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hugelgupf/vmtest/qemu"
	"github.com/unitrace/unitrace/internal/image"
	"github.com/unitrace/unitrace/internal/vmconfig"
)

const (
	// vmTimeout bounds one boot. hello takes a few seconds under TCG;
	// the margin is for slow, loaded CI machines.
	vmTimeout = 5 * time.Minute
	// helloApp and fakeApp are main packages, relative to the module root.
	helloApp = "examples/hello"
	fakeApp  = "tests/vm/testdata/fakeguest/cmd/fake"
)

// repoRoot is the module root: tests run in tests/vm.
var repoRoot = func() string {
	abs, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		panic(err)
	}
	return abs
}()

var scratch string // removed by TestMain

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "unitrace-vmtest-")
	if err != nil {
		panic(err)
	}
	scratch = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// requireQEMU skips the test when the emulator for arch is missing.
func requireQEMU(t testing.TB, arch qemu.Arch) {
	t.Helper()
	bin := vmconfig.QEMUBinary(arch)
	if _, err := exec.LookPath(bin); err != nil {
		t.Skipf("%s is not installed, so no VM can boot here: run `make deps` (apt-get install qemu-system-x86 qemu-system-arm)", bin)
	}
}

// images builds each (arch, app) once per test binary.
var images = struct {
	sync.Mutex
	m map[string]*imageOnce
}{m: map[string]*imageOnce{}}

type imageOnce struct {
	once sync.Once
	path string
	err  error
}

// buildImage returns the image of the main package app for arch a.
func buildImage(t testing.TB, a guestArch, app string) string {
	t.Helper()
	key := a.name + " " + app
	images.Lock()
	e := images.m[key]
	if e == nil {
		e = &imageOnce{}
		images.m[key] = e
	}
	images.Unlock()
	e.once.Do(func() {
		spec, err := image.SpecFor(a.image)
		if err != nil {
			e.err = err
			return
		}
		var stderr bytes.Buffer
		out := a.path(strings.ReplaceAll(app, "/", "_") + ".elf")
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		res, err := image.Build(ctx, image.BuildConfig{AppDir: filepath.Join(repoRoot, app), Output: out, Spec: spec, Stderr: &stderr})
		e.path, e.err = res.Path, err
		if err != nil {
			e.err = errors.Join(err, errors.New(stderr.String()))
		}
	})
	if e.err != nil {
		t.Fatalf("building %s for %s: %v", app, a.name, e.err)
	}
	return e.path
}

// lines records console output as lines without line endings. It never
// blocks or fails (vmtest trap: a stalled serial writer stalls QEMU), and
// bounds what it keeps (trap: a guest that prints an endless line).
type lines struct {
	mu      sync.Mutex
	partial []byte
	done    []string
}

const (
	maxLineBytes = 4096
	maxLines     = 100000
)

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, b := range p {
		switch {
		case b == '\n':
			l.end()
		case len(l.partial) < maxLineBytes:
			l.partial = append(l.partial, b)
		}
	}
	return len(p), nil
}

func (l *lines) end() {
	if len(l.done) < maxLines {
		l.done = append(l.done, strings.TrimRight(string(l.partial), "\r"))
	}
	l.partial = l.partial[:0]
}

func (l *lines) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.partial) > 0 {
		l.end()
	}
	return nil
}

func (l *lines) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.done...)
}

// bootVM boots cfg through vmtest and returns the console lines and how the
// VM ended. It always waits for QEMU (vmtest requires it) and never uses
// StartT, whose line logger deadlocks on lines over 64 KiB.
func bootVM(t testing.TB, cfg vmconfig.Config) ([]string, vmconfig.Outcome) {
	t.Helper()
	return bootVMDriven(t, cfg, nil)
}

// vmDriver acts on a running guest (TestConsoleInput types into it): it sees the serial
// output as it comes, starts once QEMU runs, and says how it went once QEMU has exited.
type vmDriver interface {
	io.WriteCloser
	start(vm *qemu.VM)
	end() error
}

// bootVMDriven is bootVM with d, when not nil, acting on the guest while it runs.
func bootVMDriven(t testing.TB, cfg vmconfig.Config, d vmDriver) ([]string, vmconfig.Outcome) {
	t.Helper()
	if cfg.Timeout == 0 {
		cfg.Timeout = vmTimeout
	}
	var console vmconfig.Console
	var rec lines
	serial := []io.WriteCloser{&console, &rec}
	if d != nil {
		serial = append(serial, d)
	}
	opts, err := cfg.Options(qemu.WithSerialOutput(serial...))
	if err != nil {
		t.Fatal(err)
	}
	// The context is a second bound in case QEMU ignores the kill.
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Timeout+time.Minute)
	defer cancel()
	start := time.Now()
	vm, err := opts.Start(ctx)
	if err != nil {
		t.Fatalf("starting QEMU: %v", err)
	}
	t.Logf("QEMU: %s", vm.CmdlineQuoted())
	if d != nil {
		d.start(vm)
	}
	waitErr := vm.Wait()
	if d != nil {
		if err := d.end(); err != nil {
			t.Error(err)
		}
	}
	if waitErr != nil && time.Since(start) >= cfg.Timeout {
		// vmtest killed QEMU at its VMTimeout, and its error does not say so.
		waitErr = fmt.Errorf("%w after %v: %w", vmconfig.ErrTimeout, cfg.Timeout, waitErr)
	}
	out := vmconfig.GuestExit(cfg.Arch, waitErr, console.Seen())
	got := rec.all()
	if t.Failed() || testing.Verbose() {
		t.Logf("console:\n%s", strings.Join(got, "\n"))
	}
	return got, out
}

// programLines drops the kernel's own messages from console lines.
func programLines(console []string) []string {
	var out []string
	for _, l := range console {
		if !strings.HasPrefix(l, vmconfig.KernelPrefix) {
			out = append(out, l)
		}
	}
	return out
}

// compareLines reports every line where got and want differ.
func compareLines(t *testing.T, got, want []string) {
	t.Helper()
	for i := range max(len(got), len(want)) {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			t.Errorf("line %d: got %q, want %q", i+1, g, w)
		}
	}
}

// launcher builds cmd/unitrace once.
var launcher struct {
	once sync.Once
	path string
	err  error
}

// runLauncher runs `unitrace run -arch a args...` from the module root and returns
// its standard output, standard error and exit status.
func runLauncher(t testing.TB, a guestArch, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	return runTool(t, append([]string{"run", "-arch", a.name}, args...)...)
}

// runTool runs `unitrace args...` (any subcommand) from the module root and returns its
// standard output, standard error and exit status. Its standard input is /dev/null.
func runTool(t testing.TB, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	return runToolInput(t, nil, args...)
}

// runToolInput is runTool with the tool's standard input a pipe that carries in (nil:
// /dev/null).
func runToolInput(t testing.TB, in io.Reader, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), vmTimeout+2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, launcherPath(t), args...)
	cmd.Dir = repoRoot
	cmd.Stdin = in
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		status = ee.ExitCode()
	default:
		t.Fatalf("unitrace %s: %v", args[0], err)
	}
	t.Logf("unitrace %s: status %d\nstderr:\n%s", strings.Join(args, " "), status, e.String())
	return o.String(), e.String(), status
}

// launcherPath returns the unitrace binary, built once per test binary.
func launcherPath(t testing.TB) string {
	t.Helper()
	launcher.once.Do(func() {
		launcher.path = filepath.Join(scratch, "unitrace")
		cmd := exec.Command("go", "build", "-o", launcher.path, "./cmd/unitrace")
		cmd.Dir = repoRoot
		if out, err := cmd.CombinedOutput(); err != nil {
			launcher.err = errors.Join(err, errors.New(string(out)))
		}
	})
	if launcher.err != nil {
		t.Fatalf("building the launcher: %v", launcher.err)
	}
	return launcher.path
}

// consoleLines splits launcher output into lines without line endings.
func consoleLines(s string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		out = append(out, strings.TrimRight(l, "\r"))
	}
	return out
}

// traceSockets listens on the two trace ports' unix sockets in a fresh directory, for a guest
// whose QEMU connects to them (ports, for vmconfig.Config.Trace).
func traceSockets(t testing.TB) (ports *vmconfig.TracePorts, data, ctl net.Listener) {
	t.Helper()
	dir := t.TempDir()
	ports = &vmconfig.TracePorts{Data: filepath.Join(dir, "data.sock"), Ctl: filepath.Join(dir, "ctl.sock")}
	listen := func(path string) net.Listener {
		ln, err := net.Listen("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ln.Close() })
		return ln
	}
	return ports, listen(ports.Data), listen(ports.Ctl)
}

// acceptConn waits (two minutes at most) for QEMU to connect to ln.
func acceptConn(t testing.TB, ln net.Listener) net.Conn {
	t.Helper()
	ln.(*net.UnixListener).SetDeadline(time.Now().Add(2 * time.Minute))
	c, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// median is the middle of v (the upper one of an even count): what the benchmarks report over
// their rounds.
func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
