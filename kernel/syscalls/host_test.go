//go:build unitrace_host && amd64

package syscalls

import (
	"encoding/binary"
	"testing"

	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/core/coretest"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/syscalls/files"
)

// The system calls on the host: a thread makes them through the dispatch the trap uses
// (Locked), with its arguments in a frame's registers (Linux/amd64's convention), against the
// real descriptor table, memory map and wait table, and user memory that is the test's own.

// proc is a test's process: the running thread's frame and its user memory.
type proc struct {
	t    *testing.T
	f    machine.Frame
	user uintptr // 16 pages of user memory
	next uintptr // the next free byte of it (alloc)
}

func newProc(t *testing.T) *proc {
	t.Helper()
	coretest.Fresh(t)
	core.FDs.Init()
	p := &proc{t: t}
	coretest.Running(t, &p.f)
	p.user = coretest.UserMemory(t, 16)
	p.next = p.user
	return p
}

// call makes system call nr with args and returns its result, as the program sees it.
func (p *proc) call(nr uint64, args ...uint64) int64 {
	p.t.Helper()
	p.f.RAX = nr
	var a [6]uint64
	copy(a[:], args)
	p.f.RDI, p.f.RSI, p.f.RDX, p.f.R10, p.f.R8, p.f.R9 = a[0], a[1], a[2], a[3], a[4], a[5]
	Locked(&p.f)
	return int64(machine.SysRet(&p.f))
}

// alloc returns n bytes of user memory, 8-aligned.
func (p *proc) alloc(n uintptr) uintptr {
	at := p.next
	p.next += (n + 7) &^ 7
	return at
}

func (p *proc) bytes(addr, n uintptr) []byte { return coretest.Bytes(addr, n) }

func errno(e int) int64 { return -int64(e) }

func TestPipeRoundTrip(t *testing.T) {
	p := newProc(t)
	fds := p.alloc(8)
	if r := p.call(nrPipe2, uint64(fds), 0); r != 0 {
		t.Fatalf("pipe2: %d", r)
	}
	rd := uint64(binary.LittleEndian.Uint32(p.bytes(fds, 4)))
	wr := uint64(binary.LittleEndian.Uint32(p.bytes(fds+4, 4)))
	msg := p.alloc(5)
	copy(p.bytes(msg, 5), "hello")
	if r := p.call(nrWrite, wr, uint64(msg), 5); r != 5 {
		t.Fatalf("write: %d", r)
	}
	buf := p.alloc(16)
	if r := p.call(nrRead, rd, uint64(buf), 16); r != 5 || string(p.bytes(buf, 5)) != "hello" {
		t.Fatalf("read: %d %q", r, p.bytes(buf, 5))
	}
	if r := p.call(nrClose, wr); r != 0 {
		t.Fatalf("close: %d", r)
	}
	if r := p.call(nrRead, rd, uint64(buf), 16); r != 0 {
		t.Fatalf("read after the writer closed: %d, want end of file", r)
	}
	if r := p.call(nrRead, wr, uint64(buf), 16); r != errno(abi.EBADF) {
		t.Fatalf("read of a closed descriptor: %d, want EBADF", r)
	}
}

// A read of an empty pipe blocks its thread; a write from another wakes it, and the read
// completes with the bytes as the reader runs again.
func TestPipeBlockedRead(t *testing.T) {
	p := newProc(t)
	core.WaitKinds[core.WaitPipe].Complete.Set(files.CompletePipeWait)
	fds := p.alloc(8)
	p.call(nrPipe2, uint64(fds), 0)
	rd := uint64(binary.LittleEndian.Uint32(p.bytes(fds, 4)))
	wr := uint64(binary.LittleEndian.Uint32(p.bytes(fds+4, 4)))
	reader := core.CurSlot()
	buf := p.alloc(16)
	p.call(nrRead, rd, uint64(buf), 16)
	if !core.OnIdle() {
		t.Fatalf("the read did not block: CPU 0 runs %d", core.CurSlot())
	}
	writer := core.NewThread()
	core.Enqueue(writer)
	core.Schedule(&p.f)
	msg := p.alloc(2)
	copy(p.bytes(msg, 2), "ok")
	if r := p.call(nrWrite, wr, uint64(msg), 2); r != 2 {
		t.Fatalf("write: %d", r)
	}
	core.Yield(&p.f)
	if core.CurSlot() != reader || machine.SysRet(&p.f) != 2 || string(p.bytes(buf, 2)) != "ok" {
		t.Fatalf("CPU 0 runs %d with %d, want the reader with 2 bytes", core.CurSlot(), int64(machine.SysRet(&p.f)))
	}
}

// Linux's errors for bad arguments, checked before anything changes.
func TestArgumentErrors(t *testing.T) {
	p := newProc(t)
	fds := p.alloc(8)
	for _, c := range []struct {
		name string
		nr   uint64
		args []uint64
		want int64
	}{
		{"pipe2 with an unknown flag", nrPipe2, []uint64{uint64(fds), 1 << 30}, errno(abi.EINVAL)},
		{"pipe2 into unmapped memory", nrPipe2, []uint64{0x1000, 0}, errno(abi.EFAULT)},
		{"dup3 onto itself", nrDup3, []uint64{1, 1, 0}, errno(abi.EINVAL)},
		{"dup3 with an unknown flag", nrDup3, []uint64{1, 9, 1}, errno(abi.EINVAL)},
		{"dup of a closed descriptor", nrDup, []uint64{77}, errno(abi.EBADF)},
		{"close of a closed descriptor", nrClose, []uint64{77}, errno(abi.EBADF)},
		{"eventfd2 with an unknown flag", nrEventfd2, []uint64{0, 1 << 20}, errno(abi.EINVAL)},
		{"munmap of an unaligned address", nrMunmap, []uint64{uint64(p.user + 1), 4096}, errno(abi.EINVAL)},
		{"munmap of nothing", nrMunmap, []uint64{uint64(p.user), 0}, errno(abi.EINVAL)},
		{"mprotect of an unaligned address", nrMprotect, []uint64{uint64(p.user + 1), 4096, 1}, errno(abi.EINVAL)},
		{"an unknown system call", 1000, nil, errno(abi.ENOSYS)},
	} {
		if r := p.call(c.nr, c.args...); r != c.want {
			t.Errorf("%s: %d, want %d", c.name, r, c.want)
		}
	}
}

func TestEventfdCounter(t *testing.T) {
	p := newProc(t)
	efd := p.call(nrEventfd2, 3, 0)
	if efd < 0 {
		t.Fatalf("eventfd2: %d", efd)
	}
	v := p.alloc(8)
	binary.LittleEndian.PutUint64(p.bytes(v, 8), 4)
	if r := p.call(nrWrite, uint64(efd), uint64(v), 8); r != 8 {
		t.Fatalf("write: %d", r)
	}
	if r := p.call(nrRead, uint64(efd), uint64(v), 4); r != errno(abi.EINVAL) {
		t.Fatalf("a read of 4 bytes: %d, want EINVAL", r)
	}
	if r := p.call(nrRead, uint64(efd), uint64(v), 8); r != 8 || binary.LittleEndian.Uint64(p.bytes(v, 8)) != 7 {
		t.Fatalf("read: %d, counter %d, want 7", r, binary.LittleEndian.Uint64(p.bytes(v, 8)))
	}
}

func TestAnonymousMemory(t *testing.T) {
	p := newProc(t)
	const protRW, mapPrivAnon = 3, 0x22
	// The upper half of the user memory is free for the call to place the mapping.
	if r := p.call(nrMunmap, uint64(p.user+8*core.PageSize), 8*core.PageSize); r != 0 {
		t.Fatalf("munmap of the upper half: %d", r)
	}
	addr := p.call(nrMmap, 0, 2*core.PageSize, protRW, mapPrivAnon, ^uint64(0), 0)
	if addr < 0 {
		t.Fatalf("mmap: %d", addr)
	}
	b, ok := core.UserBytes(uintptr(addr), 2*core.PageSize, true)
	if !ok {
		t.Fatal("the new mapping is not writable")
	}
	b[0] = 1
	if r := p.call(nrMprotect, uint64(addr), core.PageSize, 1); r != 0 {
		t.Fatalf("mprotect: %d", r)
	}
	if _, ok := core.UserBytes(uintptr(addr), 1, true); ok {
		t.Fatal("a read-only page is writable")
	}
	if r := p.call(nrMunmap, uint64(addr), 2*core.PageSize); r != 0 {
		t.Fatalf("munmap: %d", r)
	}
	if _, ok := core.UserBytes(uintptr(addr), 1, false); ok {
		t.Fatal("an unmapped page is readable")
	}
}
