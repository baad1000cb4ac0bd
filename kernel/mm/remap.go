package mm

import "github.com/unitrace/unitrace/kernel/abi"

// EFAULT is mremap's errno for an old range that is not one mapped region.
const EFAULT = 14

// mremap(2) flags (linux/mman.h).
const (
	RemapMayMove   = 1
	RemapFixed     = 2
	RemapDontUnmap = 4
)

// Remapping is what Remap decided, for the caller to apply to the page tables: the pages of
// [From, From+Keep) move to [To, To+Keep) (none when To == From), and the pages of the ranges
// Drop and Clear lose their frames ([Clear, Clear+ClearLen) being the old place of a moved
// range or the part a shrink gave up, [Drop, Drop+DropLen) what a MAP_FIXED destination
// replaced). Addr is mremap's result.
type Remapping struct {
	Addr            uintptr
	From, To, Keep  uintptr
	Drop, DropLen   uintptr
	Clear, ClearLen uintptr
}

// Remap is mremap(addr, oldLen, newLen, flags, newAddr) on private anonymous memory, with Linux's
// rules (mm/mremap.c): the flags and alignment are checked first (EINVAL), a shrink in place
// unmaps the tail, a growth needs [addr, addr+oldLen) inside one region (EFAULT) and takes the
// pages after it when they are free, else moves the whole range with MREMAP_MAYMOVE (else
// ENOMEM). MREMAP_FIXED moves to newAddr, replacing what is there; MREMAP_DONTUNMAP moves and
// leaves the old range mapped (its pages read as zero afterwards, as Linux's anonymous memory
// does). The moved range keeps its protection. Every edit is atomic as for Map. Shared memory
// (Region.Shared) only shrinks in place: growing or moving it is EINVAL.
func (s *Space) Remap(addr, oldLen, newLen uintptr, flags uint32, newAddr uintptr) (r Remapping, errno int) {
	if flags&^(RemapMayMove|RemapFixed|RemapDontUnmap) != 0 ||
		flags&RemapFixed != 0 && flags&RemapMayMove == 0 ||
		flags&RemapDontUnmap != 0 && (flags&RemapMayMove == 0 || oldLen != newLen) ||
		addr&pageMask != 0 {
		return r, abi.EINVAL
	}
	oldSize := (oldLen + pageMask) &^ pageMask
	newSize := (newLen + pageMask) &^ pageMask
	if newSize == 0 || oldSize < oldLen || newSize < newLen {
		return r, abi.EINVAL
	}
	if oldSize == 0 {
		return r, abi.EINVAL // duplicating a mapping needs a shared one
	}
	if flags&(RemapFixed|RemapDontUnmap) != 0 {
		return s.remapTo(addr, oldSize, newSize, flags, newAddr)
	}
	if newSize <= oldSize {
		if newSize < oldSize {
			if e := s.Unmap(addr+newSize, oldSize-newSize); e != 0 {
				return r, e
			}
		}
		return Remapping{Addr: addr, From: addr, To: addr, Clear: addr + newSize, ClearLen: oldSize - newSize}, 0
	}
	reg, errno := s.regionOf(addr, oldSize)
	if errno != 0 {
		return r, errno
	}
	end := addr + newSize
	if reg.Shared != 0 {
		return r, abi.EINVAL // shared memory is only shrunk in place
	}
	if addr+oldSize == reg.End && end > addr && end <= s.hi && s.isFree(addr+oldSize, end) {
		if e := s.splice(addr+oldSize, end, Region{Prot: reg.Prot}, true); e != 0 {
			return r, e
		}
		return Remapping{Addr: addr, From: addr, To: addr}, 0
	}
	if flags&RemapMayMove == 0 {
		return r, abi.ENOMEM
	}
	to, ok := s.highestFit(s.lo, s.mmapBase, newSize)
	if !ok {
		if to, ok = s.highestFit(s.lo, s.hi, newSize); !ok {
			return r, abi.ENOMEM
		}
	}
	return s.move(addr, oldSize, newSize, to, reg.Prot, false)
}

// remapTo is the MREMAP_FIXED and MREMAP_DONTUNMAP case: always a move.
func (s *Space) remapTo(addr, oldSize, newSize uintptr, flags uint32, newAddr uintptr) (r Remapping, errno int) {
	fixed := flags&RemapFixed != 0
	if fixed {
		if newAddr&pageMask != 0 || newAddr > s.hi || newSize > s.hi-newAddr {
			return r, abi.EINVAL
		}
		if addr < newAddr+newSize && newAddr < addr+oldSize {
			return r, abi.EINVAL // the ranges overlap
		}
		if newAddr < s.lo || s.overlapsExcluded(newAddr, newAddr+newSize) {
			return r, abi.ENOMEM
		}
	}
	keep := min(oldSize, newSize)
	reg, errno := s.regionOf(addr, keep)
	if errno != 0 {
		return r, errno
	}
	if reg.Shared != 0 {
		return r, abi.EINVAL // shared memory is only shrunk in place
	}
	to := newAddr
	if !fixed {
		var ok bool
		if to, ok = s.highestFit(s.lo, s.mmapBase, newSize); !ok {
			if to, ok = s.highestFit(s.lo, s.hi, newSize); !ok {
				return r, abi.ENOMEM
			}
		}
	}
	r, errno = s.move(addr, oldSize, newSize, to, reg.Prot, flags&RemapDontUnmap != 0)
	if errno == 0 && fixed {
		r.Drop, r.DropLen = to, newSize
	}
	return r, errno
}

// regionOf returns the region holding all of [addr, addr+size), or EFAULT.
func (s *Space) regionOf(addr, size uintptr) (Region, int) {
	reg, ok := s.Find(addr)
	if !ok || addr+size < addr || addr+size > reg.End {
		return Region{}, abi.EFAULT
	}
	return reg, 0
}

// move maps [to, to+newSize) with prot and unmaps [addr, addr+oldSize) unless keepOld. The old
// range lies inside one region of prot, so putting it back after a failed map needs no region
// the space did not have: the edit stays atomic.
func (s *Space) move(addr, oldSize, newSize, to uintptr, prot uint32, keepOld bool) (r Remapping, errno int) {
	if !keepOld {
		if e := s.splice(addr, addr+oldSize, Region{}, false); e != 0 {
			return r, e
		}
	}
	if e := s.splice(to, to+newSize, Region{Prot: prot}, true); e != 0 {
		if !keepOld {
			s.splice(addr, addr+oldSize, Region{Prot: prot}, true)
		}
		return r, e
	}
	return Remapping{Addr: to, From: addr, To: to, Keep: min(oldSize, newSize), Clear: addr, ClearLen: oldSize}, 0
}
