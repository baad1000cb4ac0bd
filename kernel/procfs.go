package kernel

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/fd"
	"github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/fs/procfs"
	"github.com/unitrace/unitrace/kernel/fs/vfs"
	"github.com/unitrace/unitrace/kernel/klog"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/options"
)

// /proc: the process file system (package procfs), mounted at boot. It reads the kernel's own
// state when a file is read: the descriptor table, the scheduler, the frame allocator, the
// command line, the working directory and the umask, through procSources.

// procSources is what /proc shows. Its pointers are set here, in a static initialiser the
// linker lays out (storing them at run time would need the collector's write barrier, which
// kernel-mode code must not use); Info is filled at boot, Threads as threads start.
var procSources = procfs.Sources{
	FDs:       &core.FDs,
	Frames:    &core.Frames,
	Sched:     &core.Scheduler,
	Cmdline:   &options.Cmdline,
	Cwd:       &cwd,
	Umask:     &umask,
	UserPages: &core.UserPages,
	Clock:     core.KernelClock,
}

// mountProc makes /proc (mode 0555, as a Linux root file system's mount point has it) and
// mounts the process file system there.
func mountProc(now fs.Timespec) {
	info := &procSources.Info
	info.Pid = core.ProcessID
	info.SetExe(argv0)
	info.BootWall = core.BootWallNanos
	start, end := machine.ImageRange()
	info.ImageBytes = uint64(end - start)
	archCPUInfo(&info.CPU)
	root := core.RootNS.Root()
	path := [...]byte{'/', 'p', 'r', 'o', 'c'}
	if errno := core.RootNS.Mkdir(&core.FSPages, vfs.At{Root: root, Dir: root}, path[:], 0o555, now); errno != 0 && errno != abi.EEXIST {
		klog.BootFault("file system: no room for /proc")
	}
	at, errno := core.RootNS.Resolve(root, root, path[:], true, false)
	if errno == 0 {
		_, errno = core.RootNS.MountProc(at, &procSources)
	}
	if errno != 0 {
		klog.Log().S("files: cannot mount /proc: errno ").D(int64(errno)).NL()
	}
}

// reopenDescriptor is open(2) of /proc/self/fd/d where descriptor d has no file behind it
// (vfs's fs.EFDLINK), as Linux opens the object d refers to: the console again, as a console
// descriptor of its own; a pipe at the end the access mode asks for (O_RDWR: d's own end), as
// a FIFO opens. Sockets, eventfds, epoll instances and the trace ports cannot be opened that way
// (ENXIO, Linux's answer for them), nor can O_PATH name any of them here.
func reopenDescriptor(d int, flags int) uint64 {
	if flags&fs.O_PATH != 0 {
		return abi.Neg(abi.ENXIO)
	}
	switch core.FDs.Kind(d) {
	case fd.KindConsole:
		n, errno := core.FDs.Dup(d, 0, flags&fs.O_CLOEXEC != 0)
		if errno != 0 {
			return abi.Neg(errno)
		}
		core.FDs.Fcntl(n, fd.F_SETFL, uintptr(flags&fs.O_NONBLOCK))
		return uint64(n)
	case fd.KindPipe:
		_, write, _ := core.FDs.Pipe(d)
		switch flags & fs.O_ACCMODE {
		case fs.O_RDONLY:
			write = false
		case fs.O_WRONLY:
			write = true
		}
		n, errno := core.FDs.ReopenPipe(d, write, flags)
		if errno != 0 {
			return abi.Neg(errno)
		}
		return uint64(n)
	}
	return abi.Neg(abi.ENXIO)
}
