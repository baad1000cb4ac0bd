package main

import (
	"os"
	"strings"
	"testing"

	"github.com/unitrace/unitrace/internal/selfexec"
)

// TestMain runs main instead of the tests in a child started by selfexec.Command.
func TestMain(m *testing.M) { selfexec.Main(m, main) }

// TestHostOutput runs files on the host's Linux, from "/" as in an image, and compares its
// output with the golden file the VM test uses too: the kernel's file system must answer as
// Linux does.
func TestHostOutput(t *testing.T) {
	golden, err := os.ReadFile("testdata/golden.txt")
	if err != nil {
		t.Fatal(err)
	}
	cmd := selfexec.Command()
	cmd.Dir = "/"
	out, err := cmd.Output()
	if err != nil {
		t.Errorf("exit: %v, want exit status 0", err)
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
