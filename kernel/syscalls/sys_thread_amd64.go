package syscalls

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/machine"
)

// amd64's thread-pointer calls: arch_prctl, and the clone child's registers.

// cloneArgs reads clone's arguments: on amd64 (flags, stack, parent_tid, child_tid, tls).
func cloneArgs(a *machine.SyscallArgs) (flags uint64, stack, ptid, ctid, tls uintptr) {
	return a[0], uintptr(a[1]), uintptr(a[2]), uintptr(a[3]), uintptr(a[4])
}

// cloneChildContext makes f, a copy of the parent's frame, the clone child's: RAX = 0 (the
// child's result), RSP = stack if given, and FS base = tls with CLONE_SETTLS.
func cloneChildContext(f *machine.Frame, stack, tls uintptr, settls bool) {
	f.RAX = 0
	if stack != 0 {
		f.RSP = uint64(stack)
	}
	if settls {
		f.FSBase = uint64(tls)
	}
}

const (
	archSetGS = 0x1001
	archSetFS = 0x1002
	archGetFS = 0x1003
	archGetGS = 0x1004
)

func ArchPrctl(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	code := int(a[0])
	addr := uintptr(a[1])
	switch code {
	case archSetFS:
		if addr >= core.UserHi && addr < 1<<63 {
			return abi.Neg(abi.EPERM), true // non-canonical: Linux refuses it too
		}
		f.FSBase = uint64(addr)
		return 0, true
	case archGetFS:
		if !core.WriteUser64(addr, f.FSBase) {
			return abi.Neg(abi.EFAULT), true
		}
		return 0, true
	case archSetGS, archGetGS:
		return abi.Neg(abi.EPERM), true // GS belongs to the kernel (the per-CPU area)
	}
	return abi.Neg(abi.EINVAL), true
}
