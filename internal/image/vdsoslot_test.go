package image

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/unitrace/unitrace/kernel/vdso"
)

// TestBuildFillsVDSO builds examples/hello, which links the kernel, for each architecture: the
// kernel's vDSO slot must hold an ELF shared object that exports the layout's functions under
// its version, whose code is the kernel's own with the parameters' address in place of
// vdso.Magic; and patching the image again must change nothing.
func TestBuildFillsVDSO(t *testing.T) {
	for _, arch := range []Arch{AMD64, ARM64} {
		t.Run(string(arch), func(t *testing.T) {
			spec, err := SpecFor(arch)
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "hello.elf")
			res, err := Build(context.Background(), BuildConfig{AppDir: "../../examples/hello", Output: out, Spec: spec})
			if err != nil {
				t.Fatal(err)
			}
			if res.Info.VDSOSlot < 0 {
				t.Fatal("no vDSO slot in an image that links the kernel")
			}
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			page := data[res.Info.VDSOSlot : res.Info.VDSOSlot+vdso.PageSize]
			checkVDSOPage(t, page, arch, data)

			again := slices.Clone(data)
			if _, err := Patch(again, spec); err != nil {
				t.Fatalf("patching the image again: %v", err)
			}
			if !bytes.Equal(again, data) {
				t.Error("patching a patched image changed it")
			}
		})
	}
}

func checkVDSOPage(t *testing.T, page []byte, arch Arch, image []byte) {
	t.Helper()
	l, _ := vdso.LayoutFor(string(arch))
	so, err := elf.NewFile(bytes.NewReader(page))
	if err != nil {
		t.Fatalf("the vDSO page is no ELF file: %v", err)
	}
	if so.Type != elf.ET_DYN || uint16(so.Machine) != l.Machine {
		t.Errorf("vDSO: type %v machine %v, want ET_DYN and machine %d", so.Type, so.Machine, l.Machine)
	}
	syms, err := so.DynamicSymbols()
	if err != nil {
		t.Fatal(err)
	}
	img, err := elf.NewFile(bytes.NewReader(image))
	if err != nil {
		t.Fatal(err)
	}
	imgSyms, err := img.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	params := make([]byte, 8)
	binary.LittleEndian.PutUint64(params, vdso.Base+vdso.ParamsOffset)
	for i := 0; i < l.NFuncs; i++ {
		f := l.Funcs[i]
		j := slices.IndexFunc(syms, func(s elf.Symbol) bool { return s.Name == f.Name })
		if j < 0 {
			t.Errorf("the vDSO does not export %s", f.Name)
			continue
		}
		if syms[j].Version != l.Version {
			t.Errorf("%s has version %q, want %q", f.Name, syms[j].Version, l.Version)
		}
		want, err := symbolCode(img, image, imgSyms, f.Symbol)
		if err != nil {
			t.Fatal(err)
		}
		if l.Patch(want, vdso.Base+vdso.ParamsOffset) == 0 {
			t.Fatalf("%s: the kernel's code has no parameter address to patch", f.Symbol)
		}
		if !bytes.Contains(page, want) {
			t.Errorf("%s: the page does not hold the kernel's code with the parameters' address patched in", f.Name)
		}
	}
	if arch == AMD64 && !bytes.Contains(page, params) {
		t.Error("the parameters' address is nowhere in the page")
	}
	magic := make([]byte, 8)
	binary.LittleEndian.PutUint64(magic, vdso.Magic)
	if bytes.Contains(page, magic) {
		t.Error("the page still holds vdso.Magic")
	}
	if !bytes.Equal(page[vdso.ParamsOffset:], make([]byte, vdso.ParamsSize)) {
		t.Error("the parameters are not zero: the kernel writes them at boot")
	}
}
