package syscalls

import (
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/machine"
)

// System calls served without the kernel lock. The Go runtime reads the clock through a system
// call many thousand times a second when the vDSO is off (unitrace.vdso=0), and its idle Ms call
// sched_yield and gettid in their spin loops; under one kernel lock these would serialise every
// CPU for nothing, since they only read the caller's own state, constants or the clock. Each is
// served here when its user memory is already present (a page to fault in needs the lock), else
// it falls back to the ordinary, locked path. syscall (syscall.go) serves them and fires syscall_enter for both.

// presentUserBytes returns n bytes of user memory at addr, writable, if every page of it is
// already present and writable in the page tables; it never faults a page in (that takes the
// lock).
func presentUserBytes(addr, n uintptr) ([]byte, bool) {
	end := addr + n
	if end < addr || addr < core.IdentEnd || end > core.UserHi {
		return nil, false
	}
	for p := addr &^ (core.PageSize - 1); p < end; p += core.PageSize {
		if _, flags, ok := core.ArchLookup(p); !ok || !core.ArchWritable(flags) {
			return nil, false
		}
	}
	return machine.BytesAt(addr, n), true
}
