package syscalls

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/mm"
	"github.com/unitrace/unitrace/kernel/sysvshm"
)

// System V shared memory: package sysvshm keeps the segments and their frames; here they are
// mapped. A segment's pages are a shared region of the address space (mm.Region.Shared is its
// slot plus one), which the fault handler fills with the segment's own frames, and which
// unmapping never frees (freeUnmapped): the segment owns them until it is removed and its last
// mapping has gone. How many mappings a segment has (shm_nattch) is counted from the regions
// after every edit that can add or remove one (shmCount), as Linux counts a segment's vmas.

// shmat(2) flags (include/uapi/linux/shm.h) and shmctl(2) commands (include/uapi/linux/ipc.h,
// shm.h).
const (
	shmRdonly = 0o10000
	shmRnd    = 0o20000
	shmRemap  = 0o40000
	shmExec   = 0o100000

	ipcRmid       = 0
	ipcSet        = 1
	ipcStat       = 2
	ipcInfo       = 3
	shmLock       = 11
	shmUnlock     = 12
	shmStat       = 13
	shmInfo       = 14
	shmStatAny    = 15
	ipc64         = 0x100 // IPC_64: the 64-bit structures, which are the only ones here
	shmAccRead    = 4
	shmAccWrite   = 2
	shmAccExecute = 1
)

// shmCred is the caller: the one process, run by root.
func shmCred() sysvshm.Cred { return sysvshm.Cred{PID: int32(core.ProcessID)} }

func wallSeconds() int64 { return (core.BootWallNanos + machine.Nanotime()) / 1e9 }

// shmCount recounts every segment's mappings after an edit of the address space; a removed
// segment left with none goes, its frames freed (their pages are unmapped by then).
func shmCount() {
	if core.Shms.Live() == 0 {
		return
	}
	var n [sysvshm.MaxSegments]uint64
	for i := 0; i < core.Space.Len(); i++ {
		if r := core.Space.At(i); r.Shared != 0 && int(r.Shared) <= len(n) {
			n[r.Shared-1]++
		}
	}
	for slot := 0; slot < sysvshm.MaxSegments; slot++ {
		if core.Shms.Used(slot) {
			core.Shms.SetAttached(slot, n[slot], core.FreeFrame)
		}
	}
}

// Shmget is shmget(2); package sysvshm has its rules.
func Shmget(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	key := int32(a[0])
	size := uintptr(a[1])
	flags := int32(a[2])
	id, errno := core.Shms.Get(key, size, int(flags), shmCred(), wallSeconds(), core.AllocFrame, core.FreeFrame)
	if errno != 0 {
		return abi.Neg(errno), true
	}
	return uint64(id), true
}

// Shmat is shmat(2), with Linux's checks in its order (ipc/shm.c do_shmat): the
// address's alignment (SHM_RND rounds it down; SHM_REMAP needs an address), the identifier
// (EINVAL), the permission the access asks (EACCES), then without SHM_REMAP a range that must be
// free (EINVAL). The segment maps whole pages.
func Shmat(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	id := int32(a[0])
	addr := uintptr(a[1])
	flags := int32(a[2])
	if id < 0 {
		return abi.Neg(abi.EINVAL), true
	}
	fixed := addr != 0
	if addr&(core.PageSize-1) != 0 {
		if flags&shmRnd == 0 {
			return abi.Neg(abi.EINVAL), true
		}
		addr &^= core.PageSize - 1
		if addr == 0 && flags&shmRemap != 0 {
			return abi.Neg(abi.EINVAL), true
		}
	} else if addr == 0 && flags&shmRemap != 0 {
		return abi.Neg(abi.EINVAL), true
	}
	prot, acc := uint32(mm.ProtRead), uint32(shmAccRead)
	if flags&shmRdonly == 0 {
		prot, acc = prot|mm.ProtWrite, acc|shmAccWrite
	}
	if flags&shmExec != 0 {
		prot, acc = prot|mm.ProtExec, acc|shmAccExecute
	}
	slot, errno := core.Shms.Lookup(id)
	if errno != 0 {
		return abi.Neg(errno), true
	}
	if !core.Shms.Access(slot, shmCred(), acc) {
		return abi.Neg(abi.EACCES), true
	}
	size := core.PageUp(core.Shms.Stat(slot).Size)
	replaced := uintptr(0)
	if fixed {
		if addr+size < addr {
			return abi.Neg(abi.EINVAL), true
		}
		if flags&shmRemap == 0 && !rangeFree(addr, size) {
			return abi.Neg(abi.EINVAL), true
		}
		replaced = core.Space.Mapped(addr, addr+size)
	}
	if !withinAddressSpaceLimit(size - replaced) {
		return abi.Neg(abi.ENOMEM), true
	}
	got, errno := core.Space.MapShared(addr, size, prot, fixed, uint32(slot+1))
	if errno != 0 {
		return abi.Neg(errno), true
	}
	if fixed {
		core.ArchUnmapRange(got, got+size) // what SHM_REMAP replaced
	}
	core.Shms.Attach(slot, shmCred(), wallSeconds())
	shmCount()
	return uint64(got), true
}

// Shmdt is shmdt(2): addr must be where a segment's offset 0 is mapped (or would be, for
// a mapping whose first pages were unmapped since: Linux looks for the first region at or
// above addr that maps its own distance from addr), else EINVAL; every piece of that segment
// mapped in place in the segment's size from addr goes.
func Shmdt(_ *machine.Frame, sa machine.SyscallArgs) (uint64, bool) {
	addr := uintptr(sa[0])
	if addr&(core.PageSize-1) != 0 {
		return abi.Neg(abi.EINVAL), true
	}
	obj := uint32(0)
	for i := 0; i < core.Space.Len(); i++ {
		if r := core.Space.At(i); r.Start >= addr && r.Shared != 0 && r.Off == r.Start-addr {
			obj = r.Shared
			break
		}
	}
	if obj == 0 {
		return abi.Neg(abi.EINVAL), true
	}
	slot := int(obj - 1)
	end := addr + core.PageUp(core.Shms.Stat(slot).Size)
	if end < addr {
		end = ^uintptr(0) &^ (core.PageSize - 1)
	}
	for a := addr; a < end; {
		i, found := 0, false
		for ; i < core.Space.Len(); i++ {
			if r := core.Space.At(i); r.Start >= a && r.Start < end && r.Shared == obj && r.Off == r.Start-addr && r.End <= end {
				found = true
				break
			}
		}
		if !found {
			break
		}
		r := core.Space.At(i)
		if core.Space.Unmap(r.Start, r.End-r.Start) == 0 { // a whole region: never needs a new one
			core.ArchUnmapRange(r.Start, r.End)
		}
		a = r.End
	}
	core.Shms.Detach(slot, shmCred(), wallSeconds())
	shmCount()
	return 0, true
}

// Shmctl is shmctl(2) (ipc/shm.c ksys_shmctl): IPC_64 is implied and ignored; a negative
// command or identifier EINVAL, unknown commands EINVAL.
func Shmctl(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	id := int32(a[0])
	cmd := int32(a[1])
	buf := uintptr(a[2])
	cmd &^= ipc64
	if cmd < 0 || id < 0 {
		return abi.Neg(abi.EINVAL), true
	}
	switch cmd {
	case ipcInfo, shmInfo:
		size := uintptr(sysvshm.InfoSize)
		if cmd == shmInfo {
			size = sysvshm.UsageSize
		}
		b, ok := core.UserBytes(buf, size, true)
		if !ok {
			return abi.Neg(abi.EFAULT), true
		}
		if cmd == ipcInfo {
			sysvshm.PutInfo(b)
		} else {
			core.Shms.PutUsage(b)
		}
		_, _, maxSlot := core.Shms.Usage()
		return uint64(max(maxSlot, 0)), true
	case shmStat, shmStatAny, ipcStat:
		slot := int(id)
		if cmd == ipcStat {
			var errno int
			if slot, errno = core.Shms.Lookup(id); errno != 0 {
				return abi.Neg(errno), true
			}
		} else if !core.Shms.Used(slot) {
			return abi.Neg(abi.EINVAL), true
		}
		if cmd != shmStatAny && !core.Shms.Access(slot, shmCred(), shmAccRead) {
			return abi.Neg(abi.EACCES), true
		}
		b, ok := core.UserBytes(buf, sysvshm.DescSize, true)
		if !ok {
			return abi.Neg(abi.EFAULT), true
		}
		shmCount()
		seg := core.Shms.Stat(slot)
		seg.PutDesc(b)
		if cmd == ipcStat {
			return 0, true
		}
		return uint64(core.Shms.ID(slot)), true
	case ipcSet:
		b, ok := core.UserBytes(buf, sysvshm.DescSize, false)
		if !ok {
			return abi.Neg(abi.EFAULT), true
		}
		uid, gid, mode := sysvshm.DescPerm(b)
		slot, errno := core.Shms.Lookup(id)
		if errno != 0 {
			return abi.Neg(errno), true
		}
		return abi.Neg(core.Shms.Set(slot, shmCred(), uid, gid, mode, wallSeconds())), true
	case ipcRmid, shmLock, shmUnlock:
		slot, errno := core.Shms.Lookup(id)
		if errno != 0 {
			return abi.Neg(errno), true
		}
		if cmd != ipcRmid {
			return abi.Neg(core.Shms.Lock(slot, shmCred(), cmd == shmLock)), true
		}
		shmCount() // the count Remove goes by is this moment's
		return abi.Neg(core.Shms.Remove(slot, shmCred(), core.FreeFrame)), true
	}
	return abi.Neg(abi.EINVAL), true
}
