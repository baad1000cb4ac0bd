package layout

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/unitrace/unitrace/arch/goabi"
	"github.com/unitrace/unitrace/goroutines"
	"github.com/unitrace/unitrace/internal/image"
)

// TestGoroutineLayout: the image builder finds every word of the kernel's goroutine layout in
// an image the toolchain in use builds, the layout passes the reader's checks, agrees with the
// offsets arch/goabi types by hand, and lands in the kernel's slot when the image is patched.
func TestGoroutineLayout(t *testing.T) {
	for _, arch := range arches {
		t.Run(arch, func(t *testing.T) {
			path := build(t, arch, "examples/hello")
			im := openImage(t, path)
			l, err := image.GoLayout(im.f)
			if err != nil {
				t.Fatalf("GoLayout: %v", err)
			}
			for _, c := range []struct {
				word int
				want uint64
			}{{goroutines.WGStackLo, goabi.GStackLo}, {goroutines.WGStackHi, goabi.GStackHi}, {goroutines.WGM, goabi.GM}, {goroutines.WMCurg, goabi.MCurg}} {
				if l[c.word] != c.want {
					t.Errorf("word %d (%s.%s) is %d, arch/goabi says %d", c.word, goroutines.Sources[c.word].Name, goroutines.Sources[c.word].Member, l[c.word], c.want)
				}
			}
			slot := patchedSlot(t, arch, path)
			if got, ok := slot.Read(); !ok || *got != *l {
				t.Errorf("the patched slot holds %v (%v), want the image's layout", slot.State(), ok)
			}
		})
	}
}

// TestGoroutineLayoutRefused: an image without DWARF has its slot refused, with the reason.
func TestGoroutineLayoutRefused(t *testing.T) {
	spec, err := image.SpecFor(image.AMD64)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "hello-nodwarf.elf")
	cmd := exec.Command("go", "build", "-o", out, "-ldflags="+strings.Join(append(spec.LDFlags(), "-w"), " "), "./examples/hello")
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), spec.BuildEnv()...)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, msg)
	}
	slot := patchedSlot(t, "amd64", out)
	if slot.State() != goroutines.SlotRefused || !strings.Contains(string(slot.RefusalReason()), "DWARF") {
		t.Errorf("slot %v, reason %q: want refused for want of DWARF", slot.State(), slot.RefusalReason())
	}
}

// patchedSlot patches a copy of the image at path and returns its goroutine-layout slot.
func patchedSlot(t *testing.T, arch, path string) *goroutines.Slot {
	t.Helper()
	spec, err := image.SpecFor(image.Arch(arch))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	info, err := image.Patch(data, spec)
	if err != nil {
		t.Fatalf("Patch: %v", err)
	}
	if info.GoLayoutSlot < 0 {
		t.Fatal("the image has no goroutine-layout slot")
	}
	b := data[info.GoLayoutSlot : info.GoLayoutSlot+goroutines.SlotSize]
	s := (*goroutines.Slot)(unsafe.Pointer(&b[0]))
	if (s.State() == goroutines.SlotRefused) != (info.GoLayoutRefused != "") {
		t.Errorf("slot %v, Info says refused %q", s.State(), info.GoLayoutRefused)
	}
	return s
}
