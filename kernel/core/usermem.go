package core

import (
	"encoding/binary"

	"github.com/unitrace/unitrace/kernel/klog"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/mm"
)

// User memory: the kernel reads and writes the program's memory through the same virtual
// addresses, after making sure each page is mapped with the needed access. The kernel never
// takes a page fault on user memory: a fault in kernel mode is always a kernel bug.

// UserPages counts the frames mapped into the program's address space (FaultIn maps them,
// ArchUnmapRange gives them back): the resident set /proc shows.
var UserPages uint64

// FaultIn makes the page holding va present, if the user map allows the access. It is the page
// fault handler's core and the kernel's own way to touch user memory.
func FaultIn(va uintptr, write, exec bool) bool {
	r, ok := Space.Find(va)
	if !ok || r.Prot == mm.ProtNone {
		return false
	}
	if write && r.Prot&mm.ProtWrite == 0 || exec && r.Prot&mm.ProtExec == 0 {
		return false
	}
	page := va &^ (PageSize - 1)
	if _, flags, present := ArchLookup(page); present {
		// Present but faulting (or checked by the kernel): allowed only if the PTE already grants
		// the access; otherwise the region's protection forbids it.
		return !write || ArchWritable(flags)
	}
	if r.Shared != 0 {
		return faultInShared(page, r)
	}
	pa, ok := Frames.Alloc()
	if !ok {
		outOfMemory(va)
		return false
	}
	if !ArchMapUser(page, pa, r.Prot) {
		Frames.Free(pa)
		outOfMemory(va)
		return false
	}
	UserPages++
	faultAround(page, r)
	return true
}

// faultInShared maps the segment's own frames at page and the absent pages of its block in
// region r, a shared one.
func faultInShared(page uintptr, r mm.Region) bool {
	lo, hi := mm.FaultBlock(page, r, faultAroundPages)
	for p := lo; p < hi; p += PageSize {
		if _, _, present := ArchLookup(p); present {
			continue
		}
		pa, ok := shmFrame(r, p)
		if !ok {
			return p != page // past the segment's end: only the faulting page matters
		}
		if !ArchMapUser(p, pa, r.Prot) {
			if p == page {
				outOfMemory(page) // no frame for a page table
				return false
			}
			return true
		}
		UserPages++
	}
	return true
}

// A fault maps the absent pages of the aligned 64 KiB block around the faulting page too, so
// memory touched in order (a growing heap, a fresh buffer) takes one trap per 16 pages instead
// of one per page. Under an emulator the trap, not the zeroing, is most of a fault's cost; the
// Linux guest gets the same from its transparent huge pages (2 MiB a fault where a mapping
// covers an aligned 2 MiB). The extra pages are only mapped while more than faultAroundReserve
// frames are free, so a program near its memory's end gets just the pages it touches.
const (
	faultAroundPages   = 16
	faultAroundReserve = 4096 // 16 MiB
)

// faultAround maps the rest of page's block in region r (FaultIn mapped page itself).
func faultAround(page uintptr, r mm.Region) {
	if Frames.Stats().Free <= faultAroundReserve {
		return
	}
	lo, hi := mm.FaultBlock(page, r, faultAroundPages)
	for p := lo; p < hi; p += PageSize {
		if p == page {
			continue
		}
		if _, _, present := ArchLookup(p); present {
			continue
		}
		pa, ok := Frames.Alloc()
		if !ok {
			return
		}
		if !ArchMapUser(p, pa, r.Prot) {
			Frames.Free(pa)
			return
		}
		UserPages++
	}
}

// UserRange checks that [addr, addr+n) is user memory with the needed access and makes every
// page of it present.
func UserRange(addr, n uintptr, write bool) bool {
	if n == 0 {
		return true
	}
	end := addr + n
	if end < addr {
		return false
	}
	if start, stop := machine.ImageRange(); addr >= start && end <= stop {
		return true // the program's own globals, in the image: always present
	}
	if addr < IdentEnd || end > UserHi {
		return false
	}
	for p := addr &^ (PageSize - 1); p < end; p += PageSize {
		if !FaultIn(p, write, false) {
			return false
		}
	}
	return true
}

// UserPrefix returns how many of the n bytes at addr, from the first on, are user memory with
// the needed access (made present): what Linux's copy to or from user memory gets done before it
// faults. A range that wraps or ends above the user half gives 0 (Linux's access_ok fails first).
func UserPrefix(addr, n uintptr, write bool) uintptr {
	end := addr + n
	if n == 0 || end < addr {
		return 0
	}
	if start, stop := machine.ImageRange(); addr >= start && end <= stop {
		return n
	}
	if addr < IdentEnd || end > UserHi {
		return 0
	}
	for p := addr &^ (PageSize - 1); p < end; p += PageSize {
		if !FaultIn(p, write, false) {
			if p < addr {
				return 0
			}
			return p - addr
		}
	}
	return n
}

// AccessOK is Linux's access_ok: [addr, addr+n) neither wraps nor reaches above the user half.
// It says nothing of what is mapped there; calls check it before they start, and a fault later
// ends them with what they got done.
func AccessOK(addr, n uintptr) bool {
	end := addr + n
	return end >= addr && end <= UserHi
}

// UserPrefixBytes is UserPrefix's bytes, as a slice that must not outlive the system call.
func UserPrefixBytes(addr, n uintptr, write bool) []byte {
	k := UserPrefix(addr, n, write)
	if k == 0 {
		return nil
	}
	return machine.BytesAt(addr, k)
}

// UserBytes returns the user memory [addr, addr+n) as a byte slice, or ok=false if it is not
// all mapped with the needed access. The slice must not outlive the system call.
func UserBytes(addr, n uintptr, write bool) ([]byte, bool) {
	if !UserRange(addr, n, write) {
		return nil, false
	}
	if n == 0 {
		return nil, true
	}
	return machine.BytesAt(addr, n), true
}

// ReadUser32 reads the 32-bit word at addr: aligned, in one load (a futex word must not tear);
// unaligned, as Linux's copy_from_user reads an int anywhere, even across two pages.
func ReadUser32(addr uintptr) (uint32, bool) {
	if addr&3 != 0 {
		b, ok := UserBytes(addr, 4, false)
		if !ok {
			return 0, false
		}
		return binary.LittleEndian.Uint32(b), true
	}
	if !UserRange(addr, 4, false) {
		return 0, false
	}
	return *(*uint32)(machine.Ptr(addr)), true
}

func ReadUser64(addr uintptr) (uint64, bool) {
	b, ok := UserBytes(addr, 8, false)
	if !ok {
		return 0, false
	}
	return binary.LittleEndian.Uint64(b), true
}

func WriteUser64(addr uintptr, v uint64) bool {
	b, ok := UserBytes(addr, 8, true)
	if !ok {
		return false
	}
	binary.LittleEndian.PutUint64(b, v)
	return true
}

func WriteUser32(addr uintptr, v uint32) bool {
	b, ok := UserBytes(addr, 4, true)
	if !ok {
		return false
	}
	binary.LittleEndian.PutUint32(b, v)
	return true
}

// outOfMemory reports that no frame is left for a page of the program.
func outOfMemory(va uintptr) {
	klog.Log().S("out of memory: no frame for the page at ").X(uint64(va)).NL()
	ExitGroup(137) // as if killed by SIGKILL (the OOM killer's signal)
}

// PutSockaddr writes a received address as Linux does: as much as the caller's length allows,
// and the whole length back.
func PutSockaddr(addr, lenp uintptr, sa []byte) bool {
	room, ok := ReadUser32(lenp)
	if !ok || int32(room) < 0 {
		return false
	}
	k := min(uintptr(room), uintptr(len(sa)))
	dst, ok := UserBytes(addr, k, true)
	if !ok {
		return false
	}
	copy(dst, sa)
	return WriteUser32(lenp, uint32(len(sa)))
}
