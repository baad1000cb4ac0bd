// Command shared is the workload of the VM test of shared host directories: it reads a tree the
// host shares read-only and writes into one the host shares read-write, so the test can check
// on the host what the guest wrote, byte for byte:
//
//	unitrace run -share SRC:/in:ro -share DST:/out examples/shared -- /in /out
//
// It prints one line per check and exits with status 0, or 1 when a check failed:
//
//   - the tree at /in, as examples/packed lists it (treelist), and testing/fstest.TestFS on it;
//   - copy: os.CopyFS of /in into /out/copy;
//   - pattern: 1 MiB written in pieces to a temporary name, read back at an offset, renamed to
//     /out/pattern.bin;
//   - scratch: os.MkdirTemp in /out, a tree made in it, walked, removed with os.RemoveAll;
//   - readonly: what writing into /in gives (EROFS), and that statfs says read-only;
//   - dotdot: what /in/.. lists (the guest's root: ".." never reaches the host's parent);
//   - escape: reading /out/escape, a link the host made to ../../../../etc/hostname, which the
//     guest resolves in its own tree (ENOENT).
package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing/fstest"

	"github.com/unitrace/unitrace/internal/treelist"
	_ "github.com/unitrace/unitrace/kernel"
)

// PatternSize is the size of /out/pattern.bin, whose byte i is Pattern(i).
const PatternSize = 1 << 20

// Pattern is the byte at offset i of the pattern file: it differs from its neighbours and
// repeats only every 251*256 bytes, so a piece at the wrong place shows.
func Pattern(i int) byte { return byte(i*7 + i/251) }

func main() {
	in, out := "/in", "/out"
	if len(os.Args) > 2 {
		in, out = os.Args[1], os.Args[2]
	}
	failed := 0
	check := func(name string, line string, err error) {
		if err != nil {
			failed++
			fmt.Printf("%s: FAIL: %v\n", name, err)
			return
		}
		fmt.Printf("%s: %s\n", name, line)
	}
	lines, err := treelist.Lines(in, nil)
	for _, l := range lines {
		fmt.Println(l)
	}
	check("list", fmt.Sprintf("%d files", len(lines)), err)
	check("fstest", "ok", fstest.TestFS(os.DirFS(in), "a.txt", "sub/b.txt", "sub/deeper/c.bin"))
	check("copy", "done", os.CopyFS(filepath.Join(out, "copy"), os.DirFS(in)))
	line, err := pattern(out)
	check("pattern", line, err)
	line, err = scratch(out)
	check("scratch", line, err)
	line, err = readOnly(in)
	check("readonly", line, err)
	line, err = dotdot(in)
	check("dotdot", line, err)
	_, err = os.ReadFile(filepath.Join(out, "escape"))
	check("escape", errnoName(err), nil)
	if failed > 0 {
		fmt.Printf("exit: 1 (%d checks failed)\n", failed)
		os.Exit(1)
	}
	fmt.Println("exit: 0")
}

// pattern writes the pattern file in uneven pieces, reads a stretch back and renames it.
func pattern(out string) (string, error) {
	tmp := filepath.Join(out, "pattern.tmp")
	f, err := os.Create(tmp)
	if err != nil {
		return "", err
	}
	data := make([]byte, PatternSize)
	for i := range data {
		data[i] = Pattern(i)
	}
	for off := 0; off < len(data); {
		n := min(len(data)-off, 100_000+off%7919)
		if _, err := f.Write(data[off : off+n]); err != nil {
			return "", err
		}
		off += n
	}
	back := make([]byte, 70_000)
	if _, err := f.ReadAt(back, 500_000); err != nil {
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, filepath.Join(out, "pattern.bin")); err != nil {
		return "", err
	}
	return fmt.Sprintf("%d bytes, read back at 500000 %v", len(data), bytes.Equal(back, data[500_000:570_000])), nil
}

// scratch makes a temporary tree, walks it and removes it.
func scratch(out string) (string, error) {
	dir, err := os.MkdirTemp(out, "scratch-")
	if err != nil {
		return "", err
	}
	for _, p := range []string{"a/b/c", "a/d", "e"} {
		if err := os.MkdirAll(filepath.Join(dir, p), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(dir, p, "f"), []byte(p), 0o644); err != nil {
			return "", err
		}
	}
	var walked []string
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(dir, p)
		walked = append(walked, rel)
		return err
	})
	if err != nil {
		return "", err
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	_, err = os.Stat(dir)
	return fmt.Sprintf("walked %s, removed %s", strings.Join(walked, " "), errnoName(err)), nil
}

// readOnly tries to change the read-only share.
func readOnly(in string) (string, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(in, &st); err != nil {
		return "", err
	}
	werr := os.WriteFile(filepath.Join(in, "new"), nil, 0o644)
	merr := os.Mkdir(filepath.Join(in, "newdir"), 0o755)
	return fmt.Sprintf("write %s, mkdir %s, statfs read-only %v", errnoName(werr), errnoName(merr), st.Flags&0x1 != 0), nil
}

// dotdot lists the parent of the share.
func dotdot(in string) (string, error) {
	entries, err := os.ReadDir(filepath.Join(in, ".."))
	if err != nil {
		return "", err
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return strings.Join(names, " "), nil
}

// errnoName names the errno inside err, "nil" for none.
func errnoName(err error) string {
	if err == nil {
		return "nil"
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		switch errno {
		case syscall.ENOENT:
			return "ENOENT"
		case syscall.EROFS:
			return "EROFS"
		}
		return fmt.Sprintf("errno %d", int(errno))
	}
	return err.Error()
}
