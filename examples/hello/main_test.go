package main

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/unitrace/unitrace/internal/selfexec"
)

// TestMain runs main instead of the tests in a child started by selfexec.Command.
func TestMain(m *testing.M) { selfexec.Main(m, main) }

// TestHostOutput runs hello on the host with the VM tests' canonical command
// line and compares its output with the golden file they use too.
func TestHostOutput(t *testing.T) {
	golden, err := os.ReadFile("testdata/golden.txt")
	if err != nil {
		t.Fatal(err)
	}
	cmd := selfexec.Command("alpha", "beta")
	cmd.Env = append(cmd.Env, envVar+"=unitrace")
	out, err := cmd.Output()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Errorf("exit: %v, want exit status 3", err)
	}
	got, want := strings.Split(string(out), "\n"), strings.Split(string(golden), "\n")
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
