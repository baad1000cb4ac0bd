// Command packed lists a directory tree as a program sees it, each file with its mode, time and
// size and the SHA-256 of its contents, each symbolic link with its target, then checks that
// the directory is read-only. It is the workload of the VM test of files packed into an image:
//
//	unitrace run -files tests/vm/testdata/packed:/data examples/packed -- /data
//
// One line per file, in lexical order, path relative to the directory ("." for itself):
//
//	MODE MTIME PATH [SIZE SHA256 | -> TARGET]
//
// then "create: " and the error creating a file there gave. It exits with status 0, 1 if the
// listing failed, 2 if the file could be created (it is removed again; so on the host, where
// the directory is writable, it exits 2).
package main

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	_ "github.com/unitrace/unitrace/kernel"
)

func main() {
	dir := "/data"
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	if err := list(dir); err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	probe := filepath.Join(dir, "created-by-examples-packed")
	f, err := os.Create(probe)
	if err == nil {
		f.Close()
		os.Remove(probe)
		fmt.Println("create: succeeded: the directory is writable")
		os.Exit(2)
	}
	fmt.Println("create:", err)
}

func list(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
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
		line := fmt.Sprintf("%s %d %s", fi.Mode(), fi.ModTime().Unix(), rel)
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
		fmt.Println(line)
		return nil
	})
}
