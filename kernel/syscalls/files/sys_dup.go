package files

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/machine"
)

// dup, dup2, dup3 and fcntl: more descriptors of one open file (package fd's File), and the
// descriptor and status flags.

// fcntl's duplicating commands (asm-generic/fcntl.h, linux/fcntl.h).
const (
	fDupfd        = 0
	fDupfdCloexec = 1030
)

func Dup(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	old := int(a[0])
	r, errno := core.FDs.Dup(old, 0, false)
	return abi.ErrnoOr(errno, uint64(r)), true
}

// DoDup3 replaces new with a descriptor of old's file, releasing the file new was the last
// descriptor of.
func DoDup3(old, new, flags int) uint64 {
	rp, readsPipe := core.FDs.PipeFor(new, false)
	wp, writesPipe := core.FDs.PipeFor(new, true)
	sock, _, isSocket := core.FDs.Socket(new)
	key, d, isFile := locksBeforeClose(new)
	r, last, errno := core.FDs.Dup3(old, new, flags)
	if isFile && errno == 0 {
		locksAfterClose(key, d, last != (fs.Node{}))
	}
	core.ReleaseNode(last)
	if readsPipe && errno == 0 {
		afterPipeClose(new, rp)
	}
	if writesPipe && errno == 0 {
		afterPipeClose(new, wp)
	}
	if isSocket && errno == 0 {
		afterSocketClose(new, sock)
	}
	closeOrphans()
	return abi.ErrnoOr(errno, uint64(r))
}

// Dup2 is dup3 but for old == new, which dup2 allows: it returns new if old is open.
func Dup2(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	old := int(a[0])
	new := int(a[1])
	if old == new {
		if core.FDs.Kind(old) == 0 {
			return abi.Neg(abi.EBADF), true
		}
		return uint64(new), true
	}
	return DoDup3(old, new, 0), true
}

func Fcntl(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	n := int(a[0])
	cmd := int(int32(a[1]))
	arg := uintptr(a[2])
	switch cmd {
	case fGetlk, fSetlk, fSetlkw, fOFDGetlk, fOFDSetlk, fOFDSetlkw:
		return doFcntlLock(f, n, cmd, arg)
	case fDupfd, fDupfdCloexec:
		r, errno := core.FDs.Dup(n, int(int32(arg)), cmd == fDupfdCloexec)
		return abi.ErrnoOr(errno, uint64(r)), true
	}
	r, errno := core.FDs.Fcntl(n, cmd, arg)
	return abi.ErrnoOr(errno, uint64(r)), true
}
