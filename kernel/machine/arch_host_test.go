//go:build unitrace_host && amd64

package machine

import (
	"testing"
	"unsafe"
)

func TestSystemCallRegisters(t *testing.T) {
	var f Frame
	f.RAX, f.RDI, f.RSI, f.RDX, f.R10, f.R8, f.R9 = 39, 1, 2, 3, 4, 5, 6
	f.RIP = 0x1002
	var a SyscallArgs
	SysArgs(&f, &a)
	if SysNum(&f) != 39 || a != (SyscallArgs{1, 2, 3, 4, 5, 6}) {
		t.Fatalf("number %d, arguments %v", SysNum(&f), a)
	}
	SetSysRet(&f, 7)
	if SysRet(&f) != 7 {
		t.Fatalf("result %d, want 7", SysRet(&f))
	}
	RewindSyscall(&f)
	if FramePC(&f) != 0x1000 {
		t.Fatalf("rewound pc %#x, want the SYSCALL at 0x1000", FramePC(&f))
	}
	UnrewindSyscall(&f)
	if FramePC(&f) != 0x1002 {
		t.Fatalf("unrewound pc %#x", FramePC(&f))
	}
	if SyscallName(39) != "getpid" || SyscallName(1<<20) != "unknown" {
		t.Fatalf("names %q %q", SyscallName(39), SyscallName(1<<20))
	}
}

func TestMemoryDoors(t *testing.T) {
	var words [4]uint32
	base := uintptr(unsafe.Pointer(&words))
	Bus.Write32(base+4, 0xdeadbeef)
	if words[1] != 0xdeadbeef || Bus.Read32(base+4) != 0xdeadbeef {
		t.Fatalf("mmio word %#x", words[1])
	}
	if Bus.Read8(base+4) != 0xef {
		t.Fatalf("mmio byte %#x, want the low byte", Bus.Read8(base+4))
	}
	b := BytesAt(base, 16)
	if len(b) != 16 || AddrOf(b) != base {
		t.Fatalf("BytesAt: %d bytes at %#x", len(b), AddrOf(b))
	}
	var f Frame
	if AddrOfFrame(&f) != uintptr(unsafe.Pointer(&f)) {
		t.Fatal("AddrOfFrame")
	}
}

func TestHostMachine(t *testing.T) {
	Host = HostMachine{Clock: 1500, Input: []byte("abc")}
	t.Cleanup(func() { Host = HostMachine{} })
	if Ticks() != 1500 || Nanotime() != 1500 {
		t.Fatalf("clock %d %d", Ticks(), Nanotime())
	}
	base, mult := ClockParams()
	if ns := (Ticks() - base) * mult >> 32; ns != 1500 {
		t.Fatalf("the vDSO's arithmetic gives %d ns, want 1500", ns)
	}
	outer := MaskInterrupts()
	inner := MaskInterrupts()
	RestoreInterrupts(inner)
	if !Host.Masked {
		t.Fatal("an inner restore unmasked")
	}
	RestoreInterrupts(outer)
	if Host.Masked {
		t.Fatal("the outer restore left interrupts masked")
	}
	var dst [2]byte
	if n := ConsoleReceive(dst[:]); n != 2 || string(Host.Input) != "c" {
		t.Fatalf("received %d, left %q", n, Host.Input)
	}
	ConsoleWrite([]byte("hi"))
	if string(Host.Console) != "hi" {
		t.Fatalf("console %q", Host.Console)
	}
	defer func() {
		if e, ok := recover().(HostExit); !ok || e.Code != 3 {
			t.Fatalf("Exit panicked with %v", e)
		}
	}()
	Exit(3)
}
