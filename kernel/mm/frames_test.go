package mm

import "testing"

func TestMetaSize(t *testing.T) {
	for _, tc := range []struct {
		maxPhys, want uintptr
	}{
		{0, 0},
		{1, groupMetaBytes},
		{16 << 20, groupMetaBytes},
		{16<<20 + 1, 2 * groupMetaBytes},
		{64 << 30, 4096 * groupMetaBytes}, // 4 MiB + 32 KiB
		{MaxPhys, maxGroups * groupMetaBytes},
		{^uintptr(0), maxGroups * groupMetaBytes},
	} {
		if got := MetaSize(tc.maxPhys); got != tc.want {
			t.Errorf("MetaSize(%#x) = %d, want %d", tc.maxPhys, got, tc.want)
		}
	}
	if got := MetaSize(64 << 30); got > 5<<20 {
		t.Errorf("64 GiB need %d bytes of storage, want at most 5 MiB", got)
	}
}

func TestFramesZeroValue(t *testing.T) {
	var f Frames
	f.AddFree(0x100000, 0x200000)
	if pa, ok := f.Alloc(); ok {
		t.Errorf("Alloc on a Frames without storage = %#x, true", pa)
	}
	if f.Free(0x100000) {
		t.Error("Free on a Frames without storage succeeded")
	}
	want := FrameStats{InvalidFrees: 1, Ignored: 256}
	if got := f.Stats(); got != want {
		t.Errorf("Stats = %+v, want %+v", got, want)
	}
}

// TestFramesBasic walks one boot: the firmware map, the kernel image reserved, frames handed out
// lowest first, zero-filled, freed, and bad frees refused.
func TestFramesBasic(t *testing.T) {
	a := newArena(t, 0, 8<<20, false)
	a.fill(0, 8<<20, 0xAA)
	var f Frames
	f.Init(0x700003, MetaSize(8<<20)+5) // unaligned: Init rounds to 0x700008
	if got := f.Limit(); got != 16<<20 {
		t.Fatalf("Limit = %#x, want 16 MiB", got)
	}
	for _, b := range a.bytes(0x700008, groupMetaBytes) {
		if b != 0 {
			t.Fatal("Init did not zero its storage")
		}
	}
	f.AddFree(0, 0x9fc00)            // low memory: frame 0 is skipped, the tail rounds inward
	f.AddFree(0x100000, 0x800000)    // 1..8 MiB: the storage page at 7 MiB is skipped
	f.AddFree(0x100000, 0x200000)    // again: no change
	f.Reserve(0x100000, 0x300001)    // the kernel image, rounded outward to 0x301000
	f.Reserve(0x9e000, 0x9e001)      // one page of boot data
	f.AddFree(0x20000000, 0x3000000) // end < start: nothing
	wantTotal := uint64(0x9f-1-1) + (0x800 - 0x100 - 1) - (0x301 - 0x100)
	if s := f.Stats(); s.Total != wantTotal || s.Free != wantTotal || s.Allocated != 0 {
		t.Fatalf("after boot: %+v, want Total = Free = %d", s, wantTotal)
	}
	for i, want := range []uintptr{0x1000, 0x2000, 0x3000} {
		pa, ok := f.Alloc()
		if !ok || pa != want {
			t.Fatalf("Alloc #%d = %#x, %v; want %#x", i, pa, ok, want)
		}
		for _, b := range a.bytes(pa, PageSize) {
			if b != 0 {
				t.Fatalf("frame %#x not zero-filled", pa)
			}
		}
		a.fill(pa, PageSize, 0x55)
	}
	if !f.Free(0x2000) {
		t.Fatal("Free(0x2000) failed")
	}
	if pa, ok := f.Alloc(); !ok || pa != 0x2000 || a.bytes(pa, PageSize)[100] != 0 {
		t.Fatalf("Alloc after Free = %#x, %v; want a zeroed 0x2000", pa, ok)
	}
	for _, tc := range []struct {
		pa              uintptr
		double, invalid bool
	}{
		{0x4000, true, false},   // free, never allocated
		{0x2001, false, true},   // unaligned
		{0x0, false, true},      // frame 0 is never ours
		{0x200000, false, true}, // reserved kernel image
		{0x700000, false, true}, // the allocator's storage
		{0x9e000, false, true},  // reserved boot data
		{0xa0000, false, true},  // never added
		{16 << 20, false, true}, // beyond the storage
		{^uintptr(0) &^ pageMask, false, true},
	} {
		before := f.Stats()
		if f.Free(tc.pa) {
			t.Errorf("Free(%#x) succeeded", tc.pa)
		}
		after := f.Stats()
		if d := after.DoubleFrees - before.DoubleFrees; d != b2u(tc.double) {
			t.Errorf("Free(%#x): double frees +%d", tc.pa, d)
		}
		if d := after.InvalidFrees - before.InvalidFrees; d != b2u(tc.invalid) {
			t.Errorf("Free(%#x): invalid frees +%d", tc.pa, d)
		}
	}
	// Drain everything: the storage and the reserved ranges never come out.
	n := uint64(3)
	for {
		pa, ok := f.Alloc()
		if !ok {
			break
		}
		n++
		if pa == 0 || pa == 0x700000 || pa == 0x9e000 || (pa >= 0x100000 && pa < 0x301000) || pa >= 0x800000 {
			t.Fatalf("Alloc handed out %#x", pa)
		}
	}
	s := f.Stats()
	if n != wantTotal || s.Free != 0 || s.Allocated != wantTotal || s.HighWater != wantTotal {
		t.Errorf("drained %d frames, Stats %+v; want %d", n, s, wantTotal)
	}
	if !f.Free(0x5000) || f.Free(0x5000) {
		t.Error("Free then double Free of 0x5000 did not give true, false")
	}
}

func TestFramesIgnoredBeyondStorage(t *testing.T) {
	newArena(t, 0, 1<<20, false)
	var f Frames
	f.Init(0x1000, MetaSize(16<<20))
	f.AddFree(0x1000, 20<<20)
	s := f.Stats()
	if s.Ignored != 4<<20/PageSize || s.Total != 16<<20/PageSize-2 {
		t.Errorf("Stats = %+v; want 1024 ignored and 4094 owned", s)
	}
}

// TestFrames64GiB manages 64 GiB of fake RAM whose pages the host never backs unless touched.
func TestFrames64GiB(t *testing.T) {
	const ram = 64 << 30
	meta := MetaSize(ram)
	a := newArena(t, 0, ram, true)
	var f Frames
	f.Init(ram-meta, meta) // the storage at the top of RAM, as a boot would place it
	f.AddFree(0, ram)
	const metaFrames = (4<<20 + 32<<10) / PageSize
	if s := f.Stats(); s.Total != ram/PageSize-1-metaFrames || s.Ignored != 0 {
		t.Fatalf("Stats = %+v", s)
	}
	f.Reserve(0, ram-8<<20) // everything below the top 8 MiB
	pa, ok := f.Alloc()
	if !ok || pa != ram-8<<20 {
		t.Fatalf("Alloc = %#x, %v", pa, ok)
	}
	a.fill(pa, PageSize, 1)
	if !f.Free(pa) {
		t.Fatal("Free failed")
	}
	if got := f.Stats().Total; got != 8<<20/PageSize-metaFrames {
		t.Errorf("Total = %d", got)
	}
}

// TestFramesSparse spreads small free ranges over 64 GiB, so that the summaries span several
// words at every level, and checks that Alloc walks them in address order and finds frames freed
// behind it.
func TestFramesSparse(t *testing.T) {
	const ram = 64 << 30
	newArena(t, 0, ram, true)
	var f Frames
	f.Init(512<<20, MetaSize(ram))
	ranges := [][2]uintptr{{1 << 20, 1<<20 + 2*PageSize}, {5 << 30, 5<<30 + PageSize}, {40<<30 - PageSize, 40 << 30}, {ram - 3*PageSize, ram}}
	var want []uintptr
	for _, r := range ranges {
		f.AddFree(r[0], r[1])
		for pa := r[0]; pa < r[1]; pa += PageSize {
			want = append(want, pa)
		}
	}
	for round := 0; round < 2; round++ {
		for i, w := range want {
			if pa, ok := f.Alloc(); !ok || pa != w {
				t.Fatalf("round %d: Alloc #%d = %#x, %v; want %#x", round, i, pa, ok, w)
			}
		}
		if pa, ok := f.Alloc(); ok {
			t.Fatalf("round %d: Alloc on an empty allocator = %#x", round, pa)
		}
		for i := len(want) - 1; i >= 0; i-- {
			if !f.Free(want[i]) {
				t.Fatalf("Free(%#x) failed", want[i])
			}
		}
	}
}

func BenchmarkFramesAllocFree(b *testing.B) {
	a := newArena(b, 0, 64<<20, true)
	_ = a
	var f Frames
	f.Init(0, MetaSize(64<<20))
	f.AddFree(0, 64<<20)
	for i := 0; i < b.N; i++ {
		pa, _ := f.Alloc()
		f.Free(pa)
	}
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
