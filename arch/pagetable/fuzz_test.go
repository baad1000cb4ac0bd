package pagetable_test

import (
	"encoding/binary"
	"testing"

	"github.com/unitrace/unitrace/arch/pagetable"
)

// FuzzLookup walks tables whose entries are arbitrary (as a corrupted or foreign table would
// be), in both formats: Lookup must never panic or leave the arena, and whatever it reports must
// be a translation its entries allow.
func FuzzLookup(f *testing.F) {
	f.Add(uint64(0x101003), uint64(0x102003), uint64(0x4000_0705), uint64(0x1234))
	f.Add(uint64(0x101003), uint64(0x4000_0001), uint64(0), uint64(0x7fff_ffff_f000))
	f.Add(uint64(1), uint64(3), uint64(0xffff_ffff_ffff_ffff), uint64(0xffff_ffff_ffff))
	f.Add(uint64(0x101081), uint64(0x102001), uint64(0x4000_0083), uint64(0xffff_8000_0000_1234))
	a := newArena(f, 3)
	f.Fuzz(func(t *testing.T, e0, e1, e2 uint64, va uint64) {
		for _, ar := range arches {
			// Three tables at arenaBase and the two frames after it; every entry of each holds
			// the fuzzed value, but table pointers are confined to the arena (a walk outside it
			// would read host memory; the kernel's tables are always in RAM it mapped).
			confine := func(e uint64) uint64 {
				if e&ar.tableMask == ar.tableBits {
					return e&^0x000f_ffff_ffff_f000 | uint64(arenaBase+uintptr(e>>12)%3*size4K)
				}
				return e
			}
			for i := uintptr(0); i < pagetable.Entries; i++ {
				a.set(arenaBase+i*8, confine(e0))
				a.set(arenaBase+size4K+i*8, confine(e1))
				a.set(arenaBase+2*size4K+i*8, confine(e2))
			}
			pt := ar.table(arenaBase)
			pa, flags, ok := pt.Lookup(uintptr(va))
			if !ok {
				if pa != 0 || flags != 0 {
					t.Fatalf("%s: failed Lookup returned %#x, %#x", ar.name, pa, flags)
				}
				continue
			}
			if flags&ar.valid == 0 || !ar.translated(uintptr(va)) || uint64(pa)&0xfff != va&0xfff {
				t.Fatalf("%s: Lookup(%#x) = %#x, %#x", ar.name, va, pa, flags)
			}
			pt.UnmapRange(uintptr(va)&^0xfff, uintptr(va)&^0xfff+size4K, nil)
		}
	})
}

// maxFuzzOps bounds a FuzzOps input: each operation creates at most three tables.
const maxFuzzOps = 64

// FuzzOps runs a sequence of operations decoded from the input against both formats and the
// reference model. Addresses, ranges and frames come from the input as they come from system
// calls (mmap, munmap, mprotect, madvise and every user pointer reach the walker), flags from
// the formats' valid and refused sets.
func FuzzOps(f *testing.F) {
	f.Add([]byte("\x00\x01\x00\x00\x00\x00\x00\x00\x00\x10\x00\x00\x00\x00\x00\x00\x00\x20\x00\x00\x00\x00\x00\x00\x05"))
	f.Add([]byte("\x09\x02\x00\x00\x00\x00\x00\x7f\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x20\x00\x00\x00\x00\x00\x0c\x00\x00\x00\x00\x00\x00\x7f\x00"))
	f.Add([]byte("\x11\x00\x00\xf0\xff\xff\xff\xff\xff\xff\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x34"))
	a := newArena(f, 1+3*maxFuzzOps)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, ar := range arches {
			a.reset()
			pt := a.newTable(t, ar)
			m := newModel(ar)
			in := fuzzInput{data: data}
			var touched []uintptr
			for i := 0; i < maxFuzzOps && in.more(); i++ {
				op := in.operation(ar)
				if err := m.apply(pt, a, op); err != nil {
					t.Fatalf("%s: op %d: %v", ar.name, i, err)
				}
				touched = append(touched, op.va, op.end)
			}
			for _, va := range touched {
				for _, off := range []uintptr{0, 0x10, size2M - 8} {
					if err := m.check(pt, va+off); err != nil {
						t.Fatalf("%s: %v", ar.name, err)
					}
				}
			}
		}
	})
}

// fuzzInput decodes operations: a byte that says which operation and where its arguments come
// from, then the arguments. Missing bytes read as zero.
type fuzzInput struct{ data []byte }

func (in *fuzzInput) more() bool { return len(in.data) > 0 }

func (in *fuzzInput) byte() byte {
	if len(in.data) == 0 {
		return 0
	}
	b := in.data[0]
	in.data = in.data[1:]
	return b
}

func (in *fuzzInput) word() uint64 {
	var b [8]byte
	n := copy(b[:], in.data)
	in.data = in.data[n:]
	return binary.LittleEndian.Uint64(b[:])
}

// operation decodes one operation. Its first byte: bits 2:0 the kind, bit 3 a raw address
// (else one near the edges of tables and ranges, which a small page number picks), bits 5:4 the
// flags (a valid choice, a refused one, or address bits), bit 6 a raw frame (else a small aligned
// one).
func (in *fuzzInput) operation(ar arch) operation {
	c := in.byte()
	op := operation{kind: opKind(c&7) % opKinds}
	op.va = in.address(ar, c&8 != 0)
	switch op.kind {
	case opMap, opMapHuge:
		size := uintptr(size4K)
		if op.kind == opMapHuge {
			size = size2M
		}
		if c&0x40 != 0 {
			op.pa = uintptr(in.word())
		} else {
			op.pa = uintptr(in.byte()) * size
		}
	case opUnmapRange:
		op.end = in.address(ar, c&8 != 0)
	}
	switch sel := in.byte(); c >> 4 & 3 {
	case 0, 1:
		op.flags = ar.modelFlags[int(sel)%len(ar.modelFlags)]
	case 2:
		op.flags = ar.refusedFlags[int(sel)%len(ar.refusedFlags)]
	case 3:
		op.flags = uint64(sel) << 12
	}
	return op
}

// address returns a raw 64-bit address, or one of a few hundred near the edges of tables and
// of the translated ranges.
func (in *fuzzInput) address(ar arch, raw bool) uintptr {
	if raw {
		return uintptr(in.word())
	}
	bases := []uintptr{0, 0x1ff000, 0x3fe00000, 0x7fc0000000, 0x7fffffe00000, ar.high, ar.top - size2M}
	b := in.byte()
	return bases[int(b>>5)%len(bases)] + uintptr(b&31)*size4K
}
