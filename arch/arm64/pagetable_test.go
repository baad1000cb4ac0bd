package arm64

import (
	"syscall"
	"testing"
	"unsafe"

	"github.com/unitrace/unitrace/arch/pagetable"
)

// TestPageTableFormat checks the descriptor bits against their positions in the Arm ARM (D8.3.1,
// D8.3.2; stage 1, 4 KiB granule, 48-bit output addresses), written out by hand, and the format
// the walker gets against its own rules.
func TestPageTableFormat(t *testing.T) {
	for _, c := range []struct {
		name string
		got  uint64
		want uint64
	}{
		{"valid", PTEValid, 1 << 0}, {"table/page", PTETable, 1 << 1}, {"AttrIndx", pteAttrIndx, 7 << 2},
		{"AP[1]", PTEUser, 1 << 6}, {"AP[2]", PTEReadOnly, 1 << 7}, {"SH inner", PTEInnerShareable, 3 << 8},
		{"AF", PTEAccessed, 1 << 10}, {"nG", PTENotGlobal, 1 << 11}, {"Contiguous", PTEContiguous, 1 << 52},
		{"PXN", PTEPXN, 1 << 53}, {"UXN", PTEUXN, 1 << 54},
		{"output address", pteAddr, 1<<48 - 1<<12},
		{"lower and upper attributes", pteLeafFlags, 1<<59 - 1<<52 | 1<<12 - 1<<2},
	} {
		if c.got != c.want {
			t.Errorf("%s = %#x, want %#x", c.name, c.got, c.want)
		}
	}
	if s := ptFormat.Check(); s != "" {
		t.Errorf("ptFormat: %s", s)
	}
	// TTBR0_EL1 translates [0, 2^(64-T0SZ)); nothing is translated above it (TTBR1 is off).
	if ptFormat.LowEnd != 1<<(64-tcrT0SZ) || ptFormat.HighStart != 0 {
		t.Errorf("translated ranges [0, %#x) and from %#x", ptFormat.LowEnd, ptFormat.HighStart)
	}
}

// TestBootMapDescriptors builds the boot identity map from the same constants boot_arm64.s
// uses, the way it uses them, and checks what it translates and how: the 64 KiB null guard,
// MMIO as never-executable Device memory, RAM as Normal memory, nothing at or above BootMapEnd.
// The tables live in an mmap'ed buffer whose addresses serve as physical ones: the walker's
// direct-map offset is 0 here, as in the kernel.
func TestBootMapDescriptors(t *testing.T) {
	mem, err := syscall.Mmap(-1, 0, bootTablePages*pagetable.Size4K, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatalf("mmap: %v", err)
	}
	defer syscall.Munmap(mem)
	base := uintptr(unsafe.Pointer(&mem[0]))
	if uint64(base)&^pteAddr != 0 {
		t.Skipf("buffer at %#x: beyond a descriptor's 48-bit output address", base)
	}
	entryAt := func(table, i uintptr) *uint64 { return (*uint64)(unsafe.Pointer(&mem[table-base+i*8])) }
	l0, l1, l2, l3 := base, base+pagetable.Size4K, base+2*pagetable.Size4K, base+3*pagetable.Size4K
	*entryAt(l0, 0) = uint64(l1) | bootTableDesc
	*entryAt(l1, 0) = uint64(l2) | bootTableDesc
	*entryAt(l2, 0) = uint64(l3) | bootTableDesc
	for i := uintptr(bootRAMStart >> 30); i < BootMapEnd>>30; i++ {
		*entryAt(l1, i) = uint64(i)<<30 | bootNormalBlock
	}
	for i := uintptr(1); i < pagetable.Entries; i++ {
		*entryAt(l2, i) = uint64(i)<<21 | bootDeviceBlock
	}
	for i := uintptr(bootNullGuard >> 12); i < pagetable.Entries; i++ {
		*entryAt(l3, i) = uint64(i)<<12 | bootDevicePage
	}
	pt := PageTable{Root: l0}
	for _, c := range []struct {
		va     uintptr
		ok     bool
		device bool
	}{
		{0, false, false}, {0xfff8, false, false},
		{0x10000, true, true}, {0x1ff000, true, true},
		{0x0800_0000, true, true}, {DefaultUARTBase, true, true}, {0x3fff_fff8, true, true},
		{DefaultDTBAddr, true, false}, {ImageStart, true, false}, {BootMapEnd - 8, true, false},
		{BootMapEnd, false, false}, {1 << 47, false, false},
	} {
		pa, flags, ok := pt.Lookup(c.va)
		if ok != c.ok || (ok && pa != c.va) {
			t.Errorf("boot map: %#x -> %#x, %v; want identity %v", c.va, pa, ok, c.ok)
			continue
		}
		if !ok {
			continue
		}
		if flags&PTEAccessed == 0 || flags&PTEReadOnly != 0 || flags&PTEUser != 0 {
			t.Errorf("boot map: %#x flags %#x: want AF, EL1 read/write only", c.va, flags)
		}
		attr := flags & pteAttrIndx
		switch {
		case c.device && (attr != PTEAttrDevice || flags&PTENoExec != PTENoExec):
			t.Errorf("boot map: %#x flags %#x: want never-executable Device memory", c.va, flags)
		case !c.device && (attr != PTEAttrNormal || flags&PTENoExec != 0 || flags&PTEInnerShareable != PTEInnerShareable):
			t.Errorf("boot map: %#x flags %#x: want executable inner-shareable Normal memory", c.va, flags)
		}
	}
	if ImageStart-DefaultDTBAddr < 2<<20 {
		t.Error("the image leaves less than 2 MiB for the DTB")
	}
}
