package syscalls

import "github.com/unitrace/unitrace/kernel/machine"

// arm64's thread-pointer calls: the clone child's registers. Go on linux/arm64 keeps g in R28
// and uses TPIDR_EL0 only with cgo, so CLONE_SETTLS has nothing to set.

// cloneArgs reads clone's arguments: on arm64 (flags, stack, parent_tid, tls, child_tid), the
// order Linux calls CLONE_BACKWARDS.
func cloneArgs(a *machine.SyscallArgs) (flags uint64, stack, ptid, ctid, tls uintptr) {
	return a[0], uintptr(a[1]), uintptr(a[2]), uintptr(a[4]), uintptr(a[3])
}

// cloneChildContext makes f, a copy of the parent's frame, the clone child's: x0 = 0 (the
// child's result) and sp = stack if given.
func cloneChildContext(f *machine.Frame, stack, tls uintptr, settls bool) {
	f.X[0] = 0
	if stack != 0 {
		f.SavedSP = uint64(stack)
	}
}
