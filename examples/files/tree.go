package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing/fstest"
)

// tree is what the walk, copyfs and fstest checks work on: files of several sizes (one of them
// larger than a page), nested directories, an empty one.
var tree = map[string]int{
	"x":          3,
	"y/z":        5000,
	"y/w/v":      0,
	"y/w/u/deep": 1,
	"big":        70000,
}

func makeTree(root string) error {
	for name, size := range tree {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, pattern(size), 0o644); err != nil {
			return err
		}
	}
	return os.Mkdir(filepath.Join(root, "empty"), 0o755)
}

func readDir(dir string) (string, error) {
	es, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name()+"("+e.Type().String()+")")
	}
	f, err := os.Open(dir)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var chunked []string
	for {
		part, err := f.ReadDir(2)
		for _, e := range part {
			chunked = append(chunked, e.Name())
		}
		if err != nil {
			break
		}
	}
	return fmt.Sprintf("%s; %d in chunks of 2", strings.Join(names, " "), len(chunked)), nil
}

func walk(dir string) (string, error) {
	root := filepath.Join(dir, "tree")
	if err := makeTree(root); err != nil {
		return "", err
	}
	var seen []string
	var bytesSeen int64
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			rel += "/"
		} else {
			info, err := d.Info()
			if err != nil {
				return err
			}
			bytesSeen += info.Size()
		}
		seen = append(seen, rel)
		return nil
	})
	return fmt.Sprintf("%s (%d bytes)", strings.Join(seen, " "), bytesSeen), err
}

func copyFS(dir string) (string, error) {
	src, dst := filepath.Join(dir, "tree"), filepath.Join(dir, "copy")
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		return "", err
	}
	n := 0
	for name := range tree {
		a, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			return "", err
		}
		b, err := os.ReadFile(filepath.Join(dst, name))
		if err != nil {
			return "", err
		}
		if !bytes.Equal(a, b) {
			return "", fmt.Errorf("%s differs in the copy", name)
		}
		n++
	}
	if st, err := os.Stat(filepath.Join(dst, "empty")); err != nil || !st.IsDir() {
		return "", fmt.Errorf("the empty directory was not copied: %v", err)
	}
	err := os.CopyFS(dst, os.DirFS(src))
	if !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("copying again: %v, want an existing file's error", err)
	}
	return fmt.Sprintf("%d files identical, the empty directory made, again %s", n, errnoName(err)), nil
}

func testFS(dir string) (string, error) {
	var expected []string
	for name := range tree {
		expected = append(expected, name)
	}
	if err := fstest.TestFS(os.DirFS(filepath.Join(dir, "tree")), expected...); err != nil {
		return "", err
	}
	return fmt.Sprintf("os.DirFS of the tree passes with %d files expected", len(expected)), nil
}
