package vm_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/unitrace/unitrace/internal/vmconfig"
)

// passfailDir is the package TestUnitraceTest tests, and passfailPkg its import path.
const (
	passfailDir = "./tests/vm/testdata/passfail"
	passfailPkg = "github.com/unitrace/unitrace/tests/vm/testdata/passfail"
)

// TestUnitraceTest runs "unitrace test" on a package with a passing and a failing test: with
// -test.v it prints both tests' lines and go test's FAIL lines and exits 1; with the failing
// test skipped (an environment word) it prints go test's one ok line and exits 0.
func TestUnitraceTest(t *testing.T) {
	forEachArch(t, func(t *testing.T, a guestArch) {
		image := a.path("passfail.test.elf")
		stdout, _, status := runTool(t, "test", "-arch", a.name, "-image", image, passfailDir, "--", "-test.v", "-test.run", "^Test")
		lines := consoleLines(stdout)
		for _, want := range []string{
			"=== RUN   TestPasses",
			`    passfail_test.go:12: args ["-test.paniconexit0" "-test.timeout=9m0s" "-test.v" "-test.run" "^Test"]`,
			"--- PASS: TestPasses",
			"    passfail_test.go:20: this test fails on purpose",
			"--- FAIL: TestFails",
			"FAIL",
		} {
			if !slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, want) }) {
				t.Errorf("output lacks %q", want)
			}
		}
		failLine := regexp.MustCompile(`^FAIL\t` + regexp.QuoteMeta(passfailPkg) + `\t[0-9]+\.[0-9]{3}s$`)
		if n := len(lines); n < 2 || !failLine.MatchString(lines[n-2]) || lines[n-1] != "FAIL" {
			t.Errorf("output does not end with go test's FAIL lines")
		}
		if strings.Contains(stdout, vmconfig.ExitLinePrefix) {
			t.Errorf("output shows the kernel's exit line")
		}
		if status != 1 {
			t.Errorf("status %d, want 1 (a test failed)\noutput:\n%s", status, stdout)
		}

		stdout, _, status = runTool(t, "test", "-arch", a.name, "-image", image, passfailDir, "PASSFAIL_SKIP_FAILING=1")
		okLine := regexp.MustCompile(`^ok  \t` + regexp.QuoteMeta(passfailPkg) + `\t[0-9]+\.[0-9]{3}s\n$`)
		if !okLine.MatchString(stdout) || status != 0 {
			t.Errorf("status %d, want 0 and one ok line; output:\n%s", status, stdout)
		}
	})
}

// TestUnitraceTestHang: a test that hangs ends the run before the launcher's -timeout, with
// the testing package's report of the tests running and the goroutines' stacks, from the
// -test.timeout unitrace test gives the binary (20 s for a -timeout of 40 s).
func TestUnitraceTestHang(t *testing.T) {
	forEachArch(t, func(t *testing.T, a guestArch) {
		image := a.path("passfail.test.elf")
		stdout, stderr, status := runTool(t, "test", "-arch", a.name, "-timeout", "40s", "-image", image, passfailDir, "PASSFAIL_HANG=1",
			"--", "-test.run", "^TestHangs$")
		lines := consoleLines(stdout)
		for _, want := range []string{
			"panic: test timed out after 20s",
			"\trunning tests:",
			"\t\tTestHangs/inner (",
			"goroutine ",
			"FAIL\t" + passfailPkg,
		} {
			if !slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, want) }) {
				t.Errorf("output lacks %q", want)
			}
		}
		if status != 1 {
			t.Errorf("status %d, want 1 (the test binary failed, not the launcher's timeout)\nstdout:\n%s\nstderr:\n%s", status, stdout, stderr)
		}
	})
}

// pkgdirDir is the package TestUnitraceTestDirectory tests, and pkgdirPkg its import path.
const (
	pkgdirDir = "./tests/vm/testdata/pkgdir"
	pkgdirPkg = "github.com/unitrace/unitrace/tests/vm/testdata/pkgdir"
)

// TestUnitraceTestDirectory runs "unitrace test" on a package whose tests read its testdata by
// a relative path, look for their own source in the working directory, want PWD and a home and
// call getgroups: they pass only when the module is shared and the binary starts in the
// package's directory with go test's environment.
func TestUnitraceTestDirectory(t *testing.T) {
	forEachArch(t, func(t *testing.T, a guestArch) {
		stdout, _, status := runTool(t, "test", "-arch", a.name, "-image", a.path("pkgdir.test.elf"), pkgdirDir, "--", "-test.v")
		lines := consoleLines(stdout)
		for _, want := range []string{
			"--- PASS: TestReadsTestdata",
			"--- PASS: TestWorkingDirectory",
			"--- PASS: TestHome",
			"    pkgdir_test.go:52: groups []",
			"--- PASS: TestGetgroups",
		} {
			if !slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, want) }) {
				t.Errorf("output lacks %q", want)
			}
		}
		okLine := regexp.MustCompile(`^ok  \t` + regexp.QuoteMeta(pkgdirPkg) + `\t[0-9]+\.[0-9]{3}s$`)
		if n := len(lines); status != 0 || n == 0 || !okLine.MatchString(lines[n-1]) {
			t.Errorf("status %d, want 0 and go test's ok line last; output:\n%s", status, stdout)
		}
	})
}

// TestStdlibFileTests runs the standard library's own tests of the file-system interfaces in the
// guest, on both architectures: `unitrace test io/fs path/filepath testing/fstest` must pass as
// `go test` does on the host (in each package's directory, $GOROOT shared read-only).
func TestStdlibFileTests(t *testing.T) {
	pkgs := []string{"io/fs", "path/filepath", "testing/fstest"}
	forEachArch(t, func(t *testing.T, a guestArch) {
		stdout, stderr, status := runTool(t, append([]string{"test", "-arch", a.name}, pkgs...)...)
		for _, p := range pkgs {
			ok := regexp.MustCompile(`(?m)^ok  \t` + regexp.QuoteMeta(p) + `\t[0-9]+\.[0-9]{3}s$`)
			if !ok.MatchString(stdout) {
				t.Errorf("no ok line for %s", p)
			}
		}
		if status != 0 || t.Failed() {
			t.Errorf("status %d\nstdout:\n%s\nstderr:\n%s", status, stdout, stderr)
		}
	})
}
