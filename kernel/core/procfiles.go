package core

import (
	"github.com/unitrace/unitrace/kernel/fd"
	"github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/fs/procfs"
	"github.com/unitrace/unitrace/kernel/fs/vfs"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/mm"
	"github.com/unitrace/unitrace/kernel/options"
)

// The process's files: its descriptor table (fds) and its namespace (rootNS), which the system
// calls, the devices and the boot mounts share.

// fds is the process's descriptor table.
var FDs fd.Table

var (
	RootNS vfs.Namespace
	// fsPages backs the file systems: rootNS's methods take it as their vfs.Pages, a pointer to
	// a global, which costs no allocation.
	FSPages framePages
)

// framePages hands memfs physical frames through the direct map.
type framePages struct{}

func (*framePages) Alloc() (uintptr, bool) {
	pa, ok := Frames.Alloc() // zero-filled, as memfs.Pages requires
	return pa + mm.DirectMap, ok
}

func (*framePages) Free(addr uintptr) { Frames.Free(addr - mm.DirectMap) }

// fsNow is the time files are stamped with: the wall clock.
func FSNow() fs.Timespec {
	ns := BootWallNanos + machine.Nanotime()
	return fs.Timespec{Sec: ns / 1e9, Nsec: ns % 1e9}
}

// PollWaiters counts the threads waiting on PollKey, so that WakeFDWaiters wakes it only then.
var PollWaiters int

// watchBuf is WakeFDWaiters' scratch: the epoll instances watching a descriptor.
var watchBuf [fd.MaxFDs]int32

// WakeFDWaiters wakes the threads waiting on fd n itself (blocking eventfd reads) and in every
// epoll instance that watches it, after its readiness may have changed.
func WakeFDWaiters(n int) {
	FutexWake(FDKey(n), MaxThreads)
	if PollWaiters > 0 {
		FutexWake(PollKey, MaxThreads) // pollers scan again
	}
	k := FDs.Watchers(n, watchBuf[:])
	for i := 0; i < k; i++ {
		FutexWake(FDKey(int(watchBuf[i])), MaxThreads)
	}
}

var (
	// Cwd is the working directory, with its reference (vfs.Namespace.Acquire).
	Cwd vfs.Node
	// Umask is the file mode creation mask (umask(2)); Linux's default for the first process.
	Umask uint32 = 0o022
)

// ReleaseNode drops a node's reference that a descriptor or the working directory held (the
// zero Node: nothing to drop).
func ReleaseNode(n vfs.Node) {
	if n != (vfs.Node{}) {
		RootNS.Release(&FSPages, n)
	}
}

// ProcSources is what /proc shows. Its pointers are set here, in a static initialiser the
// linker lays out (storing them at run time would need the collector's write barrier, which
// kernel-mode code must not use); Info is filled at boot, Threads as threads start.
var ProcSources = procfs.Sources{
	FDs:       &FDs,
	Frames:    &Frames,
	Sched:     &Scheduler,
	Cmdline:   &options.Cmdline,
	Cwd:       &Cwd,
	Umask:     &Umask,
	UserPages: &UserPages,
	Clock:     KernelClock,
}
