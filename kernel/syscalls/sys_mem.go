package syscalls

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/mm"
	"github.com/unitrace/unitrace/kernel/rlimit"
)

// mmap flags (asm-generic/mman-common.h, x86 mman.h).
const (
	mapShared         = 0x01
	MapPrivate        = 0x02
	mapFixed          = 0x10
	MapAnonymous      = 0x20
	MapPopulate       = 0x8000
	MapFixedNoreplace = 0x100000

	madvNormal     = 0
	madvDontneed   = 4
	madvFree       = 8
	madvHugepage   = 14
	madvNohugepage = 15
	madvCollapse   = 25
)

func errnoIf(c bool, a, b int) int {
	if c {
		return a
	}
	return b
}

// DoMmap serves anonymous mappings with Linux semantics: hints honoured when free,
// MAP_FIXED exact (replacing what was there with fresh zero pages), PROT_NONE reservations that
// cost no frames; pages are populated on first touch.
func DoMmap(addr, length uintptr, prot, flags uint32, fd int32, off uint64) uint64 {
	if off&(core.PageSize-1) != 0 {
		return abi.Neg(abi.EINVAL)
	}
	if flags&MapAnonymous == 0 && core.FDs.Kind(int(fd)) == 0 {
		return abi.Neg(abi.EBADF)
	}
	// Linux's order (mm/mmap.c): the length, then the address, then the mapping's type; the
	// protection's unknown bits are ignored.
	prot &= mm.ProtRead | mm.ProtWrite | mm.ProtExec
	if length == 0 {
		return abi.Neg(abi.EINVAL)
	}
	if core.PageUp(length) < length {
		return abi.Neg(abi.ENOMEM)
	}
	length = core.PageUp(length)
	fixed := flags&(mapFixed|MapFixedNoreplace) != 0
	if length > core.UserHi || fixed && addr&(core.PageSize-1) != 0 {
		return abi.Neg(errnoIf(length > core.UserHi, abi.ENOMEM, abi.EINVAL))
	}
	if flags&MapAnonymous == 0 {
		return abi.Neg(abi.ENODEV) // no file system: nothing else can be mapped
	}
	// An anonymous mapping is MAP_SHARED or MAP_PRIVATE; MAP_SHARED_VALIDATE (both bits) is
	// only for files.
	if t := flags & (mapShared | MapPrivate); t == 0 || t == mapShared|MapPrivate {
		return abi.Neg(abi.EINVAL)
	}
	if fixed {
		if flags&MapFixedNoreplace != 0 && !rangeFree(addr, length) {
			return abi.Neg(abi.EEXIST)
		}
	}
	replaced := uintptr(0)
	if fixed {
		replaced = core.Space.Mapped(addr, addr+length)
	}
	if !withinAddressSpaceLimit(length - replaced) {
		return abi.Neg(abi.ENOMEM)
	}
	got, errno := core.Space.Map(addr, length, prot, fixed)
	if errno != 0 {
		return abi.Neg(errno)
	}
	if fixed {
		core.ArchUnmapRange(got, got+length) // replaced pages come back as fresh zero pages
	}
	if flags&MapPopulate != 0 && prot != mm.ProtNone {
		core.UserRange(got, length, prot&mm.ProtWrite != 0)
	}
	return uint64(got)
}

// withinAddressSpaceLimit reports whether the program may map grow more bytes of address space
// under RLIMIT_AS's soft limit, as Linux's may_expand_vm: everything it has mapped, and the
// image, counts; ENOMEM otherwise.
func withinAddressSpaceLimit(grow uintptr) bool {
	lim, _ := limits().Get(rlimit.AS)
	if lim.Cur == rlimit.Infinity || grow == 0 {
		return true
	}
	start, end := machine.ImageRange()
	return uint64(core.Space.Mapped(0, ^uintptr(0)))+uint64(end-start)+uint64(grow) <= lim.Cur
}

// rangeFree reports whether no page of [addr, addr+length) is mapped.
func rangeFree(addr, length uintptr) bool {
	for i := 0; i < core.Space.Len(); i++ {
		r := core.Space.At(i)
		if r.Start < addr+length && addr < r.End {
			return false
		}
	}
	return true
}

func Munmap(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	addr := uintptr(a[0])
	length := uintptr(a[1])
	if errno := core.Space.Unmap(addr, length); errno != 0 {
		return abi.Neg(errno), true
	}
	core.ArchUnmapRange(addr, addr+core.PageUp(length))
	return 0, true
}

func DoMprotect(addr, length uintptr, prot uint32) uint64 {
	// Linux's order (do_mprotect_pkey): both grows bits or an unaligned address EINVAL, no
	// length 0, a length that wraps ENOMEM, then unknown bits (PROT_SEM is known) EINVAL. A
	// grows bit asks for a stack-like region, which no mapping here is: EINVAL once mapped.
	const growsDown, growsUp, protSem = 0x01000000, 0x02000000, 0x8
	grows := prot & (growsDown | growsUp)
	prot &^= growsDown | growsUp
	if grows == growsDown|growsUp || addr&(core.PageSize-1) != 0 {
		return abi.Neg(abi.EINVAL)
	}
	if length == 0 {
		return 0
	}
	if end := addr + core.PageUp(length); core.PageUp(length) < length || end <= addr {
		return abi.Neg(abi.ENOMEM)
	}
	if prot&^(mm.ProtRead|mm.ProtWrite|mm.ProtExec|protSem) != 0 {
		return abi.Neg(abi.EINVAL)
	}
	prot &^= protSem
	if grows != 0 {
		if !rangeMapped(addr, addr+core.PageUp(length)) {
			return abi.Neg(abi.ENOMEM)
		}
		return abi.Neg(abi.EINVAL)
	}
	if errno := core.Space.Protect(addr, length, prot); errno != 0 {
		return abi.Neg(errno)
	}
	if prot == mm.ProtNone {
		core.ArchUnmapRange(addr, addr+core.PageUp(length)) // contents are lost, as the runtime allows
		return 0
	}
	core.ArchProtectRange(addr, addr+core.PageUp(length), prot)
	return 0
}

// Madvise: DONTNEED and FREE give the frames back (the next touch sees zeros, which is
// what Linux guarantees for DONTNEED on private anonymous memory and permits for FREE); the
// huge-page hints have nothing to act on and succeed.
func Madvise(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	addr := uintptr(a[0])
	length := uintptr(a[1])
	advice := int(a[2])
	switch advice {
	case madvDontneed, madvFree, madvNormal, 1, 2, 3, 9, 10, 11, 12, 13, madvHugepage, madvNohugepage,
		16, 17, 18, 19, 20, 21, 22, 23, 24, madvCollapse:
		// Linux's advice values, up to COLLAPSE (REMOVE, the fork ones, COLD, PAGEOUT,
		// POPULATE_READ and _WRITE, DONTNEED_LOCKED included).
	default:
		return abi.Neg(abi.EINVAL), true
	}
	if addr&(core.PageSize-1) != 0 || core.PageUp(length) < length || addr+core.PageUp(length) < addr {
		return abi.Neg(abi.EINVAL), true
	}
	end := addr + core.PageUp(length)
	if end == addr {
		return 0, true
	}
	// Linux acts on the mapped parts and then says ENOMEM if any of the range was not mapped
	// (the kernel half included).
	if advice == madvDontneed || advice == madvFree || advice == 24 {
		for i := 0; i < core.Space.Len(); i++ {
			if r := core.Space.At(i); r.Start < end && addr < r.End {
				core.ArchUnmapRange(max(addr, r.Start), min(end, r.End))
			}
		}
	}
	if !rangeMapped(addr, end) {
		return abi.Neg(abi.ENOMEM), true
	}
	if advice == 9 {
		return abi.Neg(abi.EINVAL), true // MADV_REMOVE needs shared file memory: no mapping here is
	}
	if advice == 22 || advice == 23 { // POPULATE_READ, POPULATE_WRITE
		if !core.UserRange(addr, end-addr, advice == 23) {
			return abi.Neg(abi.EFAULT), true
		}
	}
	return 0, true // RANDOM, SEQUENTIAL, WILLNEED, MERGEABLE, UNMERGEABLE, DONTDUMP, DODUMP, huge pages
}

// rangeMapped reports whether every page of [addr, end) is mapped (PROT_NONE included).
func rangeMapped(addr, end uintptr) bool {
	for va := addr; va < end; {
		r, ok := core.Space.Find(va)
		if !ok {
			return false
		}
		va = r.End
	}
	return true
}

// msync flags (asm-generic/mman-common.h).
const (
	msAsync      = 1
	msInvalidate = 2
	msSync       = 4
)

// Msync checks msync's arguments as Linux does (mm/msync.c) and has nothing to write
// back: every mapping is anonymous memory.
func Msync(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	addr := uintptr(a[0])
	length := uintptr(a[1])
	flags := int(int32(a[2]))
	if flags&^(msAsync|msInvalidate|msSync) != 0 || addr&(core.PageSize-1) != 0 ||
		flags&msAsync != 0 && flags&msSync != 0 {
		return abi.Neg(abi.EINVAL), true
	}
	end := addr + core.PageUp(length)
	if end < addr || core.PageUp(length) < length {
		return abi.Neg(abi.ENOMEM), true
	}
	for va := addr; va < end; {
		r, ok := core.Space.Find(va)
		if !ok {
			return abi.Neg(abi.ENOMEM), true
		}
		va = r.End
	}
	return 0, true
}

// Mremap: mm.Space.Remap decides; the frames of a moved range move with it (their
// contents kept), those of the ranges it gave up are freed.
func Mremap(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	addr := uintptr(a[0])
	oldLen := uintptr(a[1])
	newLen := uintptr(a[2])
	flags := uint32(a[3])
	newAddr := uintptr(a[4])
	grow := core.PageUp(newLen) - min(core.PageUp(oldLen), core.PageUp(newLen))
	if flags&mm.RemapDontUnmap != 0 {
		grow = core.PageUp(newLen) // the old range stays mapped beside the new one
	}
	if !withinAddressSpaceLimit(grow) {
		return abi.Neg(abi.ENOMEM), true
	}
	r, errno := core.Space.Remap(addr, oldLen, newLen, flags, newAddr)
	if errno != 0 {
		return abi.Neg(errno), true
	}
	if r.DropLen != 0 {
		core.ArchUnmapRange(r.Drop, r.Drop+r.DropLen)
	}
	if r.Keep != 0 && r.To != r.From {
		reg, _ := core.Space.Find(r.To)
		moved := false
		for off := uintptr(0); off < r.Keep; off += core.PageSize {
			if movePage(r.From+off, r.To+off, reg.Prot) {
				moved = true
			}
		}
		if moved {
			core.FlushTLB()
		}
	}
	if r.ClearLen != 0 {
		core.ArchUnmapRange(r.Clear, r.Clear+r.ClearLen)
	}
	return uint64(r.Addr), true
}

// movePage moves the frame mapped at from (if any) to to with prot, reporting whether there
// was one. A frame that cannot be mapped again (no frame for a page table) is freed: the page
// reads as zero, the least harm when memory has run out.
func movePage(from, to uintptr, prot uint32) bool {
	pa, ok := core.PtUnmap(from)
	if !ok {
		return false
	}
	if prot == mm.ProtNone || !core.ArchMapUser(to, pa, prot) {
		core.FreeFrame(pa)
		core.UserPages -= min(1, core.UserPages)
	}
	return true
}

// Mincore is mincore(2): a byte per page of [addr, addr+length) in vec, 1 for a page
// that has a frame (touched, or the program's image), 0 for one that has none yet. addr must be
// page-aligned (EINVAL); every page of the range must be mapped, PROT_NONE included (ENOMEM, as
// for an address beyond user space); vec must be writable (EFAULT).
func Mincore(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	addr := uintptr(a[0])
	length := uintptr(a[1])
	vec := uintptr(a[2])
	if addr&(core.PageSize-1) != 0 {
		return abi.Neg(abi.EINVAL), true
	}
	end := addr + length
	if end < addr || end > core.UserHi {
		return abi.Neg(abi.ENOMEM), true
	}
	pages := core.PageUp(length) / core.PageSize
	if length > 0 && pages == 0 { // length rounds past the top
		return abi.Neg(abi.ENOMEM), true
	}
	imgStart, imgEnd := machine.ImageRange()
	imgStart &^= core.PageSize - 1
	for p := addr; p < addr+pages*core.PageSize; p += core.PageSize {
		if p >= imgStart && p < imgEnd {
			continue
		}
		if _, ok := core.Space.Find(p); !ok {
			return abi.Neg(abi.ENOMEM), true
		}
	}
	out, ok := core.UserBytes(vec, pages, true)
	if !ok {
		return abi.Neg(abi.EFAULT), true
	}
	for i := range out {
		p := addr + uintptr(i)*core.PageSize
		out[i] = 0
		if p >= imgStart && p < imgEnd {
			out[i] = 1
		} else if _, _, present := core.ArchLookup(p); present {
			out[i] = 1
		}
	}
	return 0, true
}
