package files

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/signal"
)

// SetWaitMask puts the signal mask at addr (size bytes: a sigset_t, else EINVAL) in place of the
// thread's for the call; the thread's own comes back at the call's return (restoreWaitMask). A
// NULL mask changes nothing.
func SetWaitMask(addr, size uintptr) int {
	m, set, errno := ReadWaitMask(addr, size)
	if set {
		ApplyWaitMask(m)
	}
	return errno
}

// ReadWaitMask reads the mask setWaitMask puts in place (set false: a NULL mask).
func ReadWaitMask(addr, size uintptr) (m uint64, set bool, errno int) {
	if addr == 0 {
		return 0, false, 0
	}
	if size != 8 {
		return 0, false, abi.EINVAL
	}
	m, ok := core.ReadUser64(addr)
	if !ok {
		return 0, false, abi.EFAULT
	}
	return m, true, 0
}

// ApplyWaitMask makes m the thread's mask until the call returns.
func ApplyWaitMask(m uint64) {
	t := core.Cur()
	t.SavedMask, t.RestoreMask = t.Sig.Mask, true
	t.Sig.SetMask(signal.Set(m))
}
