package image

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const progEntry = "example.com/prog/entry.start"

// testdataDir is absolute, for tests that change directory.
var testdataDir, _ = filepath.Abs("testdata")

// progSpec is the layout of arch with the test program's entry symbol.
func progSpec(t *testing.T, arch Arch) Spec {
	t.Helper()
	s, err := SpecFor(arch)
	if err != nil {
		t.Fatal(err)
	}
	s.EntrySymbol = progEntry
	return s
}

// goBuild links testdata/prog for arch with exactly the given linker flags
// and extra environment, and returns the file's bytes.
func goBuild(t *testing.T, arch Arch, ldflags []string, env ...string) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "prog.elf")
	cmd := exec.Command("go", "build", "-o", out, "-ldflags="+strings.Join(ldflags, " "), ".")
	cmd.Dir = filepath.Join("testdata", "prog")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+string(arch))
	cmd.Env = append(cmd.Env, env...)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, msg)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestBuildPatchesPVHNote(t *testing.T) {
	spec := progSpec(t, AMD64)
	out := filepath.Join(t.TempDir(), "sub", "prog.elf")
	res, err := Build(context.Background(), BuildConfig{AppDir: "testdata/prog", Output: out, Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	if res.Path != out || !res.Info.PVH || res.Info.EntrySymbol != progEntry+".abi0" || res.Info.LoadAddr != 0x100000 {
		t.Fatalf("result %+v", res)
	}
	f, err := elf.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Entry != res.Info.Entry {
		t.Errorf("e_entry %#x, info says %#x", f.Entry, res.Info.Entry)
	}
	note, err := f.Section(goNoteSection).Data()
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	descsz := le.Uint32(note[4:])
	if got := le.Uint32(note[0:]); got != 4 {
		t.Errorf("n_namesz %d, want 4", got)
	}
	if int(descsz) != res.Info.NoteDesc || descsz < 8 {
		t.Errorf("n_descsz %d, info %d", descsz, res.Info.NoteDesc)
	}
	if got := le.Uint32(note[8:]); got != 18 {
		t.Errorf("n_type %d, want 18 (XEN_ELFNOTE_PHYS32_ENTRY)", got)
	}
	if got := string(note[12:16]); got != "Xen\x00" {
		t.Errorf("name %q", got)
	}
	desc := note[16 : 16+descsz]
	if got := le.Uint64(desc); got != f.Entry {
		t.Errorf("desc entry %#x, want %#x", got, f.Entry)
	}
	if !bytes.Equal(desc[8:], make([]byte, descsz-8)) {
		t.Errorf("desc tail not zero: %x", desc[8:])
	}
	id, err := f.Section(gnuNoteSection).Data()
	if err != nil || !bytes.Equal(id[16:], res.Info.BuildID) || len(res.Info.BuildID) == 0 {
		t.Errorf("build id %x, section %x (%v)", res.Info.BuildID, id, err)
	}

	// Patching again changes nothing.
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	// This program does not link the tracer, so it has no build-id slot (tests/vm checks that a
	// real image reports its id in HELLO).
	if res.Info.IDSlot != -1 {
		t.Errorf("build-id slot at %d in a program without the tracer", res.Info.IDSlot)
	}
	again := bytes.Clone(data)
	if _, err := Patch(again, spec); err != nil || !bytes.Equal(again, data) {
		t.Errorf("second patch: err %v, changed %v", err, !bytes.Equal(again, data))
	}
}

func TestBuildARM64KeepsGoNote(t *testing.T) {
	spec := progSpec(t, ARM64)
	out := filepath.Join(t.TempDir(), "prog.elf")
	res, err := Build(context.Background(), BuildConfig{AppDir: "testdata/prog", Output: out, Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	if res.Info.PVH || res.Info.LoadAddr != 0x40200000 {
		t.Fatalf("info %+v", res.Info)
	}
	f, err := elf.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	note, _ := f.Section(goNoteSection).Data()
	if string(note[12:16]) != "Go\x00\x00" || f.Machine != elf.EM_AARCH64 {
		t.Errorf("note %q machine %v", note[12:16], f.Machine)
	}
}

func TestDefaultOutput(t *testing.T) {
	mod := t.TempDir()
	for name, text := range map[string]string{
		"go.mod":              "module example.com/prog\n\ngo 1.26\n",
		"cmd/app/main.go":     "package main\n\nimport _ \"example.com/prog/entry\"\n\nfunc main() {}\n",
		"entry/entry.go":      "package entry\n\nfunc start()\n",
		"entry/entry_amd64.s": "#include \"textflag.h\"\n\nTEXT ·start(SB),NOSPLIT|NOFRAME,$0\n\tJMP\t_rt0_amd64_linux(SB)\n",
	} {
		p := filepath.Join(mod, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err := Build(context.Background(), BuildConfig{AppDir: filepath.Join(mod, "cmd", "app"), Spec: progSpec(t, AMD64)})
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(mod, "build", "app-amd64.elf"); res.Path != want {
		t.Errorf("image at %s, want %s", res.Path, want)
	}
	left, _ := filepath.Glob(filepath.Join(mod, "build", ".*.tmp"))
	if len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestBuildRelativeOutput(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	app, err := filepath.Abs(filepath.Join(testdataDir, "prog"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Build(context.Background(), BuildConfig{AppDir: app, Output: filepath.Join("out", "prog.elf"), Spec: progSpec(t, AMD64)})
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "out", "prog.elf"); res.Path != want {
		t.Errorf("image at %s, want %s", res.Path, want)
	}
	if _, err := os.Stat(res.Path); err != nil {
		t.Error(err)
	}
}

func TestBuildRefusesProgramWithoutKernel(t *testing.T) {
	spec, _ := SpecFor(AMD64)
	out := filepath.Join(t.TempDir(), "x.elf")
	_, err := Build(context.Background(), BuildConfig{AppDir: "testdata/nokernel", Output: out, Spec: spec, Stderr: &bytes.Buffer{}})
	if !errors.Is(err, ErrNoEntrySymbol) || !strings.Contains(err.Error(), KernelImportPath) {
		t.Fatalf("err = %v, want %v naming %s", err, ErrNoEntrySymbol, KernelImportPath)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("refused image exists: %v", err)
	}
}

func TestBuildRefusesNonMainPackage(t *testing.T) {
	_, err := Build(context.Background(), BuildConfig{AppDir: "testdata/prog/entry", Output: filepath.Join(t.TempDir(), "x"),
		Spec: progSpec(t, AMD64), Stderr: &bytes.Buffer{}})
	if err == nil || !strings.Contains(err.Error(), "not a main package") {
		t.Fatalf("err = %v", err)
	}
}

// TestRefusesRealLinks covers the refusals a real but wrongly linked Go
// binary triggers.
func TestRefusesRealLinks(t *testing.T) {
	spec := progSpec(t, AMD64)
	base := []string{"-T", "0x101000", "-R", "0x1000", "-E", progEntry}
	tests := []struct {
		name    string
		ldflags []string
		want    error
	}{
		{"default address", []string{"-E", progEntry, "-B", "gobuildid"}, ErrLoadAddress},
		// go1.26 adds the GNU note by default; -B none turns it off.
		{"no GNU build id", append(base, "-B", "none"), ErrNoGNUBuildID},
		{"no Go build id", append(base, "-B", "0x0123456789abcdef", "-buildid="), ErrNoGoNote},
		// Without -E the linker drops the unreferenced entry function.
		{"linked without -E", []string{"-T", "0x101000", "-R", "0x1000", "-B", "gobuildid"}, ErrNoEntrySymbol},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := goBuild(t, AMD64, tt.ldflags, "GOAMD64=v1")
			if _, err := Patch(data, spec); !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
		})
	}
	t.Run("wrong machine", func(t *testing.T) {
		data := goBuild(t, ARM64, progSpec(t, ARM64).LDFlags())
		if _, err := Patch(data, spec); !errors.Is(err, ErrWrongMachine) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("entry symbol missing", func(t *testing.T) {
		data := goBuild(t, AMD64, spec.LDFlags())
		other := spec
		other.EntrySymbol = "example.com/prog/entry.elsewhere"
		if _, err := Patch(data, other); !errors.Is(err, ErrNoEntrySymbol) || !strings.Contains(err.Error(), KernelImportPath) {
			t.Fatalf("err = %v", err)
		}
	})
}

// TestRefusesExternalLinking needs a C toolchain to produce the real thing.
func TestRefusesExternalLinking(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no gcc: external linking cannot be produced here (the synthetic cases still run)")
	}
	spec := progSpec(t, AMD64)
	dynamic := goBuild(t, AMD64, []string{"-linkmode=external"}, "CGO_ENABLED=1")
	if _, err := Patch(dynamic, spec); !errors.Is(err, ErrNotStatic) {
		t.Errorf("dynamic: err = %v, want %v", err, ErrNotStatic)
	}
	static := goBuild(t, AMD64, []string{"-linkmode=external", "-extldflags=-static"}, "CGO_ENABLED=1")
	if _, err := Patch(static, spec); !errors.Is(err, ErrExternalLink) {
		t.Errorf("static: err = %v, want %v", err, ErrExternalLink)
	}
}

func TestPatchFileLeavesInvalidFileAlone(t *testing.T) {
	data := synthImage()
	data[18] = byte(elf.EM_AARCH64)
	p := filepath.Join(t.TempDir(), "bad.elf")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := PatchFile(p, synthSpec()); !errors.Is(err, ErrWrongMachine) {
		t.Fatalf("err = %v", err)
	}
	after, _ := os.ReadFile(p)
	if !bytes.Equal(after, data) {
		t.Error("the refused file was modified")
	}
}
