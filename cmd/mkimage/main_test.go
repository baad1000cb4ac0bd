package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"a", "b"},
		{"-patch", "x", "dir"},
		{"-patch", "x", "-o", "y"},
		{"-patch", "x", "-files", "d:/data"},
	} {
		if err := run(args, &bytes.Buffer{}, &bytes.Buffer{}); !errors.Is(err, errUsage) {
			t.Errorf("run(%q) = %v, want usage error", args, err)
		}
	}
	if err := run([]string{"-nosuchflag"}, &bytes.Buffer{}, &bytes.Buffer{}); err == nil {
		t.Error("unknown flag accepted")
	}
	if err := run([]string{"-arch", "mips", "dir"}, &bytes.Buffer{}, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "mips") {
		t.Errorf("unknown arch: %v", err)
	}
}

func TestPatchRefusesNonELF(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x")
	if err := os.WriteFile(p, []byte("not an image"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := run([]string{"-patch", p}, &bytes.Buffer{}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "not an ELF file") {
		t.Fatalf("err = %v", err)
	}
}

func TestBuildRefusesProgramWithoutKernel(t *testing.T) {
	var stderr bytes.Buffer
	err := run([]string{"-o", filepath.Join(t.TempDir(), "x.elf"), "../../internal/image/testdata/nokernel"}, &bytes.Buffer{}, &stderr)
	if err == nil || !strings.Contains(err.Error(), "github.com/unitrace/unitrace/kernel") {
		t.Fatalf("err = %v", err)
	}
}

func TestFilesRefusals(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-files", "d:data", "app"}, "not an absolute path"},
		{[]string{"-files-mtime", "-5", "app"}, "seconds since the epoch"},
		{[]string{"-o", filepath.Join(t.TempDir(), "x.elf"), "-files", "testdata/no-such-dir:/data", "app"}, "no such file or directory"},
	} {
		if err := run(c.args, &bytes.Buffer{}, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("run(%q) = %v, want an error with %q", c.args, err, c.want)
		}
	}
}
