package vm_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unitrace/unitrace/internal/treelist"
)

// TestSharedFiles shares tests/vm/testdata/packed read-only at /in and a scratch directory
// read-write at /out into examples/shared, on both architectures. The console must list /in
// exactly as the host sees it (modes, times, sizes, SHA-256s, link targets), testing/fstest.TestFS
// must pass on it, and every check must pass: writes into /in fail with EROFS, ".." of the share
// is the guest's root, and a link the host made that points above the share resolves in the
// guest's tree. Then the host must find
// what the guest wrote: /in copied by os.CopyFS, and the pattern file byte for byte. The
// p9_rpc tracepoint must have recorded the round trips.
func TestSharedFiles(t *testing.T) {
	src := filepath.Join(repoRoot, "tests", "vm", "testdata", "packed")
	listing, err := treelist.Lines(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := append(listing,
		"list: 8 files",
		"fstest: ok",
		"copy: done",
		"pattern: 1048576 bytes, read back at 500000 true",
		"scratch: walked . a a/b a/b/c a/b/c/f a/d a/d/f e e/f, removed ENOENT",
		"readonly: write EROFS, mkdir EROFS, statfs read-only true",
		"dotdot: dev etc in out proc tmp",
		"escape: ENOENT",
		"exit: 0")
	forEachArch(t, func(t *testing.T, a guestArch) {
		out := t.TempDir()
		if err := os.Symlink("../../../../etc/hostname", filepath.Join(out, "escape")); err != nil {
			t.Fatal(err)
		}
		file := a.path("shared.utrace")
		stdout, stderr, status := runLauncher(t, a, "-image", a.path("shared.elf"), "-trace", "p9_rpc", "-o", file,
			"-share", src+":/in:ro", "-share", out+":/out", "examples/shared", "--", "/in", "/out")
		if status != 0 {
			t.Errorf("status %d\nstdout:\n%s\nstderr:\n%s", status, stdout, stderr)
		}
		compareLines(t, programLines(consoleLines(stdout)), want)

		sameTime := func(fs.FileInfo) int64 { return 0 }
		copied, err := treelist.Lines(filepath.Join(out, "copy"), sameTime)
		if err != nil {
			t.Fatal(err)
		}
		orig, _ := treelist.Lines(src, sameTime)
		compareLines(t, copied, orig)
		data, err := os.ReadFile(filepath.Join(out, "pattern.bin"))
		if err != nil {
			t.Fatal(err)
		}
		wantData := make([]byte, 1<<20)
		for i := range wantData {
			wantData[i] = byte(i*7 + i/251)
		}
		if !bytes.Equal(data, wantData) {
			t.Errorf("the host's pattern.bin (%d bytes) differs from what the guest wrote", len(data))
		}

		list, _, st := runTool(t, "list", "-t", "p9_rpc", file)
		if st != 0 {
			t.Fatalf("list: status %d", st)
		}
		// Twalk is 110, Tread 116 and Twrite 118.
		for _, typ := range []string{"type=110 ", "type=116 ", "type=118 "} {
			if !strings.Contains(list, typ) || !strings.Contains(list, "latency_ns=") {
				t.Errorf("the listing has no p9_rpc with %s", typ)
			}
		}
	})
}

// TestFilesOnShare runs examples/files with its scratch directory on a read-write share: the
// whole file system workload (writes, seeks, renames, links, symbolic links, the errors Linux
// gives, directory walks, os.CopyFS, testing/fstest, the working directory) must print what it
// prints on the host's own file system, but for FIFOs and extended attributes, which a share
// does not have: their checks must say so with the errnos docs/kernel.md gives (mknod of a FIFO
// EPERM, setxattr EOPNOTSUPP).
func TestFilesOnShare(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, filesApp, "testdata", "golden.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	for i, l := range want {
		switch {
		case strings.HasPrefix(l, "fifos: "):
			want[i] = "fifos: mkfifo EPERM: the file system makes no FIFOs"
		case strings.HasPrefix(l, "xattrs: "):
			want[i] = "xattrs: setxattr EOPNOTSUPP: the file system keeps no extended attributes"
		}
	}
	forEachArch(t, func(t *testing.T, a guestArch) {
		dir := t.TempDir()
		stdout, stderr, status := runLauncher(t, a, "-image", a.path("files.elf"), "-share", dir+":/share",
			filesApp, "TMPDIR=/share")
		if status != 0 {
			t.Errorf("status %d\nstderr:\n%s", status, stderr)
		}
		compareLines(t, programLines(consoleLines(stdout)), want)
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Errorf("the workload left %d entries in the shared directory", len(left))
		}
	})
}
