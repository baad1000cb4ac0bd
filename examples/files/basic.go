package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

func writeRead(dir string) (string, error) {
	p := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(p, []byte("hello, files\n"), 0o666); err != nil {
		return "", err
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(p)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%q, %d bytes, mode %v (umask 022)", b, st.Size(), st.Mode()), nil
}

func appendFile(dir string) (string, error) {
	p := filepath.Join(dir, "a.txt")
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return "", err
	}
	if _, err := f.WriteString("more\n"); err != nil {
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	b, err := os.ReadFile(p)
	return fmt.Sprintf("%q", b), err
}

// pattern is n bytes that differ from their neighbours, so that a read at the wrong place shows.
func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i/251)
	}
	return b
}

func seek(dir string) (string, error) {
	p := filepath.Join(dir, "seek.bin")
	data := pattern(10000)
	f, err := os.Create(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		return "", err
	}
	if off, err := f.Seek(5000, io.SeekStart); off != 5000 || err != nil {
		return "", fmt.Errorf("seek to 5000: %d, %v", off, err)
	}
	buf := make([]byte, 10)
	if _, err := io.ReadFull(f, buf); err != nil || !bytes.Equal(buf, data[5000:5010]) {
		return "", fmt.Errorf("read at 5000: %v", err)
	}
	if off, _ := f.Seek(0, io.SeekCurrent); off != 5010 {
		return "", fmt.Errorf("position after the read: %d", off)
	}
	end, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return "", err
	}
	n, err := f.ReadAt(buf, 9995)
	if n != 5 || err != io.EOF || !bytes.Equal(buf[:5], data[9995:]) {
		return "", fmt.Errorf("ReadAt 9995: %d, %v", n, err)
	}
	if _, err := f.WriteAt([]byte("XY"), 2); err != nil {
		return "", err
	}
	_, serr := f.Seek(-1, io.SeekStart)
	b, err := os.ReadFile(p)
	if err != nil || len(b) != 10000 || string(b[2:4]) != "XY" {
		return "", fmt.Errorf("after WriteAt: %d bytes, %v", len(b), err)
	}
	return fmt.Sprintf("end at %d, read back at 5000 and 9995, WriteAt in place, seek before 0 %s", end, errnoName(serr)), nil
}

func sparse(dir string) (string, error) {
	p := filepath.Join(dir, "sparse.bin")
	f, err := os.Create(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if _, err := f.WriteAt([]byte("x"), 1<<20); err != nil {
		return "", err
	}
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	hole := make([]byte, 4096)
	if _, err := f.ReadAt(hole, 512<<10); err != nil {
		return "", err
	}
	if !bytes.Equal(hole, make([]byte, 4096)) {
		return "", errors.New("the hole does not read as zeros")
	}
	blocks := st.Sys().(*syscall.Stat_t).Blocks
	return fmt.Sprintf("size %d, the hole reads zeros, %v", st.Size(), blocks < 64), nil
}

func truncate(dir string) (string, error) {
	p := filepath.Join(dir, "seek.bin")
	if err := os.Truncate(p, 100); err != nil {
		return "", err
	}
	st, err := os.Stat(p)
	if err != nil {
		return "", err
	}
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if err := f.Truncate(200); err != nil {
		return "", err
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return "", err
	}
	ro, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer ro.Close()
	return fmt.Sprintf("truncate to %d, ftruncate to %d with zeros past 100 %v, read-only ftruncate %s",
		st.Size(), len(b), bytes.Equal(b[100:], make([]byte, 100)), errnoName(ro.Truncate(0))), nil
}

func rename(dir string) (string, error) {
	a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	if err := os.Rename(a, b); err != nil {
		return "", err
	}
	_, errA := os.Stat(a)
	data, err := os.ReadFile(b)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(a, []byte("replaced"), 0o644); err != nil {
		return "", err
	}
	if err := os.Rename(a, b); err != nil {
		return "", err
	}
	data2, _ := os.ReadFile(b)
	d := filepath.Join(dir, "d")
	if err := os.Mkdir(d, 0o755); err != nil {
		return "", err
	}
	return fmt.Sprintf("old name %s, %q moved; over an existing file %q; file over a directory %s",
		errnoName(errA), data, data2, errnoName(os.Rename(b, d))), nil
}

func links(dir string) (string, error) {
	p, q := filepath.Join(dir, "seek.bin"), filepath.Join(dir, "hard.bin")
	if err := os.Link(p, q); err != nil {
		return "", err
	}
	st, err := os.Stat(p)
	if err != nil {
		return "", err
	}
	nlink := st.Sys().(*syscall.Stat_t).Nlink
	same, _ := os.Stat(q)
	if err := os.Remove(p); err != nil {
		return "", err
	}
	b, err := os.ReadFile(q)
	return fmt.Sprintf("nlink %d, same file %v, %d bytes left after removing the first name, again %s",
		nlink, os.SameFile(st, same), len(b), errnoName(os.Link(q, q))), err
}

func symlinks(dir string) (string, error) {
	l := filepath.Join(dir, "link")
	if err := os.Symlink("b.txt", l); err != nil {
		return "", err
	}
	target, err := os.Readlink(l)
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(l)
	if err != nil {
		return "", err
	}
	st, err := os.Lstat(l)
	if err != nil {
		return "", err
	}
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink("nowhere", dangling); err != nil {
		return "", err
	}
	_, derr := os.ReadFile(dangling)
	loop := filepath.Join(dir, "loop")
	if err := os.Symlink("loop", loop); err != nil {
		return "", err
	}
	_, lerr := os.Stat(loop)
	real, err := filepath.EvalSymlinks(l)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("-> %s, reads %q, lstat %v, resolves to %s, dangling %s, loop %s",
		target, b, st.Mode().Type(), filepath.Base(real), errnoName(derr), errnoName(lerr)), nil
}

func errorsCheck(dir string) (string, error) {
	d := filepath.Join(dir, "d")
	if err := os.WriteFile(filepath.Join(d, "f"), nil, 0o644); err != nil {
		return "", err
	}
	_, errOpen := os.OpenFile(d, os.O_WRONLY, 0)
	_, errMissing := os.ReadFile(filepath.Join(dir, "missing"))
	_, errNotDir := os.Stat(filepath.Join(dir, "b.txt", "x"))
	_, errExcl := os.OpenFile(filepath.Join(dir, "b.txt"), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	_, errLong := os.Stat(filepath.Join(dir, string(bytes.Repeat([]byte("n"), 256))))
	for _, c := range []struct {
		what string
		err  error
		name string
	}{
		{"mkdir of an existing directory", os.Mkdir(d, 0o755), "EEXIST"},
		{"remove of a directory with a file", os.Remove(d), "ENOTEMPTY"},
		{"open of a directory for writing", errOpen, "EISDIR"},
		{"read of a missing file", errMissing, "ENOENT"},
		{"path through a file", errNotDir, "ENOTDIR"},
		{"O_EXCL of an existing file", errExcl, "EEXIST"},
		{"a 256-byte name", errLong, "ENAMETOOLONG"},
		{"rmdir of a file", syscall.Rmdir(filepath.Join(dir, "b.txt")), "ENOTDIR"},
		{"a directory into itself", os.Rename(d, filepath.Join(d, "sub")), "EINVAL"},
	} {
		if err := want(c.what, c.err, c.name); err != nil {
			return "", err
		}
	}
	return "EEXIST, ENOTEMPTY, EISDIR, ENOENT, ENOTDIR, EEXIST, ENAMETOOLONG, ENOTDIR, EINVAL as Linux gives them", nil
}

func modes(dir string) (string, error) {
	p := filepath.Join(dir, "b.txt")
	if err := os.Chmod(p, 0o600); err != nil {
		return "", err
	}
	when := time.Date(2001, 2, 3, 4, 5, 6, 7000, time.UTC)
	if err := os.Chtimes(p, when, when); err != nil {
		return "", err
	}
	st, err := os.Stat(p)
	if err != nil {
		return "", err
	}
	atime := st.Sys().(*syscall.Stat_t).Atim
	x := syscall.Access(p, 1) // X_OK
	return fmt.Sprintf("mode %v, mtime %s, atime %d.%09d, X_OK %s", st.Mode(), st.ModTime().UTC().Format(time.RFC3339Nano),
		atime.Sec, atime.Nsec, errnoName(x)), nil
}
