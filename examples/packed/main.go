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
// then "fstest: ok" if testing/fstest.TestFS passes on the tree (its error otherwise), and
// "create: " and the error creating a file there gave. It exits with status 0, 1 if the
// listing failed, 2 if the file could be created (it is removed again; so on the host, where
// the directory is writable, it exits 2).
package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing/fstest"

	"github.com/unitrace/unitrace/internal/treelist"
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
	if err := testFS(dir); err != nil {
		fmt.Println("fstest:", err)
		os.Exit(1)
	}
	fmt.Println("fstest: ok")
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

// testFS runs testing/fstest's checks of an fs.FS on the tree, expecting every regular file.
func testFS(dir string) error {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			rel, _ := filepath.Rel(dir, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		return err
	}
	return fstest.TestFS(os.DirFS(dir), files...)
}

func list(dir string) error {
	lines, err := treelist.Lines(dir, nil)
	for _, l := range lines {
		fmt.Println(l)
	}
	return err
}
