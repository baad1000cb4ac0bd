package symtab

import (
	"encoding/binary"
	"testing"
)

// TestNewRejects checks the header validation on a good synthetic table
// with one field broken at a time.
func TestNewRejects(t *testing.T) {
	good, _ := sampleSynth(1).build()
	if _, ok := New(good, synthText); !ok {
		t.Fatal("New rejected the good table")
	}
	le := binary.LittleEndian
	hdrWord := func(i int) int { return 8 + 8*i }
	tests := []struct {
		name  string
		patch func(b []byte) []byte
	}{
		{"empty", func(b []byte) []byte { return nil }},
		{"short", func(b []byte) []byte { return b[:7] }},
		{"header cut", func(b []byte) []byte { return b[:40] }},
		{"Go 1.18 magic", func(b []byte) []byte { le.PutUint32(b, 0xfffffff0); return b }},
		{"big-endian magic", func(b []byte) []byte { binary.BigEndian.PutUint32(b, magicGo120); return b }},
		{"pad", func(b []byte) []byte { b[5] = 1; return b }},
		{"quantum 3", func(b []byte) []byte { b[6] = 3; return b }},
		{"quantum 0", func(b []byte) []byte { b[6] = 0; return b }},
		{"pointer size 2", func(b []byte) []byte { b[7] = 2; return b }},
		{"no functions", func(b []byte) []byte { le.PutUint64(b[hdrWord(0):], 0); return b }},
		{"too many functions", func(b []byte) []byte { le.PutUint64(b[hdrWord(0):], 1<<40); return b }},
		{"ftab past the end", func(b []byte) []byte { le.PutUint64(b[hdrWord(0):], uint64(len(b))); return b }},
		{"funcnametab inside header", func(b []byte) []byte { le.PutUint64(b[hdrWord(3):], 8); return b }},
		{"cutab before funcnametab", func(b []byte) []byte { le.PutUint64(b[hdrWord(4):], 72); le.PutUint64(b[hdrWord(3):], 80); return b }},
		{"filetab before cutab", func(b []byte) []byte { le.PutUint64(b[hdrWord(5):], le.Uint64(b[hdrWord(4):])-1); return b }},
		{"pctab before filetab", func(b []byte) []byte { le.PutUint64(b[hdrWord(6):], le.Uint64(b[hdrWord(5):])-1); return b }},
		{"functab before pctab", func(b []byte) []byte { le.PutUint64(b[hdrWord(7):], le.Uint64(b[hdrWord(6):])-1); return b }},
		{"functab past the end", func(b []byte) []byte { le.PutUint64(b[hdrWord(7):], uint64(len(b))+1); return b }},
		{"offset overflow", func(b []byte) []byte { le.PutUint64(b[hdrWord(7):], ^uint64(0)); return b }},
	}
	for _, tt := range tests {
		b := tt.patch(append([]byte(nil), good...))
		if tab, ok := New(b, synthText); ok {
			t.Errorf("%s: New accepted the table", tt.name)
			tab.Lookup(synthText) // must not panic either way
		}
	}
}

// TestTruncated cuts a good table at every length: New may accept a cut
// that keeps the header and ftab, but no lookup may fail other than by
// returning not found.
func TestTruncated(t *testing.T) {
	for _, q := range []uint32{1, 4} {
		good, lay := sampleSynth(q).build()
		for n := 0; n <= len(good); n++ {
			tab, ok := New(good[:n:n], synthText)
			if !ok {
				continue
			}
			for off := uint32(0); off <= lay.end; off++ {
				for depth := range 4 {
					checkFrame(t, good[:n], &tab, synthText+uintptr(off), depth)
				}
			}
		}
	}
}

// TestCorruptedBytes flips every byte of a small table in turn.
func TestCorruptedBytes(t *testing.T) {
	good, lay := sampleSynth(1).build()
	b := append([]byte(nil), good...)
	for i := range b {
		for _, x := range []byte{0x01, 0x80, 0xff} {
			b[i] ^= x
			if tab, ok := New(b, synthText); ok {
				for off := uint32(0); off <= lay.end; off += 3 {
					checkFrame(t, b, &tab, synthText+uintptr(off), int(off%4))
				}
			}
			b[i] ^= x
		}
	}
}

// checkFrame looks up pc and checks that a found frame's slices lie inside
// the table and hold no NUL.
func checkFrame(t *testing.T, tab []byte, table *Table, pc uintptr, depth int) {
	t.Helper()
	checkFunc(t, tab, table, pc)
	fr, ok := table.InlinedAt(pc, depth)
	if !ok {
		return
	}
	for _, s := range [][]byte{fr.Name, fr.File} {
		for _, c := range s {
			if c == 0 {
				t.Fatalf("InlinedAt(%#x, %d): NUL inside %q", pc, depth, s)
			}
		}
		if len(s) > len(tab) {
			t.Fatalf("InlinedAt(%#x, %d): %d-byte string from a %d-byte table", pc, depth, len(s), len(tab))
		}
	}
	if fr.File == nil && fr.Line != 0 {
		t.Fatalf("InlinedAt(%#x, %d): line %d without a file", pc, depth, fr.Line)
	}
}

// checkFunc checks FuncAt and SPDelta at pc: a found function holds pc and
// its name lies inside the table; an SP delta is never negative.
func checkFunc(t *testing.T, tab []byte, table *Table, pc uintptr) {
	t.Helper()
	if d, ok := table.SPDelta(pc); ok && d < 0 {
		t.Fatalf("SPDelta(%#x) = %d", pc, d)
	}
	f, ok := table.FuncAt(pc)
	if !ok {
		return
	}
	if pc < f.Entry || pc >= f.End || len(f.Name) > len(tab) {
		t.Fatalf("FuncAt(%#x) = [%#x, %#x) with a %d-byte name", pc, f.Entry, f.End, len(f.Name))
	}
	for _, c := range f.Name {
		if c == 0 {
			t.Fatalf("FuncAt(%#x): NUL inside %q", pc, f.Name)
		}
	}
}
