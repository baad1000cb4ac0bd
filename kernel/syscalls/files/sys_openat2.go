package files

import (
	"encoding/binary"

	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/machine"

	"github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/fs/vfs"
)

// openat2: openat with a struct open_how (flags, mode, resolve) checked strictly, as Linux's
// build_open_how and build_open_flags do, and the resolve flags package vfs applies to the walk
// (vfs.Namespace.SetScope). RESOLVE_CACHED asks for an open that needs no I/O, which Linux may
// refuse with EAGAIN whenever it likes: here it always does, and the program opens without it.

const (
	openHowSize0   = 24         // OPEN_HOW_SIZE_VER0: flags, mode, resolve
	validOpenFlags = 0o37777703 // VALID_OPEN_FLAGS on both architectures
	resolveCached  = 0x20
	validResolve   = vfs.ResolveNoXdev | vfs.ResolveNoMagiclinks | vfs.ResolveNoSymlinks | vfs.ResolveBeneath | vfs.ResolveInRoot | resolveCached
)

func Openat2(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	dirfd := int32(DirFDArg(a[0]))
	pathAddr := uintptr(a[1])
	howAddr := uintptr(a[2])
	size := uintptr(a[3])
	switch {
	case size < openHowSize0:
		return abi.Neg(abi.EINVAL), true
	case size > core.PageSize:
		return abi.Neg(abi.E2BIG), true
	}
	b, ok := core.UserBytes(howAddr, size, false)
	if !ok {
		return abi.Neg(abi.EFAULT), true
	}
	for _, c := range b[openHowSize0:] {
		if c != 0 {
			return abi.Neg(abi.E2BIG), true // a newer struct's fields this kernel does not know
		}
	}
	flags, mode, resolve := binary.LittleEndian.Uint64(b[0:]), binary.LittleEndian.Uint64(b[8:]), binary.LittleEndian.Uint64(b[16:])
	switch {
	case flags&^validOpenFlags != 0, resolve&^validResolve != 0,
		resolve&vfs.ResolveBeneath != 0 && resolve&vfs.ResolveInRoot != 0,
		mode&^0o7777 != 0,
		flags&(fs.O_CREAT|fs.O_TMPFILE) == 0 && mode != 0,
		flags&fs.O_PATH != 0 && flags&^(fs.O_PATH|fs.O_DIRECTORY|fs.O_NOFOLLOW|fs.O_CLOEXEC) != 0:
		return abi.Neg(abi.EINVAL), true
	case resolve&resolveCached != 0:
		return abi.Neg(abi.EAGAIN), true
	}
	if resolve&(vfs.ResolveBeneath|vfs.ResolveInRoot) != 0 {
		// The start is the root too: find it from dirfd even for an absolute path.
		start := core.Cwd
		if dirfd != AtFDCWD {
			file, errno := fileOf(int(dirfd), abi.ENOTDIR)
			if errno != 0 {
				return abi.Neg(errno), true
			}
			start = file.Node
		}
		openStart, scoped = start, true
	}
	core.RootNS.SetScope(resolve)
	ret, fifo := openPath(dirfd, pathAddr, int(flags), uint32(mode))
	core.RootNS.SetScope(0)
	scoped = false
	if fifo == (vfs.Node{}) {
		return ret, true
	}
	return openFIFO(f, fifo, int(flags))
}

// openStart is where a scoped openat2 starts, and its root, while scoped is set (openPath).
var (
	openStart vfs.Node
	scoped    bool
)
