package layout

import (
	"debug/dwarf"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/unitrace/unitrace/internal/image"
)

// The images the checks read: built once per test binary with the toolchain in use and the
// image builder's linker flags (its entry symbol is what keeps the kernel's entry points
// linked), before the image builder's rewrite, which the checks do not need.

const module = "github.com/unitrace/unitrace"

var (
	buildMu sync.Mutex
	built   = map[string]string{} // "arch pkg" -> ELF path
	dir     string
)

// build returns the path of pkg (a directory under the repository root) built for linux/arch.
func build(t *testing.T, arch, pkg string) string {
	t.Helper()
	buildMu.Lock()
	defer buildMu.Unlock()
	key := arch + " " + pkg
	if p, ok := built[key]; ok {
		return p
	}
	if dir == "" {
		d, err := os.MkdirTemp("", "unitrace-layout-")
		if err != nil {
			t.Fatal(err)
		}
		dir = d
	}
	out := filepath.Join(dir, arch+"-"+strings.ReplaceAll(pkg, "/", "-")+".elf")
	spec, err := image.SpecFor(image.Arch(arch))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "build", "-o", out, "-ldflags="+strings.Join(spec.LDFlags(), " "), "./"+pkg)
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), spec.BuildEnv()...)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s for %s: %v\n%s", pkg, arch, err, msg)
	}
	built[key] = out
	return out
}

func TestMain(m *testing.M) {
	code := m.Run()
	if dir != "" {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

// elfImage is an ELF file with its symbols and DWARF.
type elfImage struct {
	f    *elf.File
	syms []elf.Symbol
	dw   *dwarf.Data
}

func openImage(t *testing.T, path string) *elfImage {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	syms, err := f.Symbols()
	if err != nil {
		t.Fatalf("%s: symbols: %v", path, err)
	}
	dw, err := f.DWARF()
	if err != nil {
		t.Fatalf("%s: DWARF: %v", path, err)
	}
	return &elfImage{f: f, syms: syms, dw: dw}
}

// symbol returns the named symbol.
func (im *elfImage) symbol(name string) (elf.Symbol, error) {
	for _, s := range im.syms {
		if s.Name == name {
			return s, nil
		}
	}
	return elf.Symbol{}, fmt.Errorf("no symbol %s", name)
}

// funcAt names the function symbol that starts at addr, without an ABI wrapper's suffix.
func (im *elfImage) funcAt(addr uint64) string {
	for _, s := range im.syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Value == addr {
			return strings.TrimSuffix(s.Name, ".abi0")
		}
	}
	return fmt.Sprintf("no function at %#x", addr)
}

// words reads n little-endian 64-bit words at addr.
func (im *elfImage) words(addr uint64, n int) ([]uint64, error) {
	for _, sec := range im.f.Sections {
		if addr < sec.Addr || addr+uint64(8*n) > sec.Addr+sec.Size || sec.Type == elf.SHT_NOBITS {
			continue
		}
		b := make([]byte, 8*n)
		if _, err := sec.ReadAt(b, int64(addr-sec.Addr)); err != nil {
			return nil, err
		}
		w := make([]uint64, n)
		for i := range w {
			w[i] = im.f.ByteOrder.Uint64(b[8*i:])
		}
		return w, nil
	}
	return nil, fmt.Errorf("%#x is in no section with contents", addr)
}
