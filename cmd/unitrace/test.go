package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/unitrace/unitrace/internal/image"
	"github.com/unitrace/unitrace/internal/vmconfig"
)

// testOptions is the parsed command line of "unitrace test": run's flags, with packages where
// run has APP_DIR and the test binary's flags as the program's arguments.
type testOptions struct {
	runOptions
	patterns []string // go test's package patterns; default "."
}

const testDoc = `Build the tests of each package (import paths, relative directories or patterns,
as for go test; default ".") into an image and boot it in QEMU. The go command
runs in the current directory, which must be a module that can import
github.com/unitrace/unitrace/kernel (this one, or one that requires it); the
kernel is added to the test binary without touching the package's files.
KEY=VALUE words become the guest's environment; words after -- go to the test
binary (-test.v, -test.run RE, -test.short, ...). Flags may also follow PKG.
Unless they set -test.timeout (or -timeout is 0), the binary gets one a tenth
short of -timeout (30 s to half of it), so a hung test ends with the testing
package's report of the tests running and every goroutine's stack.

As go test does, the test binary starts in the package's directory (PWD names
it), which the guest finds at its host path: the package's module is shared
there read-write, or $GOROOT read-only for a standard library package, so
-share directories must lie outside it. HOME is /tmp unless a KEY=VALUE word
sets it.

Output and exit status are go test's: "ok" or "FAIL" per package (the guest's
output only for a failed package, or always with -test.v), 0 when every test
passed, 1 when one failed or could not be built; 70, 124, 125 or 128+N (as
for run) when a guest kernel faults, runs past -timeout, QEMU fails or a
signal ends it; 2 for a usage error. -image, -o, -pprof and -sockets take
one package; ^C and -ctl SOCK reach each package's guest in turn, as for
run. -share (as for run) mounts host directories in every package's guest,
up to one fewer than run's.
`

var testCommand = command{
	name: "test",
	synopsis: "[-arch amd64|arm64] [-machine MACHINE] [-m SIZE] [-smp N] [-accel tcg|kvm] [-cpu MODEL] [-timeout D] [-image ELF] [-v] [-n] " +
		"[-share HOSTDIR:GUESTDIR[:ro] ...] " +
		"[-trace GLOBS] [-probe SPEC ... [-probe-strings N]] [-backtrace] [-ring SIZE] [-sample HZ] [-sample-force] [-offcpu [-offcpu-hz HZ] [-offcpu-max N]] [-wakers] [-mode stream|flight] [-pprof FILE] [-o FILE] [-sockets DIR] [-ctl SOCK] [-net host|none] [-listen GUESTPORT=HOSTADDR:PORT ...] " +
		"[PKG ...] [KEY=VALUE ...] [-- TESTFLAGS ...]",
	summary: "build the tests of packages into images and boot them in QEMU, printing and exiting as go test does",
	doc:     testDoc,
	setup:   testSetup,
}

func testSetup(fs *flag.FlagSet) func(std stdio, args []string) error {
	var o testOptions
	o.register(fs)
	return func(std stdio, args []string) error {
		if err := o.parse(fs, args); err != nil {
			return flagError(err)
		}
		return runTests(std, o)
	}
}

// parse parses test's command line with fs, whose flags register defined into o: flags
// anywhere before the first "--", package patterns and KEY=VALUE words (those with a "="),
// then the test binary's flags.
func (o *testOptions) parse(fs *flag.FlagSet, args []string) error {
	words, err := o.parseFlags(fs, args)
	if err != nil {
		return err
	}
	for _, w := range words {
		k, _, ok := strings.Cut(w, "=")
		switch {
		case !ok:
			o.patterns = append(o.patterns, w)
		case k == "":
			return usageError{fmt.Sprintf("%q is not KEY=VALUE", w)}
		default:
			o.env = append(o.env, w)
		}
	}
	if len(o.patterns) == 0 {
		o.patterns = []string{"."}
	}
	// As go test does: a test calling os.Exit(0) must not pass for a run that finished.
	o.args = append([]string{"-test.paniconexit0"}, o.args...)
	if d := guestTestTimeout(o.timeout, o.args); d > 0 {
		o.args = append(o.args[:1], append([]string{"-test.timeout=" + d.String()}, o.args[1:]...)...)
	}
	return o.check()
}

// guestTestTimeout is the -test.timeout the test binary gets so that a test that hangs ends
// the run with the testing package's own report (the tests running, every goroutine's stack)
// before the launcher's -timeout kills the guest without a word: the launcher's timeout less
// a tenth (at least 30 s, at most half), or 0 (none added) without a launcher timeout or when
// the binary's flags set one.
func guestTestTimeout(launcher time.Duration, args []string) time.Duration {
	if launcher <= 0 {
		return 0
	}
	for _, a := range args {
		if a == "--" {
			break
		}
		a = strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		if a == "test.timeout" || strings.HasPrefix(a, "test.timeout=") {
			return 0
		}
	}
	margin := min(max(launcher/10, 30*time.Second), launcher/2)
	return (launcher - margin).Truncate(time.Second)
}

// onePackageFlags are the flags that name one file and so take one package.
func (o *testOptions) onePackageFlags() string {
	var set []string
	for _, f := range []struct{ name, value string }{{"-image", o.output}, {"-o", o.traceFile}, {"-pprof", o.pprofFile}, {"-sockets", o.sockets}} {
		if f.value != "" {
			set = append(set, f.name)
		}
	}
	return strings.Join(set, ", ")
}

// testVerbose reports whether the test binary's flags ask for -test.v, in which case go test
// prints every package's output as it comes.
func testVerbose(args []string) bool {
	for _, a := range args {
		a = strings.TrimPrefix(a, "-")
		a = strings.TrimPrefix(a, "-")
		if a == "test.v" || strings.HasPrefix(a, "test.v=") && a != "test.v=false" {
			return true
		}
	}
	return false
}

// testImagePath is where the image of pkg's tests goes by default: build/ in the module the
// go command runs in, named after the import path.
func testImagePath(moduleDir string, pkg image.TestPackage, arch string) string {
	name := strings.NewReplacer("/", "_", ".", "_").Replace(pkg.ImportPath)
	return filepath.Join(moduleDir, "build", "test", fmt.Sprintf("%s.test-%s.elf", name, arch))
}

// runTests builds and boots the tests of each package in turn, as go test runs them.
func runTests(std stdio, o testOptions) error {
	g, err := o.guest()
	if err != nil {
		return err
	}
	ctx := context.Background()
	pkgs, err := image.ListTestPackages(ctx, "", g.spec, o.patterns, std.err)
	if err != nil {
		fmt.Fprintf(std.out, "FAIL\t%s [setup failed]\nFAIL\n", strings.Join(o.patterns, " "))
		fmt.Fprintf(std.err, "unitrace test: %v\n", err)
		return exitStatus(1)
	}
	if flags := o.onePackageFlags(); flags != "" && len(pkgs) > 1 {
		return usageError{fmt.Sprintf("%s name one file: give one package, not %d", flags, len(pkgs))}
	}
	moduleDir, err := image.ModuleDir(ctx, "", g.spec)
	if err != nil {
		fmt.Fprintf(std.err, "unitrace test: %v\n", err)
		return exitStatus(1)
	}
	modCache, err := image.ModuleCache(ctx, "", g.spec)
	if err != nil {
		fmt.Fprintf(std.err, "unitrace test: %v\n", err)
		return exitStatus(1)
	}
	status := 0
	for _, pkg := range pkgs {
		st := 1
		if pkg, err = image.ModuleCopy(ctx, g.spec, pkg, modCache, filepath.Join(moduleDir, "go.mod"), filepath.Join(moduleDir, "build", "test", "mod")); err != nil {
			fmt.Fprintf(std.err, "unitrace test: %v\n", err)
			fmt.Fprintf(std.out, "FAIL\t%s [setup failed]\n", pkg.ImportPath)
		} else {
			st = testPackage(ctx, std, o, g, pkg, moduleDir)
		}
		if status == 0 || status == 1 && st > 1 { // a launcher status wins over a failed test
			status = st
		}
	}
	if status != 0 {
		fmt.Fprintln(std.out, "FAIL")
	}
	return exitStatus(status)
}

// testPackage builds and boots the tests of pkg, prints go test's lines for it and returns
// the status it contributes: 0 passed, 1 failed, or the launcher's status for a VM that did
// not end with the test binary's exit.
func testPackage(ctx context.Context, std stdio, o testOptions, g guest, pkg image.TestPackage, moduleDir string) int {
	if !pkg.HasTests {
		fmt.Fprintf(std.out, "?   \t%s\t[no test files]\n", pkg.ImportPath)
		return 0
	}
	cfg, err := packageConfig(g.cfg, pkg)
	if err != nil {
		fmt.Fprintf(std.err, "unitrace test: %v\n", err)
		fmt.Fprintf(std.out, "FAIL\t%s [setup failed]\n", pkg.ImportPath)
		return 1
	}
	g.cfg = cfg
	output := o.output
	if output == "" {
		output = testImagePath(moduleDir, pkg, o.arch)
	}
	res, err := image.BuildTest(ctx, image.TestBuildConfig{Package: pkg, Output: output, Spec: g.spec, Stderr: std.err})
	if err != nil {
		fmt.Fprintf(std.err, "unitrace test: %v\n", err)
		fmt.Fprintf(std.out, "FAIL\t%s [build failed]\n", pkg.ImportPath)
		return 1
	}
	verbose := testVerbose(o.args)
	var buffered bytes.Buffer
	console := &guestOutput{w: std.out}
	if !verbose && !o.dryRun {
		console.w = &buffered // go test shows a passing package's output only with -v
	}
	start := time.Now()
	out, err := g.launch(stdio{in: std.in, out: console, err: std.err}, o.runOptions, res.Path, "unitrace test")
	console.Close()
	elapsed := time.Since(start)
	if err != nil {
		fmt.Fprintf(std.err, "unitrace test: %v\n", err)
		fmt.Fprintf(std.out, "FAIL\t%s [setup failed]\n", pkg.ImportPath)
		return 1
	}
	if o.dryRun {
		return 0
	}
	if out.Kind == vmconfig.Exited && out.Status == 0 {
		fmt.Fprintf(std.out, "ok  \t%s\t%.3fs\n", pkg.ImportPath, elapsed.Seconds())
		return 0
	}
	std.out.Write(buffered.Bytes())
	status := 1
	switch {
	case out.Kind != vmconfig.Exited:
		fmt.Fprintf(std.err, "unitrace test: %s: %s (exit status %d)\n", pkg.ImportPath, out.Reason, out.Status)
		if running := console.running(); len(running) > 0 {
			fmt.Fprintf(std.err, "unitrace test: %s: running when it ended: %s\n", pkg.ImportPath, strings.Join(running, ", "))
		}
		status = out.Status
	case console.last != "FAIL": // the binary did not end by reporting failed tests
		fmt.Fprintf(std.out, "exit status %d\n", out.Status)
	}
	fmt.Fprintf(std.out, "FAIL\t%s\t%.3fs\n", pkg.ImportPath, elapsed.Seconds())
	return status
}

// guestOutput passes the guest's console to w line by line, without the kernel's exit line
// (the test binary's status is in go test's ok/FAIL line instead), and remembers the last
// line it passed on and, from -test.v's lines, the tests started and not yet ended.
type guestOutput struct {
	w       io.Writer
	partial []byte
	last    string
	started []string // "=== RUN" in order, less those a "--- PASS/FAIL/SKIP" ended
}

// running returns the tests started (=== RUN) and not ended (--- PASS, FAIL or SKIP), in the
// order they started: when the guest is killed, the ones that hung.
func (g *guestOutput) running() []string { return g.started }

// track follows -test.v's lines: a test's start, and its end (indented for a subtest).
func (g *guestOutput) track(text string) {
	if name, ok := strings.CutPrefix(text, "=== RUN   "); ok {
		g.started = append(g.started, strings.TrimSpace(name))
		return
	}
	t := strings.TrimLeft(text, " ")
	for _, p := range []string{"--- PASS: ", "--- FAIL: ", "--- SKIP: "} {
		if rest, ok := strings.CutPrefix(t, p); ok {
			name, _, _ := strings.Cut(rest, " (")
			if i := slices.Index(g.started, name); i >= 0 {
				g.started = slices.Delete(g.started, i, i+1)
			}
			return
		}
	}
}

func (g *guestOutput) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			g.partial = append(g.partial, p...)
			break
		}
		g.line(append(g.partial, p[:i+1]...))
		g.partial = g.partial[:0]
		p = p[i+1:]
	}
	return n, nil
}

// Close passes on an unfinished last line.
func (g *guestOutput) Close() error {
	if len(g.partial) > 0 {
		g.line(g.partial)
		g.partial = nil
	}
	return nil
}

func (g *guestOutput) line(l []byte) {
	text := strings.TrimRight(string(l), "\r\n")
	if _, ok := vmconfig.ParseExitLine(text); ok {
		return
	}
	g.last = text
	g.track(text)
	g.w.Write(l)
}
