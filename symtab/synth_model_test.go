package symtab

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSampleTable checks the fixed synthetic table frame by frame.
func TestSampleTable(t *testing.T) {
	for _, q := range []uint32{1, 4} {
		s := sampleSynth(q)
		b, lay := s.build()
		tab, ok := New(b, synthText)
		if !ok {
			t.Fatalf("quantum %d: New rejected the table", q)
		}
		if tab.gofunc != lay.gofunc {
			t.Errorf("quantum %d: go:func.* found at %d, built at %d", q, tab.gofunc, lay.gofunc)
		}
		tests := []struct {
			off   uint32
			depth int
			name  string
			file  string
			line  int32
			inl   bool
		}{
			{0, 0, "main.main", "main.go", 10, false},
			{2 * q, 0, "main.main", "main.go", 11, false},
			{4 * q, 0, "lib.Outer", "lib/lib.go", 40, true},
			{4 * q, 1, "main.main", "main.go", 11, false}, // the call site at parentPC 3q
			{8 * q, 0, "lib.inner", "lib/lib.go", 50, true},
			{8 * q, 1, "lib.Outer", "lib/lib.go", 40, true}, // at parentPC 5q
			{8 * q, 2, "main.main", "main.go", 11, false},
			{15 * q, 0, "main.main", "main.go", 12, false},
			{16 * q, 0, "runtime.asmcgocall", "asm.s", 100, false},
			{20 * q, 0, "runtime.asmcgocall", "asm.s", 101, false},
			{24 * q, 0, "go:textmarker", "", 0, false},
			{28 * q, 0, "main.(*T).M", "main.go", 1, false},
		}
		for _, tt := range tests {
			fr, ok := tab.InlinedAt(synthText+uintptr(tt.off), tt.depth)
			if !ok || string(fr.Name) != tt.name || string(fr.File) != tt.file || fr.Line != tt.line || fr.Inlined != tt.inl {
				t.Errorf("quantum %d: InlinedAt(+%d, %d) = %q %q:%d inlined=%v ok=%v, want %q %q:%d inlined=%v",
					q, tt.off, tt.depth, fr.Name, fr.File, fr.Line, fr.Inlined, ok, tt.name, tt.file, tt.line, tt.inl)
			}
		}
		for _, off := range []uint32{0, 8 * q} {
			if fr, ok := tab.InlinedAt(synthText+uintptr(off), 3); ok {
				t.Errorf("quantum %d: InlinedAt(+%d, 3) = %q, want none", q, off, fr.Name)
			}
		}
		if fr, _ := tab.Lookup(synthText + uintptr(28*q)); !fr.Wrapper {
			t.Errorf("quantum %d: main.(*T).M is not marked as a wrapper", q)
		}
		if fr, _ := tab.Lookup(synthText); fr.Wrapper || fr.Entry != synthText {
			t.Errorf("quantum %d: main.main: wrapper=%v entry=%#x", q, fr.Wrapper, fr.Entry)
		}
		for _, pc := range []uintptr{0, synthText - 1, synthText + uintptr(lay.end), ^uintptr(0)} {
			if fr, ok := tab.Lookup(pc); ok {
				t.Errorf("quantum %d: Lookup(%#x) = %q, want none", q, pc, fr.Name)
			}
		}
	}
}

// randomSynth makes a random table whose inline trees are well formed:
// every record's parent pc lies where the parent record (or the function's
// own code) is in effect, and parents come before children.
func randomSynth(rng *rand.Rand) *synth {
	q := []uint32{1, 2, 4}[rng.IntN(3)]
	s := &synth{quantum: q, align: []uint64{4, 8, 16, 32}[rng.IntN(4)]}
	for i := range 1 + rng.IntN(5) {
		s.files = append(s.files, "dir/file"+itoa(i)+".go")
	}
	for i := range 1 + rng.IntN(20) {
		if rng.IntN(8) == 0 { // a zero-size marker, as race-enabled builds have
			s.funcs = append(s.funcs, synthFunc{name: "pkg.marker" + itoa(i)})
		}
		units := uint32(1 + rng.IntN(60))
		f := synthFunc{name: "pkg.F" + itoa(i), size: units * q}
		cuts := func() []uint32 { // random ends of runs, strictly increasing
			var ends []uint32
			for u := uint32(1); u < units; u++ {
				if rng.IntN(4) == 0 {
					ends = append(ends, u*q)
				}
			}
			return append(ends, units*q)
		}
		distinct := func(ends []uint32, pick func() int32) []run {
			var runs []run
			prev := int32(-1 << 30)
			for _, e := range ends {
				// Equal neighbours merge: the writer never emits a
				// zero value delta after the first pair.
				if v := pick(); v != prev {
					runs = append(runs, run{v, e})
					prev = v
				} else {
					runs[len(runs)-1].end = e
				}
			}
			return runs
		}
		if rng.IntN(10) != 0 {
			f.file = distinct(cuts(), func() int32 { return int32(rng.IntN(len(s.files))) })
			f.line = distinct(cuts(), func() int32 { return int32(1 + rng.IntN(3000)) })
		}
		if rng.IntN(3) != 0 && units > 1 {
			n := 1 + rng.IntN(6)
			f.inlIdx = distinct(cuts(), func() int32 { return int32(rng.IntN(n+1)) - 1 })
			if !slices.ContainsFunc(f.inlIdx, func(r run) bool { return r.val == -1 }) {
				f.inlIdx[0].val = -1 // keep some of the function's own code
			}
			for j := range n {
				// Nested inlining (each call inlined into the one
				// before) is the common case in real code.
				parent := int32(j) - 1
				if rng.IntN(3) == 0 {
					parent = int32(rng.IntN(j+1)) - 1
				}
				var at []uint32
				for off := uint32(0); off < f.size; off += q {
					if valueAt(f.inlIdx, off) == parent {
						at = append(at, off)
					}
				}
				if len(at) == 0 {
					for off := uint32(0); off < f.size; off += q {
						if valueAt(f.inlIdx, off) == -1 {
							at = append(at, off)
						}
					}
				}
				f.inl = append(f.inl, synthInl{
					funcID:   uint8(rng.IntN(2)) * funcIDWrapper,
					name:     "inl.G" + itoa(i) + "_" + itoa(j),
					parentPC: int32(at[rng.IntN(len(at))]),
				})
			}
		}
		s.funcs = append(s.funcs, f)
	}
	return s
}

// TestRandomTablesAgainstModel builds random tables with the reference
// writer and checks every PC and every inline depth against the reference
// reader.
func TestRandomTablesAgainstModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	n := 500
	if testing.Short() {
		n = 50
	}
	refused := 0
	for iter := range n {
		s := randomSynth(rng)
		b, lay := s.build()
		tab, ok := New(b, synthText)
		if !ok {
			t.Fatalf("table %d: New rejected it", iter)
		}
		// With few inline trees to check, several placements of
		// go:func.* can look right; findGoFunc must then refuse (0) rather
		// than guess, and Lookup carries on without inline frames.
		trees := 0
		for _, f := range s.funcs {
			if slices.ContainsFunc(f.inlIdx, func(r run) bool { return r.val >= 0 }) {
				trees++
			}
		}
		noInline := tab.gofunc == 0
		switch {
		case noInline && trees >= 4:
			t.Fatalf("table %d: go:func.* not found among %d inline trees, built at %d", iter, trees, lay.gofunc)
		case noInline && trees > 0:
			refused++
		case !noInline && tab.gofunc != lay.gofunc:
			t.Fatalf("table %d: go:func.* found at %d, built at %d", iter, tab.gofunc, lay.gofunc)
		}
		for fi, f := range s.funcs {
			for off := uint32(0); off < f.size; off++ {
				pc := synthText + uintptr(lay.entries[fi]+off)
				for depth := 0; depth < 9; depth++ {
					name, file, line, inl, ok := s.modelFrame(fi, off, depth, noInline)
					fr, gotOK := tab.InlinedAt(pc, depth)
					if ok != gotOK || string(fr.Name) != name || string(fr.File) != file || fr.Line != line || fr.Inlined != inl {
						t.Fatalf("table %d, %s+%d depth %d: got %q %q:%d inlined=%v ok=%v, want %q %q:%d inlined=%v ok=%v",
							iter, f.name, off, depth, fr.Name, fr.File, fr.Line, fr.Inlined, gotOK, name, file, line, inl, ok)
					}
					if !ok {
						break
					}
				}
			}
		}
	}
	t.Logf("%d of %d tables too small to place go:func.*", refused, n)
	if refused > n/10 {
		t.Errorf("go:func.* refused in %d of %d tables", refused, n)
	}
}
