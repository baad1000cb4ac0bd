package mm

import (
	"reflect"
	"testing"

	"github.com/unitrace/unitrace/kernel/abi"
)

// The table tests' address space: user addresses from 64 KiB up to the end of the lower half,
// mmaps top-down from 0x7f00_0000_0000, the kernel's identity map of the first GiB (above 1 MiB)
// and an MMIO window excluded.
const (
	tLo       = 0x10000
	tHi       = 1 << 47
	tBase     = 0x7f0000000000
	tKernelLo = 0x100000
	tKernelHi = 0x40000000
	tMMIOLo   = 0xfe000000
	tMMIOHi   = 0x100000000
	mib       = 1 << 20
)

func newTestSpace(t *testing.T) *Space {
	t.Helper()
	s := new(Space)
	s.Init(tLo, tHi, tBase)
	if e := s.Exclude(tKernelLo, tKernelHi); e != 0 {
		t.Fatalf("Exclude kernel = %d", e)
	}
	if e := s.Exclude(tMMIOLo, tMMIOHi); e != 0 {
		t.Fatalf("Exclude MMIO = %d", e)
	}
	return s
}

func regionsOf(s *Space) []Region {
	rs := []Region{}
	for i := 0; i < s.Len(); i++ {
		rs = append(rs, s.At(i))
	}
	return rs
}

// setup is a list of fixed maps run before an operation.
type setup []Region

func (su setup) apply(t *testing.T, s *Space) {
	t.Helper()
	for _, r := range su {
		if _, e := s.Map(r.Start, r.End-r.Start, r.Prot, true); e != 0 {
			t.Fatalf("setup Map(%+v) = %d", r, e)
		}
	}
}

const (
	rw = ProtRead | ProtWrite
	ro = ProtRead
)

func TestSpaceMap(t *testing.T) {
	heap := setup{{Start: 0xc000000000, End: 0xc004000000, Prot: ProtNone}}
	for _, tc := range []struct {
		name     string
		setup    setup
		hint     uintptr
		length   uintptr
		prot     uint32
		fixed    bool
		wantAddr uintptr
		wantErr  int
		want     []Region // nil: do not check
	}{
		{name: "zero length", length: 0, wantErr: abi.EINVAL},
		{name: "unknown prot", length: PageSize, prot: 8, wantErr: abi.EINVAL},
		{name: "fixed unaligned", hint: 0x200001, length: PageSize, fixed: true, wantErr: abi.EINVAL},
		{name: "length overflows", length: ^uintptr(0) - 5, wantErr: abi.ENOMEM},
		{name: "length beyond the space", length: tHi, wantErr: abi.ENOMEM},
		{name: "fixed beyond hi", hint: tHi - PageSize, length: 2 * PageSize, fixed: true, wantErr: abi.ENOMEM},
		{name: "fixed at hi", hint: tHi, length: PageSize, fixed: true, wantErr: abi.ENOMEM},
		{name: "fixed below lo", hint: 0x1000, length: PageSize, fixed: true, wantErr: abi.ENOMEM},
		{name: "fixed straddles lo", hint: tLo - PageSize, length: 2 * PageSize, fixed: true, wantErr: abi.ENOMEM},
		{name: "fixed in kernel", hint: 0x200000, length: PageSize, fixed: true, wantErr: abi.ENOMEM},
		{name: "fixed touches kernel", hint: tKernelLo - PageSize, length: 2 * PageSize, fixed: true, wantErr: abi.ENOMEM},
		{name: "fixed covers MMIO", hint: 0xf0000000, length: 0x20000000, fixed: true, wantErr: abi.ENOMEM},
		{name: "fixed ends at kernel", hint: tKernelLo - PageSize, length: PageSize, fixed: true,
			wantAddr: tKernelLo - PageSize, want: []Region{{Start: tKernelLo - PageSize, End: tKernelLo, Prot: 0}}},
		{name: "fixed at the top", hint: tHi - PageSize, length: 1, prot: rw, fixed: true,
			wantAddr: tHi - PageSize, want: []Region{{Start: tHi - PageSize, End: tHi, Prot: rw}}},
		{name: "fixed replaces the middle", setup: heap, hint: 0xc000100000, length: mib, prot: rw, fixed: true,
			wantAddr: 0xc000100000, want: []Region{{Start: 0xc000000000, End: 0xc000100000, Prot: 0}, {Start: 0xc000100000, End: 0xc000200000, Prot: rw}, {Start: 0xc000200000, End: 0xc004000000, Prot: 0}}},
		{name: "fixed replaces several", setup: setup{{Start: 0x50000000, End: 0x50002000, Prot: ro}, {Start: 0x50003000, End: 0x50004000, Prot: rw}, {Start: 0x50005000, End: 0x50008000, Prot: ro}},
			hint: 0x50001000, length: 0x5000, prot: ProtExec, fixed: true, wantAddr: 0x50001000,
			want: []Region{{Start: 0x50000000, End: 0x50001000, Prot: ro}, {Start: 0x50001000, End: 0x50006000, Prot: ProtExec}, {Start: 0x50006000, End: 0x50008000, Prot: ro}}},
		{name: "fixed merges both sides", setup: setup{{Start: 0x50000000, End: 0x50001000, Prot: rw}, {Start: 0x50002000, End: 0x50003000, Prot: rw}},
			hint: 0x50001000, length: PageSize, prot: rw, fixed: true, wantAddr: 0x50001000,
			want: []Region{{Start: 0x50000000, End: 0x50003000, Prot: rw}}},
		{name: "fixed same prot is a no-op", setup: heap, hint: 0xc000100000, length: mib, fixed: true,
			wantAddr: 0xc000100000, want: []Region{{Start: 0xc000000000, End: 0xc004000000, Prot: 0}}},
		{name: "hint honoured", hint: 0xc000000000, length: 64 * mib, wantAddr: 0xc000000000,
			want: []Region{{Start: 0xc000000000, End: 0xc004000000, Prot: 0}}},
		{name: "unaligned hint rounds up", hint: 0xc000000001, length: PageSize, wantAddr: 0xc000001000},
		{name: "length rounds up", hint: 0xc000000000, length: 1, prot: rw, wantAddr: 0xc000000000,
			want: []Region{{Start: 0xc000000000, End: 0xc000001000, Prot: rw}}},
		{name: "occupied hint", setup: heap, hint: 0xc000000000, length: 64 * mib, wantAddr: tBase - 64*mib},
		{name: "hint overlapping the end of a region", setup: heap, hint: 0xc003ff0000, length: mib, wantAddr: tBase - mib},
		{name: "hint in the kernel", hint: 0x200000, length: PageSize, wantAddr: tBase - PageSize},
		{name: "hint below lo", hint: 0x1000, length: PageSize, wantAddr: tBase - PageSize},
		{name: "hint runs past hi", hint: tHi - PageSize, length: 2 * PageSize, wantAddr: tBase - 2*PageSize},
		{name: "hint wraps", hint: ^uintptr(0), length: PageSize, wantAddr: tBase - PageSize},
		{name: "no hint: below mmapBase", length: 3 * PageSize, prot: rw, wantAddr: tBase - 3*PageSize},
		{name: "no hint: below a mapping when the gap above is too small", setup: setup{{Start: tBase - 8*PageSize, End: tBase - 2*PageSize, Prot: rw}},
			length: 4 * PageSize, wantAddr: tBase - 12*PageSize},
		{name: "no hint: into the gap above a mapping", setup: setup{{Start: tBase - 8*PageSize, End: tBase - 2*PageSize, Prot: rw}},
			length: 2 * PageSize, wantAddr: tBase - 2*PageSize},
		{name: "no hint: nothing below mmapBase, falls back to the top", setup: setup{{Start: tLo, End: tKernelLo, Prot: ro}, {Start: tKernelHi, End: tMMIOLo, Prot: ro}, {Start: tMMIOHi, End: tBase, Prot: ro}},
			length: PageSize, wantAddr: tHi - PageSize},
		{name: "no room", setup: setup{{Start: tLo, End: tKernelLo, Prot: ro}, {Start: tKernelHi, End: tMMIOLo, Prot: ro}, {Start: tMMIOHi, End: tHi, Prot: ro}},
			length: PageSize, wantErr: abi.ENOMEM},
		{name: "no room for the size", setup: setup{{Start: tLo, End: tKernelLo - PageSize, Prot: ro}, {Start: tKernelHi, End: tMMIOLo, Prot: ro}, {Start: tMMIOHi, End: tHi, Prot: ro}},
			length: 2 * PageSize, wantErr: abi.ENOMEM},
		{name: "squeezed into the last hole", setup: setup{{Start: tLo, End: tKernelLo - PageSize, Prot: ro}, {Start: tKernelHi, End: tMMIOLo, Prot: ro}, {Start: tMMIOHi, End: tHi, Prot: ro}},
			length: PageSize, wantAddr: tKernelLo - PageSize},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestSpace(t)
			tc.setup.apply(t, s)
			before := regionsOf(s)
			addr, e := s.Map(tc.hint, tc.length, tc.prot, tc.fixed)
			if addr != tc.wantAddr || e != tc.wantErr {
				t.Fatalf("Map(%#x, %#x, %d, %v) = %#x, %d; want %#x, %d", tc.hint, tc.length, tc.prot, tc.fixed, addr, e, tc.wantAddr, tc.wantErr)
			}
			checkSpace(t, s)
			if e != 0 {
				if got := regionsOf(s); !reflect.DeepEqual(got, before) {
					t.Errorf("failed Map changed the space: %v, was %v", got, before)
				}
			}
			if tc.want != nil && !reflect.DeepEqual(regionsOf(s), tc.want) {
				t.Errorf("regions = %#v, want %#v", regionsOf(s), tc.want)
			}
		})
	}
}

func TestSpaceUnmapProtect(t *testing.T) {
	three := setup{{Start: 0x50000000, End: 0x50004000, Prot: ro}, {Start: 0x50004000, End: 0x50008000, Prot: rw}, {Start: 0x5000a000, End: 0x5000c000, Prot: ro}}
	for _, tc := range []struct {
		name    string
		setup   setup
		protect bool
		start   uintptr
		length  uintptr
		prot    uint32
		wantErr int
		want    []Region
	}{
		{name: "unmap unaligned", start: 0x50000001, length: PageSize, wantErr: abi.EINVAL},
		{name: "unmap zero length", start: 0x50000000, wantErr: abi.EINVAL},
		{name: "unmap overflows", start: 0x50000000, length: ^uintptr(0), wantErr: abi.EINVAL},
		{name: "unmap past hi", start: tHi - PageSize, length: 2 * PageSize, wantErr: abi.EINVAL},
		{name: "unmap below lo", setup: three, start: 0, length: PageSize, want: three},
		{name: "unmap kernel", start: 0x200000, length: PageSize, wantErr: abi.EINVAL},
		{name: "unmap touching MMIO", start: tMMIOLo - PageSize, length: 2 * PageSize, wantErr: abi.EINVAL},
		{name: "unmap a hole", setup: three, start: 0x50008000, length: 0x2000, want: three},
		{name: "unmap splits", setup: three, start: 0x50001000, length: 0x2000,
			want: []Region{{Start: 0x50000000, End: 0x50001000, Prot: ro}, {Start: 0x50003000, End: 0x50004000, Prot: ro}, {Start: 0x50004000, End: 0x50008000, Prot: rw}, {Start: 0x5000a000, End: 0x5000c000, Prot: ro}}},
		{name: "unmap across regions and holes", setup: three, start: 0x50002000, length: 0x9000,
			want: []Region{{Start: 0x50000000, End: 0x50002000, Prot: ro}, {Start: 0x5000b000, End: 0x5000c000, Prot: ro}}},
		{name: "unmap all, length rounded up", setup: three, start: 0x50000000, length: 0xb001, want: []Region{}},
		{name: "protect unaligned", protect: true, start: 0x50000800, length: PageSize, wantErr: abi.EINVAL},
		{name: "protect unknown prot", setup: three, protect: true, start: 0x50000000, length: PageSize, prot: 9, wantErr: abi.EINVAL},
		{name: "protect zero length", protect: true, start: 0x50000000, length: 0, want: []Region{}},
		{name: "protect overflows", setup: three, protect: true, start: 0x50000000, length: ^uintptr(0) - 5, wantErr: abi.ENOMEM},
		{name: "protect unmapped", protect: true, start: 0x50000000, length: PageSize, wantErr: abi.ENOMEM},
		{name: "protect over a hole", setup: three, protect: true, start: 0x50006000, length: 0x6000, wantErr: abi.ENOMEM},
		{name: "protect kernel", protect: true, start: 0x200000, length: PageSize, wantErr: abi.ENOMEM},
		{name: "protect merges", setup: three, protect: true, start: 0x50004000, length: 0x4000, prot: ro,
			want: []Region{{Start: 0x50000000, End: 0x50008000, Prot: ro}, {Start: 0x5000a000, End: 0x5000c000, Prot: ro}}},
		{name: "protect splits", setup: three, protect: true, start: 0x50005000, length: 0x1000, prot: ProtNone,
			want: []Region{{Start: 0x50000000, End: 0x50004000, Prot: ro}, {Start: 0x50004000, End: 0x50005000, Prot: rw}, {Start: 0x50005000, End: 0x50006000, Prot: 0}, {Start: 0x50006000, End: 0x50008000, Prot: rw}, {Start: 0x5000a000, End: 0x5000c000, Prot: ro}}},
		{name: "protect across adjacent regions", setup: three, protect: true, start: 0x50002000, length: 0x4001, prot: ProtExec,
			want: []Region{{Start: 0x50000000, End: 0x50002000, Prot: ro}, {Start: 0x50002000, End: 0x50007000, Prot: ProtExec}, {Start: 0x50007000, End: 0x50008000, Prot: rw}, {Start: 0x5000a000, End: 0x5000c000, Prot: ro}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestSpace(t)
			tc.setup.apply(t, s)
			before := regionsOf(s)
			var e int
			if tc.protect {
				e = s.Protect(tc.start, tc.length, tc.prot)
			} else {
				e = s.Unmap(tc.start, tc.length)
			}
			if e != tc.wantErr {
				t.Fatalf("errno = %d, want %d", e, tc.wantErr)
			}
			checkSpace(t, s)
			if e != 0 && !reflect.DeepEqual(regionsOf(s), before) {
				t.Errorf("failed call changed the space: %v, was %v", regionsOf(s), before)
			}
			if tc.want != nil && !reflect.DeepEqual(regionsOf(s), tc.want) {
				t.Errorf("regions = %#v, want %#v", regionsOf(s), tc.want)
			}
		})
	}
}

func TestSpaceFind(t *testing.T) {
	s := newTestSpace(t)
	setup{{Start: 0x50000000, End: 0x50004000, Prot: ro}, {Start: 0x50004000, End: 0x50008000, Prot: rw}}.apply(t, s)
	for _, tc := range []struct {
		addr uintptr
		want Region
		ok   bool
	}{
		{0xfff000, Region{}, false},
		{0xffffff, Region{}, false},
		{0x50000000, Region{Start: 0x50000000, End: 0x50004000, Prot: ro}, true},
		{0x50003fff, Region{Start: 0x50000000, End: 0x50004000, Prot: ro}, true},
		{0x50004000, Region{Start: 0x50004000, End: 0x50008000, Prot: rw}, true},
		{0x50007fff, Region{Start: 0x50004000, End: 0x50008000, Prot: rw}, true},
		{0x50008000, Region{}, false},
		{0x200000, Region{}, false}, // excluded
		{^uintptr(0), Region{}, false},
	} {
		if got, ok := s.Find(tc.addr); got != tc.want || ok != tc.ok {
			t.Errorf("Find(%#x) = %+v, %v; want %+v, %v", tc.addr, got, ok, tc.want, tc.ok)
		}
	}
	if got := s.At(-1); got != (Region{}) {
		t.Errorf("At(-1) = %+v", got)
	}
	if got := s.At(2); got != (Region{}) {
		t.Errorf("At(2) = %+v", got)
	}
}

func TestSpaceExclude(t *testing.T) {
	var s Space
	s.Init(tLo, tHi, tBase)
	setup{{Start: 0x50000000, End: 0x50004000, Prot: ro}}.apply(t, &s)
	if e := s.Exclude(0x2000, 0x1000); e != abi.EINVAL {
		t.Errorf("Exclude(end < start) = %d, want EINVAL", e)
	}
	if e := s.Exclude(0x50001001, 0x50001fff); e != 0 {
		t.Fatalf("Exclude inside a mapping = %d", e)
	}
	want := []Region{{Start: 0x50000000, End: 0x50001000, Prot: ro}, {Start: 0x50002000, End: 0x50004000, Prot: ro}}
	if got := regionsOf(&s); !reflect.DeepEqual(got, want) {
		t.Errorf("Exclude did not unmap: %v, want %v", got, want)
	}
	if _, e := s.Map(0x50001000, PageSize, rw, true); e != abi.ENOMEM {
		t.Errorf("Map fixed over an excluded page = %d, want ENOMEM", e)
	}
	// Ranges outside [lo, hi) cost nothing; touching ranges merge.
	if e := s.Exclude(0, 0x1000); e != 0 || s.nex != 1 {
		t.Errorf("Exclude below lo = %d with %d ranges", e, s.nex)
	}
	if e := s.Exclude(0x50002000, 0x50003000); e != 0 || s.nex != 1 || s.excluded[0] != (Region{Start: 0x50001000, End: 0x50003000}) {
		t.Errorf("touching Exclude = %d, ranges %v", e, s.excluded[:s.nex])
	}
	const exBase = 0x1000000000
	for i := 1; i < MaxExcluded; i++ {
		if e := s.Exclude(exBase+uintptr(i)*0x10000000, exBase+uintptr(i)*0x10000000+1); e != 0 {
			t.Fatalf("Exclude #%d = %d", i, e)
		}
	}
	if e := s.Exclude(0x7000000000, 0x7000001000); e != abi.ENOMEM {
		t.Errorf("Exclude beyond MaxExcluded = %d, want ENOMEM", e)
	}
	if e := s.Exclude(exBase+0x10000000, exBase+0x20000000+1); e != 0 || s.nex != MaxExcluded-1 {
		t.Errorf("merging Exclude at capacity = %d with %d ranges", e, s.nex)
	}
	checkSpace(t, &s)
}

// TestSpaceCapacity fills the real MaxRegions and checks that every call that would need one more
// region fails with ENOMEM and changes nothing, while calls that merge still work.
func TestSpaceCapacity(t *testing.T) {
	s := newTestSpace(t)
	const base = 0x10000000000
	for i := uintptr(0); i < MaxRegions; i++ {
		if _, e := s.Map(base+i*PageSize, PageSize, uint32(i%2)+1, true); e != 0 {
			t.Fatalf("Map #%d = %d", i, e)
		}
	}
	full := regionsOf(s)
	end := uintptr(base + MaxRegions*PageSize)
	for _, tc := range []struct {
		name string
		op   func() int
		want int
	}{
		{"map elsewhere", func() int { _, e := s.Map(0, PageSize, rw, false); return e }, abi.ENOMEM},
		{"map fixed elsewhere", func() int { _, e := s.Map(0xc000000000, PageSize, rw, true); return e }, abi.ENOMEM},
		{"map fixed extending the last region", func() int { _, e := s.Map(end, 2*PageSize, ProtWrite, true); return e }, 0},
		{"protect splitting", func() int { return s.Protect(end, PageSize, ProtExec) }, abi.ENOMEM},
		{"unmap splitting", func() int { return s.Unmap(end, PageSize) }, abi.ENOMEM},
		{"unmap shrinking", func() int { return s.Unmap(end+PageSize, PageSize) }, 0},
		{"protect merging", func() int { return s.Protect(base+PageSize, PageSize, ProtRead) }, 0},
	} {
		before := regionsOf(s)
		if got := tc.op(); got != tc.want {
			t.Fatalf("%s = %d, want %d", tc.name, got, tc.want)
		}
		if tc.want != 0 && !reflect.DeepEqual(regionsOf(s), before) {
			t.Fatalf("%s changed the space", tc.name)
		}
		checkSpace(t, s)
	}
	if s.Len() != MaxRegions-2 || s.At(0) != (Region{Start: base, End: base + 3*PageSize, Prot: ProtRead}) ||
		s.At(s.Len()-1) != (Region{Start: end - PageSize, End: end + PageSize, Prot: ProtWrite}) {
		t.Errorf("after the merges: %d regions, first %+v, last %+v (full had %d)", s.Len(), s.At(0), s.At(s.Len()-1), len(full))
	}
}

// TestSpaceGoRuntime replays what the Go runtime does with mmap on linux/amd64 (mem_linux.go,
// malloc.go): PROT_NONE reservations, the heap arena at hint 0xc000000000 mapped read-write in
// pieces, sysAlloc, a second reservation at an occupied hint, and frees.
func TestSpaceGoRuntime(t *testing.T) {
	s := newTestSpace(t)
	steps := []struct {
		what              string
		hint, length      uintptr
		prot              uint32
		fixed, unmap      bool
		wantAddr, wantLen uintptr
	}{
		{what: "page-allocator summary reservation", length: 512 * mib, wantAddr: tBase - 512*mib, wantLen: 1},
		{what: "scavenger index reservation", length: 2 * mib, wantAddr: tBase - 514*mib, wantLen: 1}, // merges: both PROT_NONE
		{what: "map summary piece", hint: tBase - 512*mib, length: 64 << 10, prot: rw, fixed: true, wantAddr: tBase - 512*mib, wantLen: 3},
		{what: "arena reservation at the hint", hint: 0xc000000000, length: 64 * mib, wantAddr: 0xc000000000, wantLen: 4},
		{what: "arena: first 4 MiB", hint: 0xc000000000, length: 4 * mib, prot: rw, fixed: true, wantAddr: 0xc000000000, wantLen: 5},
		{what: "arena: next 4 MiB (merges)", hint: 0xc000400000, length: 4 * mib, prot: rw, fixed: true, wantAddr: 0xc000400000, wantLen: 5},
		{what: "sysAlloc", length: 256 << 10, prot: rw, wantAddr: tBase - 514*mib - 256<<10, wantLen: 6},
		{what: "reservation at an occupied hint", hint: 0xc000000000, length: 64 * mib, wantAddr: tBase - 514*mib - 256<<10 - 64*mib, wantLen: 7},
		{what: "runtime unmaps the unwanted reservation", unmap: true, hint: tBase - 514*mib - 256<<10 - 64*mib, length: 64 * mib, wantLen: 6},
		{what: "next arena hint", hint: 0xc100000000, length: 64 * mib, wantAddr: 0xc100000000, wantLen: 7},
		{what: "free a span in the middle of the heap", unmap: true, hint: 0xc000200000, length: mib, wantLen: 8},
		{what: "free the first arena", unmap: true, hint: 0xc000000000, length: 64 * mib, wantLen: 5},
	}
	for _, st := range steps {
		if st.unmap {
			if e := s.Unmap(st.hint, st.length); e != 0 {
				t.Fatalf("%s: Unmap = %d", st.what, e)
			}
		} else {
			addr, e := s.Map(st.hint, st.length, st.prot, st.fixed)
			if e != 0 || addr != st.wantAddr {
				t.Fatalf("%s: Map = %#x, %d; want %#x", st.what, addr, e, st.wantAddr)
			}
		}
		checkSpace(t, s)
		if uintptr(s.Len()) != st.wantLen {
			t.Fatalf("%s: %d regions, want %d: %#v", st.what, s.Len(), st.wantLen, regionsOf(s))
		}
	}
	// The fault handler's view of the second arena and of the runtime's allocations.
	for _, tc := range []struct {
		addr uintptr
		prot uint32
		ok   bool
	}{
		{0xc000100000, 0, false},
		{0xc100000000, ProtNone, true},
		{tBase - 514*mib - 1, rw, true},
		{tBase - 512*mib + 100, rw, true},
		{tBase - 1, ProtNone, true},
	} {
		r, ok := s.Find(tc.addr)
		if ok != tc.ok || r.Prot != tc.prot {
			t.Errorf("Find(%#x) = %+v, %v", tc.addr, r, ok)
		}
	}
	// The heap grows in many small pieces without using up regions.
	for i := uintptr(0); i < 1000; i++ {
		if _, e := s.Map(0xc100000000+i*(64<<10), 64<<10, rw, true); e != 0 {
			t.Fatalf("heap piece %d: %d", i, e)
		}
	}
	if s.Len() != 6 {
		t.Errorf("after 1000 heap pieces: %d regions, want 6", s.Len())
	}
}

func BenchmarkSpaceMapUnmap(b *testing.B) {
	var s Space
	s.Init(tLo, tHi, tBase)
	for i := uintptr(0); i < MaxRegions/2; i++ { // a crowded map
		s.Map(0x10000000000+2*i*PageSize, PageSize, rw, true)
	}
	for i := 0; i < b.N; i++ {
		a, _ := s.Map(0, 64<<10, rw, false)
		s.Unmap(a, 64<<10)
	}
}

// TestFaultBlock: the block is aligned, holds va, and stays inside the region.
func TestFaultBlock(t *testing.T) {
	const p = PageSize
	for _, c := range []struct {
		va     uintptr
		r      Region
		lo, hi uintptr
	}{
		{0x10000 + 5*p + 12, Region{Start: 0, End: 1 << 30, Prot: 3}, 0x10000, 0x20000},
		{0x10000 + 5*p, Region{Start: 0x10000 + 3*p, End: 0x10000 + 9*p, Prot: 3}, 0x10000 + 3*p, 0x10000 + 9*p},
		{0x1f000, Region{Start: 0x1f000, End: 0x21000, Prot: 3}, 0x1f000, 0x20000},
		{^uintptr(0) &^ (p - 1), Region{Start: ^uintptr(0) &^ (16*p - 1), End: ^uintptr(0) &^ (p - 1), Prot: 3}, ^uintptr(0) &^ (16*p - 1), ^uintptr(0) &^ (p - 1)},
	} {
		lo, hi := FaultBlock(c.va, c.r, 16)
		if lo != c.lo || hi != c.hi {
			t.Errorf("FaultBlock(%#x, %+v) = %#x-%#x, want %#x-%#x", c.va, c.r, lo, hi, c.lo, c.hi)
		}
	}
}

// TestSpaceMapped: the bytes of a range that regions take, across holes and partly covered
// regions.
func TestSpaceMapped(t *testing.T) {
	var s Space
	s.Init(tLo, tHi, tHi)
	a, _ := s.Map(0x100000, 4*PageSize, rw, true)
	b, _ := s.Map(0x200000, 2*PageSize, ro, true)
	for _, c := range []struct{ start, end, want uintptr }{
		{0, ^uintptr(0), 6 * PageSize},
		{a, a + PageSize, PageSize},
		{a + PageSize, b + PageSize, 4 * PageSize},
		{a + 4*PageSize, b, 0},
		{b + PageSize, b + 8*PageSize, PageSize},
	} {
		if got := s.Mapped(c.start, c.end); got != c.want {
			t.Errorf("Mapped(%#x, %#x) = %#x, want %#x", c.start, c.end, got, c.want)
		}
	}
}
