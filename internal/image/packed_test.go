package image

import (
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	ucpio "github.com/u-root/u-root/pkg/cpio"
)

func testArchive(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := ucpio.Newc.Writer(&buf)
	recs := []ucpio.Record{
		{Info: ucpio.Info{Name: "data", Mode: 0o040755}},
		ucpio.StaticFile("data/hello.txt", strings.Repeat("hello, packed world\n", 1000), 0o644),
	}
	if err := ucpio.WriteRecords(w, recs); err != nil {
		t.Fatal(err)
	}
	if err := ucpio.WriteTrailer(w); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// packedSpec is progSpec with the test program's packed package.
func packedSpec(t *testing.T, arch Arch, pkg string) Spec {
	s := progSpec(t, arch)
	s.PackedPackage = pkg
	return s
}

func TestBuildPacksFiles(t *testing.T) {
	files := testArchive(t)
	for _, arch := range []Arch{AMD64, ARM64} {
		t.Run(string(arch), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "prog.elf")
			res, err := Build(context.Background(), BuildConfig{AppDir: "testdata/prog", Output: out,
				Spec: packedSpec(t, arch, "example.com/prog/packed"), Files: files})
			if err != nil {
				t.Fatal(err)
			}
			// The archive is in the loaded data, exactly once, and the image is still valid.
			data, err := os.ReadFile(res.Path)
			if err != nil {
				t.Fatal(err)
			}
			if n := bytes.Count(data, files); n != 1 {
				t.Errorf("the archive appears %d times in the image", n)
			}
			f, err := elf.NewFile(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			off := int64(bytes.Index(data, files))
			loaded := false
			for _, p := range f.Progs {
				loaded = loaded || p.Type == elf.PT_LOAD && off >= int64(p.Off) && off+int64(len(files)) <= int64(p.Off+p.Filesz)
			}
			if !loaded {
				t.Error("the archive is outside every PT_LOAD segment")
			}
			if _, err := Inspect(data, packedSpec(t, arch, "example.com/prog/packed")); err != nil {
				t.Errorf("Inspect: %v", err)
			}
			// The same build without files has none of it.
			plain, err := Build(context.Background(), BuildConfig{AppDir: "testdata/prog", Output: out + ".plain",
				Spec: packedSpec(t, arch, "example.com/prog/packed")})
			if err != nil {
				t.Fatal(err)
			}
			if err := checkPacked(plain.Path, "example.com/prog/packed", files); !errors.Is(err, ErrPackedMismatch) {
				t.Errorf("checkPacked of an image without files = %v, want ErrPackedMismatch", err)
			}
		})
	}
}

func TestBuildPackedRefusals(t *testing.T) {
	files := testArchive(t)
	for _, c := range []struct {
		name  string
		pkg   string
		files []byte
		want  error
	}{
		{"package not linked", "example.com/prog/missing", files, ErrPackedNotLinked},
		{"variable not read", "example.com/prog/unread", files, ErrPackedNotLinked},
		{"not an archive", "example.com/prog/packed", []byte("not a cpio archive"), ErrPackedArchive},
		{"truncated archive", "example.com/prog/packed", files[:len(files)-4], ErrPackedArchive},
		{"other file layout", "example.com/prog/entry", files, ErrPackedLayout},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "prog.elf")
			_, err := Build(context.Background(), BuildConfig{AppDir: "testdata/prog", Output: out,
				Spec: packedSpec(t, AMD64, c.pkg), Files: c.files, Stderr: &bytes.Buffer{}})
			if !errors.Is(err, c.want) {
				t.Errorf("Build = %v, want %v", err, c.want)
			}
			if _, serr := os.Stat(out); !os.IsNotExist(serr) {
				t.Error("a refused image was left behind")
			}
		})
	}
}

// TestPackedFileLayout checks the file the overlay replaces, the kernel's own included: it must
// declare `var archive string` alone.
func TestPackedFileLayout(t *testing.T) {
	for _, p := range []string{"../../kernel/fs/packed/image.go", "testdata/prog/packed/image.go"} {
		if err := checkPackedFile(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	dir := t.TempDir()
	for i, src := range []string{
		"package p\nvar archive []byte\n",
		"package p\nvar archive = \"x\"\n",
		"package p\nvar archive, other string\n",
		"package p\nvar archive string\nfunc F() {}\n",
		"package p\nimport _ \"embed\"\nvar archive string\n",
		"package p\nvar files string\n",
		"package p\nconst archive = \"\"\n",
		"not go",
	} {
		p := filepath.Join(dir, "image.go")
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := checkPackedFile(p); !errors.Is(err, ErrPackedLayout) {
			t.Errorf("variant %d: %v, want ErrPackedLayout", i, err)
		}
	}
	if err := checkPackedFile(filepath.Join(dir, "missing.go")); !errors.Is(err, ErrPackedLayout) {
		t.Errorf("missing file: %v", err)
	}
}
