package main

import (
	"regexp"
	"testing"

	"github.com/unitrace/unitrace/internal/selfexec"
)

// TestMain runs main instead of the tests in a child started by selfexec.Command.
func TestMain(m *testing.M) { selfexec.Main(m, main) }

// TestRun runs the demo briefly as a child process and checks its exit status and its report.
func TestRun(t *testing.T) {
	out, err := selfexec.Output("300ms")
	if err != nil {
		t.Fatalf("exit: %v, output:\n%s", err, out)
	}
	want := regexp.MustCompile(`^` +
		`demo: json: [1-9][0-9]* round trips of 100 orders, checksum 0x[0-9a-f]{16}\n` +
		`demo: sort: [1-9][0-9]* sorts of 20000 records, checksum 0x[0-9a-f]{16}\n` +
		`demo: sha256: [1-9][0-9]* SHA-256 sums of 64 KiB, checksum 0x[0-9a-f]{16}\n` +
		`demo: matrix: [1-9][0-9]* 96x96 matrix multiplies, checksum 0x[0-9a-f]{16}\n` +
		`demo: 4 workers ran for [0-9.]+m?s\n$`)
	if !want.MatchString(out) {
		t.Errorf("output:\n%s\ndoes not match\n%s", out, want)
	}
}

func TestUsageErrors(t *testing.T) {
	selfexec.CheckUsageErrors(t, [][]string{{"soon"}, {"0s"}, {"1s", "extra"}})
}
