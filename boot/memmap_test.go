package boot

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func ranges(m *MemoryMap) []MemoryRange {
	var out []MemoryRange
	for i := 0; i < m.Len(); i++ {
		out = append(out, m.At(i))
	}
	return out
}

func TestMemoryMapSet(t *testing.T) {
	const (
		ram = MemoryRAM
		res = MemoryReserved
		acp = MemoryACPI
	)
	tests := []struct {
		name string
		raw  []MemoryRange
		want []MemoryRange
	}{
		{"empty", nil, nil},
		{"sorts", []MemoryRange{{0x100000, 0x1000, ram}, {0, 0x9fc00, ram}},
			[]MemoryRange{{0, 0x9fc00, ram}, {0x100000, 0x1000, ram}}},
		{"reserved splits RAM", []MemoryRange{{0, 0x10000, ram}, {0x4000, 0x1000, res}},
			[]MemoryRange{{0, 0x4000, ram}, {0x4000, 0x1000, res}, {0x5000, 0xb000, ram}}},
		{"reserved wins either order", []MemoryRange{{0x4000, 0x1000, res}, {0, 0x10000, ram}},
			[]MemoryRange{{0, 0x4000, ram}, {0x4000, 0x1000, res}, {0x5000, 0xb000, ram}}},
		{"partial overlap, larger type wins", []MemoryRange{{0, 0x3000, acp}, {0x2000, 0x2000, res}},
			[]MemoryRange{{0, 0x3000, acp}, {0x3000, 0x1000, res}}},
		{"touching same type merges", []MemoryRange{{0, 0x1000, ram}, {0x1000, 0x1000, ram}, {0x2000, 0x1000, ram}},
			[]MemoryRange{{0, 0x3000, ram}}},
		{"duplicates merge", []MemoryRange{{0x1000, 0x1000, res}, {0x1000, 0x1000, res}},
			[]MemoryRange{{0x1000, 0x1000, res}}},
		{"empty and typeless ranges dropped", []MemoryRange{{0x5000, 0, res}, {0x1000, 0x1000, 0}, {0x3000, 0x1000, ram}},
			[]MemoryRange{{0x3000, 0x1000, ram}}},
		{"gap kept", []MemoryRange{{0, 0x1000, ram}, {0x2000, 0x1000, ram}},
			[]MemoryRange{{0, 0x1000, ram}, {0x2000, 0x1000, ram}}},
		{"ends at the top", []MemoryRange{{1<<64 - 0x2000, 0x1fff, res}},
			[]MemoryRange{{1<<64 - 0x2000, 0x1fff, res}}},
	}
	for _, tt := range tests {
		var m MemoryMap
		if err := m.Set(tt.raw); err != OK {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if got := ranges(&m); !slices.Equal(got, tt.want) {
			t.Errorf("%s:\n got %x\nwant %x", tt.name, got, tt.want)
		}
	}
}

func TestMemoryMapErrors(t *testing.T) {
	var m MemoryMap
	if err := m.Set([]MemoryRange{{0, 0x1000, MemoryRAM}, {1<<64 - 0x1000, 0x1000, MemoryRAM}}); err != ErrMemoryRangeWraps || m.Len() != 0 {
		t.Errorf("range to 2^64: %v, len %d", err, m.Len())
	}
	var raw []MemoryRange
	for i := uint64(0); i < MaxMemoryRanges; i++ {
		raw = append(raw, MemoryRange{i * 0x2000, 0x1000, MemoryRAM})
	}
	if err := m.Set(raw); err != OK || m.Len() != MaxMemoryRanges {
		t.Fatalf("%d ranges: %v, len %d", MaxMemoryRanges, err, m.Len())
	}
	if m.RAMBytes() != MaxMemoryRanges*0x1000 {
		t.Errorf("RAMBytes = %#x", m.RAMBytes())
	}
	raw = append(raw, MemoryRange{MaxMemoryRanges * 0x2000, 0x1000, MemoryRAM})
	if err := m.Set(raw); err != ErrMemoryMapFull || m.Len() != 0 {
		t.Fatalf("%d ranges: %v, len %d", MaxMemoryRanges+1, err, m.Len())
	}
	if (m.At(-1) != MemoryRange{} || m.At(0) != MemoryRange{}) {
		t.Error("At out of range returned a range")
	}
}

// checkAgainstPoints compares the map with a brute-force type per address
// over [0, space).
func checkAgainstPoints(t *testing.T, raw []MemoryRange, m *MemoryMap, space uint64) {
	t.Helper()
	want := make([]MemoryType, space)
	for _, r := range raw {
		for a := r.Addr; a < r.End() && a < space; a++ {
			want[a] = max(want[a], r.Type)
		}
	}
	got := make([]MemoryType, space)
	for i, r := range ranges(m) {
		if r.Size == 0 {
			t.Fatalf("empty range %d", i)
		}
		if i > 0 {
			prev := m.At(i - 1)
			if prev.End() > r.Addr || prev.End() == r.Addr && prev.Type == r.Type {
				t.Fatalf("ranges %d and %d overlap or should merge: %x %x", i-1, i, prev, r)
			}
		}
		for a := r.Addr; a < r.End(); a++ {
			got[a] = r.Type
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("raw %v:\n got %v\nwant %v", raw, got, want)
	}
}

func TestMemoryMapRandomAgainstPoints(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 5000; i++ {
		raw := make([]MemoryRange, r.IntN(12))
		for j := range raw {
			raw[j] = MemoryRange{uint64(r.IntN(60)), uint64(r.IntN(20)), MemoryType(r.IntN(4))}
		}
		var m MemoryMap
		if err := m.Set(raw); err != OK {
			t.Fatal(err)
		}
		checkAgainstPoints(t, raw, &m, 80)
	}
}

func FuzzMemoryMapSet(f *testing.F) {
	f.Add([]byte{0, 10, 1, 5, 2, 2, 8, 20, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		var raw []MemoryRange
		for i := 0; i+2 < len(b); i += 3 {
			raw = append(raw, MemoryRange{uint64(b[i]), uint64(b[i+1]), MemoryType(b[i+2] % 9)})
		}
		var m MemoryMap
		err := m.Set(raw)
		if len(raw) > MaxMemoryRanges/2 && err == ErrMemoryMapFull {
			return
		}
		if err != OK {
			t.Fatal(err)
		}
		checkAgainstPoints(t, raw, &m, 512)
	})
}
