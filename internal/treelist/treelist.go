// Package treelist lists a directory tree as one line per file, so that a guest program and the
// host test that checks it can compare what each sees of the same tree line by line.
//
// One line per file, in lexical order, path relative to the directory ("." for itself):
//
//	MODE MTIME PATH [SIZE SHA256 | -> TARGET]
package treelist

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Lines lists dir. mtime, if not nil, gives the time printed for each file instead of its own
// (the host's side of a tree packed with one time for every file).
func Lines(dir string, mtime func(fs.FileInfo) int64) ([]string, error) {
	if mtime == nil {
		mtime = func(fi fs.FileInfo) int64 { return fi.ModTime().Unix() }
	}
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		line := fmt.Sprintf("%s %d %s", fi.Mode(), mtime(fi), rel)
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
	return out, err
}
