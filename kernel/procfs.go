package kernel

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/fs/vfs"
	"github.com/unitrace/unitrace/kernel/klog"
	"github.com/unitrace/unitrace/kernel/machine"
)

// /proc: the process file system (package procfs), mounted at boot. It reads the kernel's own
// state when a file is read: the descriptor table, the scheduler, the frame allocator, the
// command line, the working directory and the umask, through core.ProcSources.

// mountProc makes /proc (mode 0555, as a Linux root file system's mount point has it) and
// mounts the process file system there.
func mountProc(now fs.Timespec) {
	info := &core.ProcSources.Info
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
		_, errno = core.RootNS.MountProc(at, &core.ProcSources)
	}
	if errno != 0 {
		klog.Log().S("files: cannot mount /proc: errno ").D(int64(errno)).NL()
	}
}
