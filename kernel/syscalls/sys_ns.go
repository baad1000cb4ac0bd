package syscalls

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/fd"
	"github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/fs/procfs"
	"github.com/unitrace/unitrace/kernel/machine"
)

// Namespaces. The process lives in Linux's initial namespaces and can make no other (clone's
// and unshare's CLONE_NEW* flags are refused where those calls are served). What it can do with
// the ones it is in is what a program does to find out where it runs: read /proc/<pid>/ns, open
// a namespace there (package procfs), ask it its kind, and setns into it, which changes nothing.

// nsIoctl answers ioctl request req on a namespace's file of kind clone (a CLONE_NEW* flag), as
// Linux's ns_ioctl does for initial namespaces: NS_GET_NSTYPE is the kind; NS_GET_USERNS opens
// the owning user namespace, which for the user namespace itself, having no owner, is EPERM;
// NS_GET_PARENT is EPERM for the hierarchical kinds (pid, user), the initial ones having no
// parent, and EINVAL for the rest; NS_GET_OWNER_UID writes the owner of a user namespace (root)
// and is EINVAL for other kinds; anything else ENOTTY.
func nsIoctl(file *fd.File, clone uint32, req uint32, arg uintptr) uint64 {
	const cloneNewUser, cloneNewPID = 0x10000000, 0x20000000
	switch req {
	case procfs.NS_GET_NSTYPE:
		return uint64(clone)
	case procfs.NS_GET_USERNS:
		if clone == cloneNewUser {
			return abi.Neg(abi.EPERM)
		}
		return openUserNamespace(file.Node.FS)
	case procfs.NS_GET_PARENT:
		if clone == cloneNewUser || clone == cloneNewPID {
			return abi.Neg(abi.EPERM)
		}
		return abi.Neg(abi.EINVAL)
	case procfs.NS_GET_OWNER_UID:
		if clone != cloneNewUser {
			return abi.Neg(abi.EINVAL)
		}
		if !core.WriteUser32(arg, 0) {
			return abi.Neg(abi.EFAULT)
		}
		return 0
	}
	return abi.Neg(abi.ENOTTY)
}

// openUserNamespace opens the user namespace's file of the /proc mounted as file system procFS
// on a new descriptor, close-on-exec, as Linux's open_related_ns does.
func openUserNamespace(procFS uint16) uint64 {
	n := fs.Node{FS: procFS, Ino: procfs.UserNamespaceIno()}
	if errno := core.RootNS.Acquire(n); errno != 0 {
		return abi.Neg(errno)
	}
	r, errno := core.FDs.OpenFile(n, fs.O_RDONLY|fs.O_CLOEXEC)
	if errno != 0 {
		core.ReleaseNode(n)
		return abi.Neg(errno)
	}
	return uint64(r)
}

// Setns is setns(n, nstype): n must be a namespace's file (EINVAL for any other open
// descriptor; Linux also takes a pidfd, which there is none of here), of kind nstype unless that
// is 0. Every namespace there is, is the process's own already; joining it changes nothing, as
// on Linux, but where Linux refuses: the user namespace one is in, and a mount namespace from a
// thread that shares its file-system information with others (Go's threads all do, being made
// with CLONE_FS), both EINVAL. An O_PATH descriptor is EBADF, as for any call that uses a file.
func Setns(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	n := int(int32(a[0]))
	nstype := uint32(a[1])
	const cloneNewNS, cloneNewUser = 0x00020000, 0x10000000
	file, ok := core.FDs.File(n)
	switch {
	case core.FDs.Kind(n) == fd.KindNone, ok && file.Flags&fs.O_PATH != 0:
		return abi.Neg(abi.EBADF), true
	case !ok:
		return abi.Neg(abi.EINVAL), true
	}
	clone, ok := core.RootNS.NamespaceType(file.Node)
	switch {
	case !ok, nstype != 0 && nstype != clone, clone == cloneNewUser, clone == cloneNewNS:
		return abi.Neg(abi.EINVAL), true
	}
	return 0, true
}
