package amd64

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

//go:generate go run mktrampoline.go -o trampoline_code.go

// TestTrampolineGenerated fails when trampoline_code.go is stale: it reassembles
// testdata/trampoline.S (skipped without binutils) and compares.
func TestTrampolineGenerated(t *testing.T) {
	if _, err := exec.LookPath("as"); err != nil {
		t.Skip("GNU as not found")
	}
	out := filepath.Join(t.TempDir(), "trampoline_code.go")
	if b, err := exec.Command("go", "run", "mktrampoline.go", "-o", out).CombinedOutput(); err != nil {
		t.Fatalf("mktrampoline: %v\n%s", err, b)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("trampoline_code.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("trampoline_code.go is stale: run go generate ./arch/amd64")
	}
}

// TestTrampolineLayout pins what StartAP and apStart64 assume about the trampoline: it fits
// in its page, its data words are where smp.go says and start zeroed, its GDT holds the
// selectors it jumps through, and the constants it was assembled with match smp.go.
func TestTrampolineLayout(t *testing.T) {
	if trampolineAddr%4096 != 0 || trampolineAddr+4096 > 1<<20 || trampolineAddr < 64<<10 {
		t.Errorf("trampolineAddr %#x: want a page below 1 MiB, above the 64 KiB null guard", trampolineAddr)
	}
	if len(trampolineCode) != trampolineCPU+8 {
		t.Errorf("trampoline is %d bytes, want it to end with the CPU word at %#x", len(trampolineCode), trampolineCPU)
	}
	for off := trampolineData; off < len(trampolineCode); off++ {
		if trampolineCode[off] != 0 {
			t.Fatalf("trampoline data byte %#x is %#x, want 0", off, trampolineCode[off])
		}
	}
	var gdt []uint64
	for off := 0; off+8 <= trampolineData; off += 8 {
		gdt = append(gdt, binary.LittleEndian.Uint64(trampolineCode[off:]))
	}
	found := false
	for i := 0; i+4 <= len(gdt); i++ {
		if gdt[i] == 0 && gdt[i+1] == gdtKernelCode && gdt[i+2] == gdtKernelData && gdt[i+3] == 0x00cf9a000000ffff {
			found = true
		}
	}
	if !found {
		t.Error("no GDT with null, 64-bit code (0x08), data (0x10), 32-bit code (0x18) in the trampoline")
	}
	src, err := os.ReadFile("testdata/trampoline.S")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{".set T, 0x10000 ", ".set DATA, 0xc0 "} {
		if !bytes.Contains(src, []byte(want)) {
			t.Errorf("testdata/trampoline.S lacks %q (smp.go's trampolineAddr, trampolineData)", want)
		}
	}
}

func TestICRWords(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want uint32
	}{
		{"INIT", icrINITWord(), 0x4500},
		{"STARTUP", icrStartupWord(trampolineAddr), 0x4610},
		{"fixed", icrFixedWord(0xf0), 0x40f0},
		{"self", icrFixedWord(0x20) | icrSelf, 0x44020},
		{"destination", icrDest(3), 0x03000000},
	} {
		if c.got != c.want {
			t.Errorf("%s: %#x, want %#x", c.name, c.got, c.want)
		}
	}
}
