// Package proctest gives host tests a procfs.Sources over the kernel's real state packages: a
// descriptor table, a scheduler with threads, a frame allocator over memory mapped outside the
// Go heap, and a parsed command line. Its files end in _host.go: host-only code that
// kernelcheck skips.
package proctest

import (
	"reflect"
	"runtime"
	"syscall"
	"testing"

	"github.com/unitrace/unitrace/boot"
	"github.com/unitrace/unitrace/kernel/fd"
	"github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/fs/procfs"
	"github.com/unitrace/unitrace/kernel/mm"
	"github.com/unitrace/unitrace/kernel/sched"
)

// Fixture is the state a Sources points at. It never moves (the garbage collector does not move
// objects) and the test keeps it until it ends, so procfs.FS may keep its Sources' address.
type Fixture struct {
	Src     procfs.Sources
	FDs     fd.Table
	Sched   sched.Scheduler
	Frames  mm.Frames
	Cmdline boot.Cmdline
	Cwd     fs.Node
	Umask   uint32
	// UserPages is the program's resident pages: 300.
	UserPages uint64
	// SysNanos is what Clock says every CPU has spent in the kernel.
	SysNanos int64
}

// RAM is the fake physical memory the frame allocator manages.
const RAM = 64 << 20

// New makes a fixture: process 1 with the program path /app and the command line cmdline
// (boot.Cmdline's syntax), two CPUs, the console on descriptors 0-2 and the main thread (tid 1,
// in the first program slot) running on CPU 0, 64 MiB of frames of which 1 MiB is allocated, a
// 4 MiB image and 300 resident pages.
func New(t testing.TB, cmdline string) *Fixture {
	t.Helper()
	x := new(Fixture)
	t.Cleanup(func() { runtime.KeepAlive(x) })
	if err := x.Cmdline.Parse([]byte(cmdline)); err != boot.OK {
		t.Fatalf("command line %q: %v", cmdline, err)
	}
	x.FDs.Init()
	x.Umask = 0o022
	x.Sched.SetCPUs(2)

	mem, err := syscall.Mmap(-1, 0, RAM, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE|syscall.MAP_NORESERVE)
	if err != nil {
		t.Fatalf("mmap: %v", err)
	}
	old := mm.DirectMap
	mm.DirectMap = reflect.ValueOf(mem).Pointer()
	t.Cleanup(func() {
		mm.DirectMap = old
		syscall.Munmap(mem)
	})
	meta := mm.MetaSize(RAM)
	x.Frames.Init(RAM-meta, meta)
	x.Frames.AddFree(0, RAM)
	for i := 0; i < 256; i++ {
		if _, ok := x.Frames.Alloc(); !ok {
			t.Fatal("frame allocator is empty")
		}
	}

	x.Src = procfs.Sources{
		FDs: &x.FDs, Frames: &x.Frames, Sched: &x.Sched, Cmdline: &x.Cmdline, Cwd: &x.Cwd, Umask: &x.Umask,
		UserPages: &x.UserPages,
		Clock:     func(c int, now int64) int64 { return min(x.SysNanos, now) },
	}
	x.Src.Info.Pid = 1
	x.Src.Info.SetExe("/app")
	x.Src.Info.BootWall = 1_700_000_000_000_000_000
	x.Src.Info.ImageBytes = 4 << 20
	x.UserPages = 300
	x.AddThread(t, 1)
	if prev, next := x.Sched.Next(0, 0, x.Src.Clock); next != sched.FirstThread {
		t.Fatalf("Next = %d, %d: the main thread does not run", prev, next)
	}
	return x
}

// AddThread starts a thread with tid in the lowest free slot, runnable (blocked, if the
// scheduler will not take it), and returns the slot.
func (x *Fixture) AddThread(t testing.TB, tid int32) int32 {
	t.Helper()
	for slot := int32(sched.FirstThread); slot < sched.MaxThreads; slot++ {
		if x.Sched.Add(slot) {
			x.Src.Threads[slot] = tid
			x.Sched.Ready(slot, 0)
			return slot
		}
	}
	t.Fatal("no free thread slot")
	return -1
}

// ExitThread ends the thread in slot.
func (x *Fixture) ExitThread(slot int32) {
	x.Sched.Exit(slot)
	x.Src.Threads[slot] = 0
}
