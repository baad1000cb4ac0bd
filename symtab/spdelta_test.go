package symtab

import (
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// tracebackFrame is one physical frame of a runtime traceback printed at
// GOTRACEBACK=system, which adds the unwinder's fp, sp and pc to each.
type tracebackFrame struct {
	fn         string
	fp, sp, pc uint64
}

var (
	frameInfo = regexp.MustCompile(` fp=(0x[0-9a-f]+) sp=(0x[0-9a-f]+) pc=(0x[0-9a-f]+)$`)
	anchorPC  = regexp.MustCompile(`(?m)^anchor (0x[0-9a-f]+)$`)
)

// crashEnv makes the test binary, run again by TestSPDeltaMatchesTraceback,
// park goroutines and panic: only a crash prints fp and sp (runtime.Stack
// forces the plain format).
const crashEnv = "SYMTAB_SPDELTA_CRASH"

// parseTraceback returns every physical frame of a crash traceback, with the
// frame pointer the runtime's own unwinder computed for it.
func parseTraceback(out string) []tracebackFrame {
	var frames []tracebackFrame
	lines := strings.Split(out, "\n")
	for i, line := range lines {
		m := frameInfo.FindStringSubmatch(line)
		if m == nil || i == 0 {
			continue
		}
		fn := lines[i-1]
		if j := strings.LastIndexByte(fn, '('); j > 0 {
			fn = fn[:j]
		}
		var v [3]uint64
		for k := range v {
			v[k], _ = strconv.ParseUint(m[k+1][2:], 16, 64)
		}
		frames = append(frames, tracebackFrame{fn: fn, fp: v[0], sp: v[1], pc: v[2]})
	}
	return frames
}

//go:noinline
func parkDeep(n int, ready *sync.WaitGroup, stop chan struct{}) int {
	var pad [8]int // a frame of its own
	pad[n%8] = n
	if n == 0 {
		ready.Done()
		<-stop
		return pad[0]
	}
	return parkDeep(n-1, ready, stop) + pad[n%8]
}

// crashWithParkedGoroutines is the child's side: goroutines parked in
// recursive user code, gopark and the scheduler, then a panic.
func crashWithParkedGoroutines() {
	var ready sync.WaitGroup
	stop := make(chan struct{})
	for i := range 4 {
		ready.Add(1)
		go parkDeep(3*i, &ready, stop)
	}
	ready.Wait()
	fmt.Fprintf(os.Stderr, "anchor %#x\n", reflect.ValueOf(parkDeep).Pointer())
	panic("symtab: traceback for TestSPDeltaMatchesTraceback")
}

// TestSPDeltaMatchesTraceback checks SPDelta against the runtime's unwinder:
// for every frame of a crash traceback it computed fp = sp +
// funcspdelta(pc), plus the return address slot on x86.
func TestSPDeltaMatchesTraceback(t *testing.T) {
	if os.Getenv(crashEnv) == "1" {
		crashWithParkedGoroutines()
	}
	if testing.Short() {
		t.Skip("runs the test binary again")
	}
	tab := selfImage(t).table(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestSPDeltaMatchesTraceback$")
	cmd.Env = append(os.Environ(), crashEnv+"=1", "GOTRACEBACK=system")
	out, _ := cmd.CombinedOutput()
	m := anchorPC.FindSubmatch(out)
	if m == nil {
		t.Fatalf("the child printed no anchor:\n%s", out)
	}
	// A position-independent test binary may load elsewhere in the child.
	childAnchor, _ := strconv.ParseUint(string(m[1][2:]), 16, 64)
	slide := childAnchor - uint64(reflect.ValueOf(parkDeep).Pointer())

	ret := uint64(0)
	if runtime.GOARCH == "amd64" || runtime.GOARCH == "386" {
		ret = 8
	}
	checked, nonzero := 0, 0
	funcs := map[string]bool{}
	for _, fr := range parseTraceback(string(out)) {
		d, ok := tab.SPDelta(uintptr(fr.pc - slide))
		if !ok {
			t.Errorf("%s pc %#x: no SP delta", fr.fn, fr.pc)
			continue
		}
		if want := fr.fp - fr.sp - ret; uint64(d) != want {
			t.Errorf("%s pc %#x: SPDelta %d, the runtime unwound with %d", fr.fn, fr.pc, d, want)
		}
		checked++
		if d != 0 {
			nonzero++
		}
		funcs[fr.fn] = true
	}
	t.Logf("%d frames in %d functions checked", checked, len(funcs))
	if checked < 20 || nonzero < 10 || !funcs["github.com/unitrace/unitrace/symtab.parkDeep"] {
		t.Errorf("too few frames checked (%d, %d with a frame, functions %v)\n%s", checked, nonzero, funcs, out)
	}
}

// TestSPDeltaEntry checks the one value every function shares: nothing is
// pushed at the entry instruction.
func TestSPDeltaEntry(t *testing.T) {
	img := selfImage(t)
	tab := img.table(t)
	for _, s := range img.funcs {
		if strings.HasPrefix(s.Name, "go:") {
			continue // linker markers (go:textfipsstart) have no tables
		}
		d, ok := tab.SPDelta(uintptr(s.Entry))
		if f, _, _ := tab.findFunc(uintptr(s.Entry)); tab.field(f, funcPCSP) == 0 {
			// External code (the race detector's C runtime) has no pcsp
			// table; the runtime's unwinder stops there too.
			if ok {
				t.Errorf("%s: SP delta %d without a pcsp table", s.Name, d)
			}
			continue
		}
		if !ok || d != 0 {
			t.Errorf("%s: SPDelta at entry = %d, %v; want 0, true", s.Name, d, ok)
		}
	}
}

// TestSPDeltaOutsideText checks that pcs no function holds give false.
func TestSPDeltaOutsideText(t *testing.T) {
	img := selfImage(t)
	tab := img.table(t)
	end, _ := tab.ftabEntry(tab.nfunc)
	for _, pc := range []uintptr{0, uintptr(img.text) - 1, uintptr(img.text) + uintptr(end), ^uintptr(0)} {
		if d, ok := tab.SPDelta(pc); ok {
			t.Errorf("SPDelta(%#x) = %d, want not found", pc, d)
		}
		if f, ok := tab.FuncAt(pc); ok {
			t.Errorf("FuncAt(%#x) = %s, want not found", pc, f.Name)
		}
	}
	var zero Table
	if _, ok := zero.SPDelta(uintptr(img.text)); ok {
		t.Error("zero Table has an SP delta")
	}
}

// TestFuncAtFlags checks FuncAt's bounds, IDs and flags on runtime
// functions whose flags the toolchain sets (internal/abi FuncFlag, FuncID).
func TestFuncAtFlags(t *testing.T) {
	img := selfImage(t)
	tab := img.table(t)
	const (
		idGoexit    = 8  // abi.FuncID_goexit
		idMorestack = 13 // abi.FuncID_morestack
	)
	want := map[string]struct {
		id        uint8
		set, notz FuncFlag
	}{
		"runtime.goexit":    {idGoexit, FuncFlagTopFrame | FuncFlagAsm, 0},
		"runtime.morestack": {idMorestack, FuncFlagSPWrite | FuncFlagAsm, 0},
		"runtime.memmove":   {0, FuncFlagAsm, FuncFlagTopFrame | FuncFlagSPWrite},
		"runtime.gopark":    {0, 0, FuncFlagAsm | FuncFlagTopFrame | FuncFlagSPWrite},
		"github.com/unitrace/unitrace/symtab.parkDeep": {0, 0, FuncFlagAsm | FuncFlagTopFrame | FuncFlagSPWrite},
	}
	found := 0
	for _, s := range img.funcs {
		w, ok := want[s.Name]
		if !ok {
			continue
		}
		found++
		for _, pc := range []uint64{s.Entry, (s.Entry + s.End) / 2, s.End - 1} {
			f, ok := tab.FuncAt(uintptr(pc))
			if !ok {
				t.Errorf("%s: FuncAt(%#x) found nothing", s.Name, pc)
				continue
			}
			if string(f.Name) != s.Name || uint64(f.Entry) != s.Entry || uint64(f.End) < s.End {
				t.Errorf("%s: FuncAt(%#x) = %s [%#x, %#x), want [%#x, %#x)", s.Name, pc, f.Name, f.Entry, f.End, s.Entry, s.End)
			}
			if f.ID != w.id || f.Flag&w.set != w.set || f.Flag&w.notz != 0 {
				t.Errorf("%s: id %d flags %03b, want id %d with %03b set and %03b clear", s.Name, f.ID, f.Flag, w.id, w.set, w.notz)
			}
		}
	}
	if found != len(want) {
		t.Errorf("found %d of the %d functions", found, len(want))
	}
}

// TestSPDeltaNoAllocation keeps the additions allocation-free like the rest.
func TestSPDeltaNoAllocation(t *testing.T) {
	img := selfImage(t)
	tab := img.table(t)
	pcs := make([]uintptr, 32)
	pcs = pcs[:runtime.Callers(0, pcs)]
	pcs = append(pcs, 0, ^uintptr(0))
	var sink int
	allocs := testing.AllocsPerRun(100, func() {
		for _, pc := range pcs {
			d, _ := tab.SPDelta(pc - 1)
			f, _ := tab.FuncAt(pc - 1)
			sink += int(d) + len(f.Name) + int(f.Flag)
		}
	})
	if allocs != 0 {
		t.Errorf("SPDelta and FuncAt allocate %v times per run", allocs)
	}
	if sink == 0 {
		t.Error("found nothing")
	}
}

// TestFrameAtAgrees: FrameAt is SPDelta and FuncAt's flags in one search, for every function's
// entry, middle and last byte, and on a Table rebuilt from its Layout.
func TestFrameAtAgrees(t *testing.T) {
	img := selfImage(t)
	built := img.table(t)
	tab := built.Layout.Rebuild(img.pclntab)
	if empty := built.Layout.Rebuild(img.pclntab[:len(img.pclntab)-1]); empty.nfunc != 0 {
		t.Error("Rebuild over bytes of another length gave a table")
	}
	checked := 0
	for _, s := range img.funcs {
		for _, pc := range []uintptr{uintptr(s.Entry), uintptr(s.Entry+s.End) / 2, uintptr(s.End - 1)} {
			d, flag, ok := tab.FrameAt(pc)
			wd, wok := built.SPDelta(pc)
			f, fok := built.FuncAt(pc)
			if ok != (wok && fok) || ok && (d != wd || flag != f.Flag) {
				t.Fatalf("%s: FrameAt(%#x) = %d, %03b, %v; SPDelta %d, %v; FuncAt flags %03b, %v", s.Name, pc, d, flag, ok, wd, wok, f.Flag, fok)
			}
			checked++
		}
	}
	if _, _, ok := tab.FrameAt(0); ok {
		t.Error("FrameAt(0) found a function")
	}
	if checked == 0 {
		t.Fatal("no functions")
	}
}
