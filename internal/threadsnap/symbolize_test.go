package threadsnap

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/unitrace/unitrace/internal/profile"
	"github.com/unitrace/unitrace/internal/profile/profiletest"
	"github.com/unitrace/unitrace/internal/tracefile"
)

var (
	progDir string
	progMu  sync.Mutex
	progs   = map[string]*profiletest.Program{}
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "threadsnap")
	if err != nil {
		panic(err)
	}
	progDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// program builds the profile package's test program (a real Go ELF with a frameless leaf,
// frames and inlining) once per architecture.
func program(t *testing.T, goarch string) *profiletest.Program {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a Go program")
	}
	progMu.Lock()
	defer progMu.Unlock()
	if p := progs[goarch]; p != nil {
		return p
	}
	p := profiletest.Build(t, progDir, goarch)
	progs[goarch] = p
	return p
}

func TestSymbolizeAMD64(t *testing.T) { testSymbolize(t, "amd64") }
func TestSymbolizeARM64(t *testing.T) { testSymbolize(t, "arm64") }

// testSymbolize symbolizes a snapshot of the real program: a thread caught in a frameless
// leaf by IPI, one whose leaf is inlined code, each relocated by a text start that differs
// from the ELF's.
func testSymbolize(t *testing.T, goarch string) {
	p := program(t, goarch)
	ti, err := tracefile.OpenImage(p.Path)
	if err != nil {
		t.Fatal(err)
	}
	const slide = 0x10000
	leaf := p.Func("main.leaf").Entry
	raMid := p.ReturnAddress("main.mid", "main.leaf")
	raOuter := p.ReturnAddress("main.outer", "main.mid")
	raMain := p.ReturnAddress("main.main", "main.outer")
	inl := p.InlinedPC("main.withInline", "main.inl")
	const sp, fp = 0xc000040e00, 0xc000040f80 // fp: main.outer's frame, the leaf's caller's caller
	lr := uint64(0)
	if goarch == "arm64" {
		lr = raMid + slide // x30 at the interrupt: the leaf never saved it
	}
	s := &Snapshot{
		Arch: goarch, BuildID: tracefile.BuildIDHex(profiletest.BuildID), TextStart: ti.Text + slide,
		CPUs: []Entry{{CPU: 0, State: "running", TID: 9, Gen: 1, ByIPI: true}},
		Threads: []Entry{
			{TID: 9, Gen: 1, CPU: 0, State: "running", ByIPI: true, PC: leaf + slide, SP: sp, FP: fp, LR: lr,
				Frames: []uint64{raOuter + slide, raMain + slide}},
			{TID: 10, Gen: 3, CPU: 0, State: "runnable", Saved: true, PC: inl + slide, NoWalk: true},
		},
	}
	if err := Symbolize(s, p.Path); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	Format(&b, s)
	out := b.String()
	hex := func(pc uint64) string { return regexp.QuoteMeta(fmt.Sprintf("%#x", pc+slide)) }
	off := func(pc uint64, fn string) string { return fmt.Sprintf("%#x", pc-p.Func(fn).Entry) }
	wantLines := []string{
		`^cpu 0: running tid 9 gen 1 \(captured by IPI\)$`,
		`^thread 9 gen 1: running on cpu 0 \(captured by IPI\)$`,
		`^  ` + hex(leaf) + ` main\.leaf\+0x0  \S*main\.go:\d+$`,
		`^  ` + hex(raOuter) + ` main\.outer\+` + off(raOuter, "main.outer") + `  \S*main\.go:\d+$`,
		`^  ` + hex(raMain) + ` main\.main\+` + off(raMain, "main.main") + `  \S*main\.go:\d+$`,
		`^thread 10 gen 3: runnable, last ran on cpu 0$`,
		`^  ` + hex(inl) + ` main\.inl \(inlined\)  \S*main\.go:\d+$`,
		`^  ` + hex(inl) + ` main\.withInline\+` + off(inl, "main.withInline") + `  \S*main\.go:\d+$`,
		`^  \[no frame-pointer walk\]$`,
	}
	if goarch == "arm64" {
		// x30 names the frameless leaf's caller, which the frame-pointer chain skipped.
		wantLines = append(wantLines[:3], append([]string{`^  ` + hex(raMid) + ` main\.mid\+` + off(raMid, "main.mid") +
			` \(caller of a frameless leaf, from the pclntab\)  \S*main\.go:\d+$`}, wantLines[3:]...)...)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != len(wantLines) {
		t.Fatalf("got %d lines, want %d:\n%s", len(lines), len(wantLines), out)
	}
	for i, re := range wantLines {
		if !regexp.MustCompile(re).MatchString(lines[i]) {
			t.Errorf("line %d: %q does not match %s\n%s", i, lines[i], re, out)
		}
	}
	wantFix := profile.FixNotText // amd64: the words at SP are not in a stacks entry
	if goarch == "arm64" {
		wantFix = profile.FixApplied
	}
	if got := s.Threads[0].LeafFix; got != wantFix {
		t.Errorf("leaf fix %v, want %v", got, wantFix)
	}

	// A kernel that recovered the caller itself: not inserted twice.
	if goarch == "arm64" {
		s.Threads[0].Frames = append([]uint64{raMid + slide}, s.Threads[0].Frames...)
		if err := Symbolize(s, p.Path); err != nil {
			t.Fatal(err)
		}
		if n := len(s.Threads[0].Stack); n != 4 {
			t.Errorf("%d words, want 4 (leaf, mid, outer, main)", n)
		}
	}
}

func TestSymbolizeChecksImage(t *testing.T) {
	p := program(t, "amd64")
	s := &Snapshot{BuildID: "0badc0de", Threads: []Entry{{TID: 1, State: "running", PC: 1}}}
	if err := Symbolize(s, p.Path); !errors.Is(err, tracefile.ErrBuildID) || !strings.Contains(err.Error(), "0badc0de") {
		t.Errorf("wrong build id: %v", err)
	}
	s = &Snapshot{Arch: "arm64"}
	if err := Symbolize(s, p.Path); err == nil || !strings.Contains(err.Error(), "the guest is arm64") {
		t.Errorf("wrong arch: %v", err)
	}
	im, err := profile.OpenImage(p.Path)
	if err != nil {
		t.Fatal(err)
	}
	s = &Snapshot{BuildID: "0badc0de", Arch: "arm64", Threads: []Entry{{TID: 1, State: "running", PC: 1}}}
	if err := SymbolizeImage(s, im, true); err != nil || !s.Symbolized {
		t.Fatalf("forced: %v", err)
	}
	var b strings.Builder
	Format(&b, s)
	if !strings.Contains(b.String(), "  0x1 ?\n") {
		t.Errorf("an address outside the text:\n%s", b.String())
	}
	if err := Symbolize(s, filepath.Join(t.TempDir(), "missing.elf")); err == nil {
		t.Error("a missing image symbolized")
	}
}
