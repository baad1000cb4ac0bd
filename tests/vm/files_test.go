package vm_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/unitrace/unitrace/internal/vmconfig"
)

// filesApp is the file system workload.
const filesApp = "examples/files"

// filesGolden is examples/files's output with the argument "unitrace": the lines its host test
// checks against Linux (testdata/golden.txt), with the image-only checks' lines
// (testdata/unitrace.txt) before the last two.
func filesGolden(t *testing.T) []string {
	t.Helper()
	read := func(name string) []string {
		data, err := os.ReadFile(filepath.Join(repoRoot, filesApp, "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	}
	lines := read("golden.txt")
	at := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "removeall:") })
	if at < 0 {
		t.Fatal("golden.txt has no removeall line")
	}
	return slices.Insert(lines, at, read("unitrace.txt")...)
}

// TestFiles boots examples/files with a 16 MiB file system and the syscall_path tracepoint on,
// and compares its console line by line with the output Linux gives on the host and the
// image-only lines (its /proc: os.Executable, cmdline, the fd links, meminfo, ...); then the
// recording's listing must show the paths the program's calls were given. The exec check's
// attempt to start a process must have made the kernel say, once, that it cannot.
func TestFiles(t *testing.T) {
	want := filesGolden(t)
	forEachArch(t, func(t *testing.T, a guestArch) {
		img, file := a.path("files.elf"), a.path("files.utrace")
		stdout, stderr, status := runLauncher(t, a, "-image", img, "-trace", "syscall_path", "-o", file,
			filesApp, "unitrace.fsmem=16M", "--", "unitrace")
		console := consoleLines(stdout)
		compareLines(t, programLines(console), want)
		// The exec check's failed start says why, once.
		const noProcess = vmconfig.KernelPrefix + "unitrace runs one process and cannot start another"
		if n := strings.Count(strings.Join(console, "\n")+"\n", noProcess+"\n"); n != 1 {
			t.Errorf("the console has %d lines %q, want 1", n, noProcess)
		}
		if status != 0 {
			t.Errorf("status %d, want 0\n%s", status, stderr)
		}
		out, _, st := runTool(t, "list", "-t", "syscall_path", file)
		if st != 0 {
			t.Fatalf("list: status %d", st)
		}
		// Short paths whole, long ones as "..." and their end.
		for _, p := range []string{`path="/dev/null"`, `path="/proc/self/cgroup"`, `path="/tmp/fill"`, `/seek.bin"`, `path="...`} {
			if !strings.Contains(out, p) {
				t.Errorf("the listing has no syscall_path with %s", p)
			}
		}
		if t.Failed() {
			t.Logf("list:\n%s", out)
		}
	})
}
