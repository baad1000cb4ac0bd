//go:build unitrace_host && amd64

// Package coretest sets kernel/core up in a host process for the host tests of the packages
// above it: a fresh scheduler, wait table and threads, and a user address space of the test's
// own memory with frames from an arena, as the guest has them. Its files end in _host.go and
// build only with the unitrace_host tag: it is never in an image.
package coretest

import (
	"syscall"
	"testing"
	"unsafe"

	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/fd"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/mm"
	"github.com/unitrace/unitrace/kernel/sched"
	"github.com/unitrace/unitrace/kernel/timerq"
	"github.com/unitrace/unitrace/kernel/waitq"
)

// Fresh empties the kernel's state until the test ends: CPU 0 on its idle thread, no thread,
// nothing waiting, no wait rules, no descriptors, the host machine at time 0.
func Fresh(t testing.TB) {
	t.Helper()
	reset := func() {
		core.Scheduler = sched.Scheduler{}
		core.Sleepers = timerq.Queue{}
		core.Waiters = waitq.Table{}
		core.Threads = [core.MaxThreads]core.Thread{}
		core.WaitKinds = [core.NumWaitKinds]core.WaitRules{}
		core.FDs = fd.Table{}
		core.PollWaiters = 0
		machine.Host = machine.HostMachine{}
	}
	reset()
	t.Cleanup(reset)
}

// Running starts a thread and runs it on CPU 0, in f: the thread a system call comes from.
func Running(t testing.TB, f *machine.Frame) int32 {
	t.Helper()
	slot := core.NewThread()
	if slot < 0 {
		t.Fatal("coretest: no thread slot")
	}
	core.Enqueue(slot)
	core.Schedule(f)
	if core.CurSlot() != slot {
		t.Fatalf("coretest: CPU 0 runs %d, want the new thread %d", core.CurSlot(), slot)
	}
	return slot
}

// UserMemory gives the test a user address space of pages pages of its own memory, all
// mapped read-write, and frames from a 4 MiB arena reached through mm's direct map. It returns
// the space's first address.
func UserMemory(t testing.TB, pages int) uintptr {
	t.Helper()
	mmap := func(n int) []byte {
		b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { syscall.Munmap(b) })
		return b
	}
	const ramBase, ramSize = 1 << 20, 4 << 20
	ram := mmap(ramSize)
	oldDirect := mm.DirectMap
	mm.DirectMap = uintptr(unsafe.Pointer(&ram[0])) - ramBase
	core.Frames = mm.Frames{}
	meta := mm.MetaSize(ramBase + ramSize)
	core.Frames.Init(ramBase, meta)
	core.Frames.AddFree(ramBase+core.PageUp(meta), ramBase+ramSize)
	user := uintptr(unsafe.Pointer(&mmap(pages * core.PageSize)[0]))
	core.Space = mm.Space{}
	core.Space.Init(user, user+uintptr(pages)*core.PageSize, user)
	core.HostUnmapAll()
	core.UserPages = 0
	t.Cleanup(func() {
		mm.DirectMap = oldDirect
		core.Frames, core.Space = mm.Frames{}, mm.Space{}
		core.HostUnmapAll()
		core.UserPages = 0
	})
	if _, errno := core.Space.Map(user, uintptr(pages)*core.PageSize, mm.ProtRead|mm.ProtWrite, true); errno != 0 {
		t.Fatalf("coretest: mapping the user space: errno %d", errno)
	}
	return user
}

// Bytes is n bytes of the test's user memory at addr, as the program sees them.
func Bytes(addr, n uintptr) []byte { return machine.BytesAt(addr, n) }
