package vm_test

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// filesMTime is the modification time the test packs every file with (-files-mtime).
const filesMTime = 1_700_000_000

// TestPackedFiles packs tests/vm/testdata/packed into examples/packed at /data through the
// launcher, on both architectures, and compares the guest's listing with the host's tree: every
// file, mode, time, size and SHA-256, every link target, and a read-only /data.
func TestPackedFiles(t *testing.T) {
	host := filepath.Join(repoRoot, "tests", "vm", "testdata", "packed")
	want := hostListing(t, host)
	want = append(want, "create: open /data/created-by-examples-packed: read-only file system")
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
	var out []string
	err := filepath.WalkDir(host, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(host, p)
		line := fmt.Sprintf("%s %d %s", fi.Mode(), filesMTime, rel)
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			line += " -> " + target
		case fi.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			line += fmt.Sprintf(" %d %x", len(data), sha256.Sum256(data))
		}
		out = append(out, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
