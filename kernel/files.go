package kernel

import (
	"strings"

	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/dev/shares"
	"github.com/unitrace/unitrace/kernel/klog"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/options"
	"github.com/unitrace/unitrace/kernel/syscalls/files"

	"github.com/unitrace/unitrace/boot"
	"github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/fs/memfs"
	"github.com/unitrace/unitrace/kernel/fs/vfs"
)

// The file system: the program's "/" is an in-memory file system with tmpfs's semantics
// (package memfs) in a namespace of package vfs, made at boot with /tmp (mode 1777) and /dev
// (null, zero, full, random, urandom), the working directory at "/". Its pages are physical
// frames from the kernel's allocator, reached through the direct map, up to a capacity set by
//
//	unitrace.fsmem=SIZE  bytes of file contents, directories and links (K, M, G suffixes);
//	                     default a quarter of the memory
//	unitrace.cwd=DIR     start the program in the directory DIR (absolute) instead of "/";
//	                     DIR may lie in a shared directory, which is mounted first
//
// Past it, writes fail with ENOSPC. /proc is the process file system (procfs.go); there is
// nothing under /sys, and nothing in /proc that the Go runtime probes (its cgroup files): those
// find no file (ENOENT), as before there was a file system.
//
// The system calls are in sys_path.go (paths from user memory), sys_file.go (open files),
// sys_namei.go (the calls that take paths) and sys_dup.go. They run under the kernel lock,
// which serialises every call into the namespace, as vfs requires.

var (
	// fsmemBytes is unitrace.fsmem's capacity, 0 for the default.
	fsmemBytes uint64
	// cwdWord is the index of the last unitrace.cwd option among the command line's options,
	// -1 for none.
	cwdWord = -1
)

// fsmemOption reads unitrace.fsmem=SIZE; it reports whether o was that option.
func fsmemOption(o string) bool {
	v, ok := strings.CutPrefix(o, "unitrace.fsmem=")
	if !ok {
		return false
	}
	n, ok := boot.ParseByteSize(v)
	if !ok || n < memfs.PageSize {
		klog.Log().S("unitrace.fsmem: want a size of at least 4K (K, M, G suffixes), got ").S(v).NL()
		return true
	}
	fsmemBytes = n
	return true
}

// cwdOption reads unitrace.cwd=DIR, the i-th option; it reports whether o was that option. DIR
// is resolved once the file systems are mounted (applyCwd).
func cwdOption(i int, o string) bool {
	v, ok := strings.CutPrefix(o, "unitrace.cwd=")
	if !ok {
		return false
	}
	if len(v) == 0 || v[0] != '/' || len(v) >= len(files.PathBufs[0]) {
		klog.Log().S("unitrace.cwd: want an absolute directory shorter than PATH_MAX, got ").S(v).NL()
		klog.BootFault("bad working directory")
	}
	cwdWord = i
	return true
}

// applyCwd makes unitrace.cwd's directory the working directory. It runs after the shares are
// mounted, so the directory may be in one. A directory that cannot be entered stops the boot:
// the program would otherwise run, and read and write its relative paths, somewhere else.
func applyCwd() {
	if cwdWord < 0 {
		return
	}
	dir := options.Cmdline.Option(cwdWord)[len("unitrace.cwd="):]
	path := files.PathBufs[0][:copy(files.PathBufs[0][:], dir)]
	if errno := files.SetCwd(chdirAtBoot(path)); errno != 0 {
		klog.Log().S("unitrace.cwd: cannot enter ").S(dir).S(": errno ").D(int64(errno)).NL()
		klog.BootFault("the working directory is missing")
	}
}

// bootWaiter is the waiter the boot's calls into the shares run as: thread slot 0, CPU 0's idle
// thread, which never makes a system call of its own.
const bootWaiter = 0

// chdirAtBoot resolves the absolute path as chdir does and takes a reference on the directory.
// A path into a share needs the host's replies, and no thread can block for them yet (the
// devices' interrupts are off): it runs the call again while polling the devices, as mounting
// does, until the call is done or shares.MountTimeout passes.
func chdirAtBoot(path []byte) (vfs.Node, int) {
	root := core.RootNS.Root()
	deadline := machine.Nanotime() + shares.MountTimeout
	for {
		shares.BeginFiles(bootWaiter)
		n, errno := core.RootNS.Chdir(vfs.At{Root: root, Dir: root}, path)
		if errno == fs.EQUEUED && machine.Nanotime() > deadline {
			errno = abi.EIO
		}
		if errno != fs.EQUEUED {
			if core.RootNS.Shares() > 0 {
				core.RootNS.End(bootWaiter)
				shares.Kick() // the clunks the walk queued
			}
			return n, errno
		}
		shares.Poll()
	}
}

// fsCapacity is the root file system's size: unitrace.fsmem's, or a quarter of the memory the
// frame allocator has, and an inode per page of it (tmpfs allows half as many), at most memfs's
// limit.
func fsCapacity() memfs.Capacity {
	total := core.Frames.Stats().Total * core.PageSize
	bytes := total / 4
	if fsmemBytes != 0 {
		bytes = min(fsmemBytes, total)
	}
	return memfs.Capacity{Bytes: bytes, Inodes: uint32(min(max(bytes/memfs.PageSize, 64), memfs.MaxInodes))}
}

// initFiles makes the file system: "/" with /tmp, /dev and /proc, the working directory "/".
func initFiles() {
	now := core.FSNow()
	c := fsCapacity()
	if errno := core.RootNS.Init(&core.FSPages, c, now); errno != 0 {
		klog.BootFault("file system: no room for /")
	}
	root := core.RootNS.Root()
	tmp := [...]byte{'/', 't', 'm', 'p'}
	if core.RootNS.Mkdir(&core.FSPages, vfs.At{Root: root, Dir: root}, tmp[:], 0o1777, now) != 0 || core.RootNS.MakeDev(&core.FSPages, now) != 0 {
		klog.BootFault("file system: no room for /tmp and /dev")
	}
	mountPacked(&core.RootNS, &core.FSPages, now)
	mountProc(now)
	core.RootNS.Acquire(root)
	core.Cwd = root
	if options.Kernel.Verbose {
		klog.Log().S("files: / is a memfs of ").U(c.Bytes >> 10).S(" KiB, ").U(uint64(c.Inodes)).S(" inodes").NL()
	}
}
