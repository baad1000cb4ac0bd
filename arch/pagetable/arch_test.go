package pagetable_test

import (
	"testing"

	"github.com/unitrace/unitrace/arch/amd64"
	"github.com/unitrace/unitrace/arch/arm64"
	"github.com/unitrace/unitrace/arch/pagetable"
)

// table is what both arch packages' PageTable types offer: the shared suite drives the walker
// through them, so it tests each format as the kernel uses it.
type table interface {
	Map(va, pa uintptr, flags uint64, alloc func() (uintptr, bool)) bool
	MapHuge(va, pa uintptr, flags uint64, alloc func() (uintptr, bool)) bool
	Unmap(va uintptr) (pa uintptr, ok bool)
	Lookup(va uintptr) (pa uintptr, flags uint64, ok bool)
	Protect(va uintptr, flags uint64) bool
	UnmapRange(start, end uintptr, free func(pa uintptr)) int
}

// arch describes one format under test in the arch package's own terms (its exported bits),
// independently of the Format the package hands the walker.
type arch struct {
	name  string
	table func(root uintptr) table

	// tableMask and tableBits: an entry at levels 3-1 points to a table if e&tableMask ==
	// tableBits. valid is the bit every translating entry has.
	tableMask, tableBits, valid uint64
	// pageBits and blockBits are what Map and MapHuge add to the caller's flags.
	pageBits, blockBits uint64

	// Leaf attributes the tests map with: the kernel's RAM and MMIO, data that is never run,
	// and a read-only executable page (different from data in every permission).
	kernel, device, data, readOnly uint64
	// block1G is a 1 GiB block's entry without its address, as a boot map builds it.
	block1G uint64
	// modelFlags are the attributes the randomized tests choose from.
	modelFlags []uint64
	// refusedFlags are flags without address bits that Map and Protect refuse, refusedHugeFlags
	// those MapHuge refuses.
	refusedFlags, refusedHugeFlags []uint64

	// high is the lowest translated address at or above 2^47, top the end of the translated
	// addresses (0: 2^64); outside holds pages that are not translated.
	high, top uintptr
	outside   []uintptr
	// paLimit is the first physical address beyond the output-address field.
	paLimit uintptr
}

// translated reports whether va is in one of ar's translated ranges.
func (ar arch) translated(va uintptr) bool {
	return va < 1<<47 || va >= ar.high && (ar.top == 0 || va < ar.top)
}

var arches = []arch{
	{
		name:      "amd64",
		table:     func(root uintptr) table { return &amd64.PageTable{Root: root} },
		tableMask: amd64.PTEPresent | amd64.PTEHuge, tableBits: amd64.PTEPresent, valid: amd64.PTEPresent,
		pageBits: amd64.PTEPresent, blockBits: amd64.PTEPresent | amd64.PTEHuge,

		kernel:   amd64.PTEWrite | amd64.PTEGlobal,
		device:   amd64.PTEWrite | amd64.PTEGlobal | amd64.PTECacheDisable | amd64.PTEWriteThrough,
		data:     amd64.PTEWrite | amd64.PTEUser | amd64.PTENoExec,
		readOnly: amd64.PTEUser,
		block1G:  amd64.PTEPresent | amd64.PTEWrite | amd64.PTEHuge,
		modelFlags: []uint64{0, amd64.PTEWrite, amd64.PTEUser, amd64.PTEWrite | amd64.PTENoExec,
			amd64.PTEGlobal | amd64.PTEWrite, amd64.PTECacheDisable},
		refusedFlags: []uint64{amd64.PTEHuge}, // PS is the walker's: MapHuge implies it

		high: 0xffff_8000_0000_0000, top: 0,
		outside: []uintptr{1 << 47, 0xfffe_0000_0000_0000, 0xffff_7fff_ffff_f000}, // non-canonical
		paLimit: 1 << 52,
	},
	{
		name:      "arm64",
		table:     func(root uintptr) table { return &arm64.PageTable{Root: root} },
		tableMask: arm64.PTEValid | arm64.PTETable, tableBits: arm64.PTEValid | arm64.PTETable, valid: arm64.PTEValid,
		pageBits: arm64.PTEValid | arm64.PTETable | arm64.PTEAccessed, blockBits: arm64.PTEValid | arm64.PTEAccessed,

		kernel:   arm64.PTEKernel,
		device:   arm64.PTEMMIO,
		data:     arm64.PTEKernel | arm64.PTENoExec,
		readOnly: arm64.PTEKernel | arm64.PTEReadOnly,
		block1G:  arm64.PTEValid | arm64.PTEKernel,
		modelFlags: []uint64{0, arm64.PTEKernel, arm64.PTEKernel | arm64.PTEReadOnly, arm64.PTEKernel | arm64.PTENoExec,
			arm64.PTEMMIO, arm64.PTEAttrNormalNC | arm64.PTENotGlobal},
		refusedFlags:     []uint64{arm64.PTETable, 1 << 50}, // the type bit; RES0 bit 50
		refusedHugeFlags: []uint64{arm64.PTETable, 1 << 50},

		high: 1 << 47, top: 1 << 48,
		outside: []uintptr{1 << 48, 0xffff_8000_0000_0000, 0xffff_ffff_ffff_f000}, // beyond TTBR0's 48 bits
		paLimit: 1 << 48,
	},
}

// forArches runs test once per format, as a subtest named after the arch.
func forArches(t *testing.T, test func(t *testing.T, ar arch)) {
	for _, ar := range arches {
		t.Run(ar.name, func(t *testing.T) { test(t, ar) })
	}
}

const (
	size4K = pagetable.Size4K
	size2M = pagetable.Size2M
)
