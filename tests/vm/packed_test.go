package vm_test

import (
	"io/fs"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/unitrace/unitrace/internal/treelist"
)

// filesMTime is the modification time the test packs every file with (-files-mtime).
const filesMTime = 1_700_000_000

// TestPackedFiles packs tests/vm/testdata/packed into examples/packed at /data through the
// launcher, on both architectures, and compares the guest's listing with the host's tree: every
// file, mode, time, size and SHA-256, every link target, testing/fstest.TestFS passing on the
// tree, and a read-only /data.
func TestPackedFiles(t *testing.T) {
	host := filepath.Join(repoRoot, "tests", "vm", "testdata", "packed")
	want := hostListing(t, host)
	want = append(want, "fstest: ok", "create: open /data/created-by-examples-packed: read-only file system")
	forEachArch(t, func(t *testing.T, a guestArch) {
		stdout, stderr, status := runLauncher(t, a, "-image", a.path("packed.elf"), "-files", host+":/data",
			"-files-mtime", strconv.Itoa(filesMTime), "examples/packed", "--", "/data")
		if status != 0 {
			t.Errorf("status %d\nstdout:\n%s\nstderr:\n%s", status, stdout, stderr)
		}
		compareLines(t, programLines(consoleLines(stdout)), want)
	})
}

// hostListing is what examples/packed prints for host, packed with filesMTime.
func hostListing(t *testing.T, host string) []string {
	t.Helper()
	lines, err := treelist.Lines(host, func(fs.FileInfo) int64 { return filesMTime })
	if err != nil {
		t.Fatal(err)
	}
	return lines
}
