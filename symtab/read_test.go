package symtab

import (
	"encoding/binary"
	"testing"
)

func TestUvarint(t *testing.T) {
	tests := []struct {
		b    []byte
		r    region
		want uint32
		n    uint64
	}{
		{[]byte{0}, region{0, 1}, 0, 1},
		{[]byte{0x7f}, region{0, 1}, 0x7f, 1},
		{[]byte{0x80, 0x01}, region{0, 2}, 0x80, 2},
		{[]byte{0xff, 0xff, 0xff, 0xff, 0x0f}, region{0, 5}, 0xffffffff, 5},
		{[]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, region{0, 6}, 8, 6}, // the shift wraps at 32, as in runtime.readvarint
		{[]byte{0x80}, region{0, 1}, 0, 0},                               // runs off the region
		{[]byte{0x80, 0x01}, region{0, 1}, 0, 0},                         // the region ends before the slice
		{[]byte{0x01}, region{0, 5}, 1, 1},                               // region larger than the slice: the slice bounds
		{[]byte{0x80}, region{0, 5}, 0, 0},
		{nil, region{0, 0}, 0, 0},
	}
	for _, tt := range tests {
		got, n := uvarint(tt.b, tt.r, tt.r.start)
		if got != tt.want || n != tt.n {
			t.Errorf("uvarint(%x, %v) = %#x, %d; want %#x, %d", tt.b, tt.r, got, n, tt.want, tt.n)
		}
	}
	for _, v := range []uint32{0, 1, 127, 128, 300, 1 << 20, 1<<32 - 1} {
		b := binary.AppendUvarint(nil, uint64(v))
		if got, n := uvarint(b, region{0, uint64(len(b))}, 0); got != v || n != uint64(len(b)) {
			t.Errorf("uvarint(%x) = %d, %d; want %d, %d", b, got, n, v, len(b))
		}
	}
}

func TestCstring(t *testing.T) {
	b := []byte("\x00main\x00x\x00unterminated")
	tests := []struct {
		r    region
		off  uint64
		want string
		ok   bool
	}{
		{region{0, uint64(len(b))}, 0, "", true},
		{region{0, uint64(len(b))}, 1, "main", true},
		{region{0, uint64(len(b))}, 3, "in", true},
		{region{0, uint64(len(b))}, 6, "x", true},
		{region{0, uint64(len(b))}, 8, "", false}, // no NUL before the end
		{region{1, 4}, 0, "", false},              // the NUL lies outside the region
		{region{1, 6}, 0, "main", true},
		{region{0, uint64(len(b))}, uint64(len(b)), "", false},
		{region{0, 100}, 0, "", false}, // region past the slice
		{region{5, 2}, 0, "", false},   // inverted region
		{region{0, uint64(len(b))}, ^uint64(0), "", false},
	}
	for _, tt := range tests {
		got, ok := cstring(b, tt.r, tt.off)
		if string(got) != tt.want || ok != tt.ok {
			t.Errorf("cstring(%v, %d) = %q, %v; want %q, %v", tt.r, tt.off, got, ok, tt.want, tt.ok)
		}
		if ok && cap(got) != len(got) {
			t.Errorf("cstring(%v, %d): capacity %d reaches past the string", tt.r, tt.off, cap(got))
		}
	}
}

func TestLe32AndWord(t *testing.T) {
	b := []byte{1, 2, 3, 4, 5, 6, 7, 8}
	if v, ok := le32(b, 0); !ok || v != 0x04030201 {
		t.Errorf("le32(0) = %#x, %v", v, ok)
	}
	if v, ok := le32(b, 4); !ok || v != 0x08070605 {
		t.Errorf("le32(4) = %#x, %v", v, ok)
	}
	for _, pos := range []uint64{5, 8, 9, ^uint64(0), ^uint64(0) - 2} {
		if _, ok := le32(b, pos); ok {
			t.Errorf("le32(%d) read past the end", pos)
		}
	}
	if v, ok := word(b, 0, 8); !ok || v != 0x0807060504030201 {
		t.Errorf("word(0, 8) = %#x, %v", v, ok)
	}
	if v, ok := word(b, 4, 4); !ok || v != 0x08070605 {
		t.Errorf("word(4, 4) = %#x, %v", v, ok)
	}
	if _, ok := word(b, 4, 8); ok {
		t.Error("word(4, 8) read past the end")
	}
}

func TestRegionContains(t *testing.T) {
	r := region{10, 20}
	tests := []struct {
		pos, n uint64
		want   bool
	}{
		{10, 10, true}, {10, 11, false}, {9, 1, false}, {19, 1, true}, {20, 0, true},
		{20, 1, false}, {21, 0, false}, {15, ^uint64(0), false}, {^uint64(0), 2, false},
	}
	for _, tt := range tests {
		if got := r.contains(tt.pos, tt.n); got != tt.want {
			t.Errorf("%v.contains(%d, %d) = %v", r, tt.pos, tt.n, got)
		}
	}
}

// TestPCValue decodes hand-encoded tables: the first pair may have a zero
// value delta, later ones end the table.
func TestPCValue(t *testing.T) {
	// A pctab: offset 0 unused, then tables at 1 and 6.
	pctab := []byte{0,
		0x02, 0x04, 0x04, 0x02, 0x00, // +1 (to 0) for 4, +2 (to 2) for 2, end
		0x00, 0x03, 0x05, 0x01, 0x00, // 0 delta first (stays -1) for 3, -3 (to -4) for 1, end
	}
	tab := Table{tab: pctab, Layout: Layout{pctab: region{0, uint64(len(pctab))}, quantum: 1}}
	f := fun{entry: 100, end: 110}
	tests := []struct {
		off    uint32
		target uint64
		want   int32
		ok     bool
	}{
		{1, 100, 0, true}, {1, 103, 0, true}, {1, 104, 2, true}, {1, 105, 2, true},
		{1, 106, -1, false}, // past the table
		{1, 99, 0, true},    // before the entry: the first value (the runtime does the same)
		{6, 100, -1, true}, {6, 102, -1, true}, {6, 103, -4, true}, {6, 104, -1, false},
		{0, 100, -1, false},  // no table
		{11, 100, -1, false}, // offset past the pctab
	}
	for _, tt := range tests {
		got, ok := tab.pcvalue(f, tt.off, tt.target)
		if got != tt.want || ok != tt.ok {
			t.Errorf("pcvalue(%d, %d) = %d, %v; want %d, %v", tt.off, tt.target, got, ok, tt.want, tt.ok)
		}
	}
	if got := tab.pcmax(f, 1); got != 2 {
		t.Errorf("pcmax(1) = %d, want 2", got)
	}
	if got := tab.pcmax(f, 6); got != -1 {
		t.Errorf("pcmax(6) = %d, want -1", got)
	}
	tab.quantum = 4 // pc deltas count instructions of 4 bytes
	if got, ok := tab.pcvalue(f, 1, 115); got != 0 || !ok {
		t.Errorf("quantum 4: pcvalue(1, 115) = %d, %v; want 0, true", got, ok)
	}
	if got, ok := tab.pcvalue(f, 1, 116); got != 2 || !ok {
		t.Errorf("quantum 4: pcvalue(1, 116) = %d, %v; want 2, true", got, ok)
	}
}
