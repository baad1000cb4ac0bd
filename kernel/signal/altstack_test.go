package signal

import (
	"bytes"
	"testing"

	"github.com/unitrace/unitrace/kernel/abi"
)

func TestAltStackOn(t *testing.T) {
	s := AltStack{SP: 0x10000, Size: 0x8000}
	for _, c := range []struct {
		sp   uintptr
		want bool
	}{
		{0x10000, true},  // the lowest byte
		{0x17fff, true},  // the highest
		{0x18000, false}, // just above: where a frame for a thread entering it starts
		{0xffff, false},  // just below
		{0, false},
		{^uintptr(0), false},
	} {
		if got := s.On(c.sp); got != c.want {
			t.Errorf("On(%#x) = %v, want %v", c.sp, got, c.want)
		}
	}
	if (AltStack{SP: 0x10000}).On(0x10000) {
		t.Error("a stack of size 0 (none) holds nothing")
	}
	// A stack at the top of the address space does not wrap around to address 0.
	top := AltStack{SP: ^uintptr(0) - 0xfff, Size: 0x1000}
	if !top.On(^uintptr(0)) || top.On(0) || top.On(5) {
		t.Error("a stack ending at the top of the address space")
	}
}

func TestAltStackChange(t *testing.T) {
	const sp = 0x7000_0000 // the thread's stack pointer, not on any alternate stack below
	for _, c := range []struct {
		name  string
		from  AltStack
		ss    Stack
		errno int
		want  AltStack
	}{
		{"set", AltStack{}, Stack{SP: 0x1000, Size: 0x8000}, 0, AltStack{SP: 0x1000, Size: 0x8000}},
		{"replace", AltStack{SP: 0x1000, Size: 0x8000}, Stack{SP: 0x20000, Size: 0x4000}, 0, AltStack{SP: 0x20000, Size: 0x4000}},
		{"MINSIGSTKSZ", AltStack{}, Stack{SP: 0x1000, Size: MINSIGSTKSZ}, 0, AltStack{SP: 0x1000, Size: MINSIGSTKSZ}},
		{"too small", AltStack{SP: 0x1000, Size: 0x8000}, Stack{SP: 0x1000, Size: MINSIGSTKSZ - 1}, abi.ENOMEM, AltStack{SP: 0x1000, Size: 0x8000}},
		{"size 0", AltStack{}, Stack{SP: 0x1000}, abi.ENOMEM, AltStack{}},
		{"disable", AltStack{SP: 0x1000, Size: 0x8000}, Stack{Flags: SS_DISABLE}, 0, AltStack{}},
		{"disable ignores the size", AltStack{SP: 0x1000, Size: 0x8000}, Stack{SP: 5, Flags: SS_DISABLE, Size: 1}, 0, AltStack{}},
		{"autodisarm", AltStack{}, Stack{SP: 0x1000, Flags: -1 << 31, Size: 0x8000}, 0, AltStack{SP: 0x1000, Size: 0x8000, Flags: -1 << 31}},
		// Linux takes SS_ONSTACK as 0 for old programs; this kernel refuses it (the Go runtime
		// passes 0 or SS_DISABLE).
		{"SS_ONSTACK", AltStack{}, Stack{SP: 0x1000, Flags: SS_ONSTACK, Size: 0x8000}, abi.EINVAL, AltStack{}},
		{"unknown flags", AltStack{}, Stack{SP: 0x1000, Flags: 4, Size: 0x8000}, abi.EINVAL, AltStack{}},
		{"disable with autodisarm", AltStack{SP: 0x1000, Size: 0x8000}, Stack{Flags: SS_DISABLE | -1<<31}, abi.EINVAL, AltStack{SP: 0x1000, Size: 0x8000}},
	} {
		s := c.from
		if errno := s.Change(c.ss, sp); errno != c.errno || s != c.want {
			t.Errorf("%s: Change(%+v) from %+v = %d, %+v; want %d, %+v", c.name, c.ss, c.from, errno, s, c.errno, c.want)
		}
	}
	// A thread running on its alternate stack may not change it, not even disable it.
	on := AltStack{SP: 0x1000, Size: 0x8000}
	for _, ss := range []Stack{{Flags: SS_DISABLE}, {SP: 0x20000, Size: 0x8000}} {
		s := on
		if errno := s.Change(ss, 0x1000+0x4000); errno != abi.EPERM || s != on {
			t.Errorf("Change(%+v) on the stack = %d, %+v; want EPERM and no change", ss, errno, s)
		}
	}
}

func TestAltStackReport(t *testing.T) {
	for _, c := range []struct {
		s    AltStack
		sp   uintptr
		want Stack
	}{
		{AltStack{}, 0x5000, Stack{Flags: SS_DISABLE}},
		{AltStack{SP: 0x1000, Size: 0x8000}, 0x20000, Stack{SP: 0x1000, Size: 0x8000}},
		{AltStack{SP: 0x1000, Size: 0x8000}, 0x2000, Stack{SP: 0x1000, Flags: SS_ONSTACK, Size: 0x8000}},
		{AltStack{SP: 0x1000, Size: 0x8000, Flags: -1 << 31}, 0x20000, Stack{SP: 0x1000, Flags: -1 << 31, Size: 0x8000}},
	} {
		if got := c.s.Report(c.sp); got != c.want {
			t.Errorf("%+v.Report(%#x) = %+v, want %+v", c.s, c.sp, got, c.want)
		}
	}
}

// TestFrameTop covers where a frame goes: below the stack pointer, at the top of the alternate
// stack with SA_ONSTACK, and below the stack pointer again for a signal that arrives while the
// thread is on the alternate stack already (a nested one, or a fault in the handler).
func TestFrameTop(t *testing.T) {
	alt := AltStack{SP: 0x10000, Size: 0x8000}
	for _, c := range []struct {
		s     AltStack
		sp    uintptr
		flags uint64
		top   uintptr
		saved int32
	}{
		{AltStack{}, 0x50000, 0, 0x50000 - 128, SS_DISABLE},
		{AltStack{}, 0x50000, SA_ONSTACK, 0x50000 - 128, SS_DISABLE},
		{alt, 0x50000, 0, 0x50000 - 128, 0},
		{alt, 0x50000, SA_ONSTACK, 0x18000, SS_ONSTACK},
		{alt, 0x12000, SA_ONSTACK, 0x12000 - 128, SS_ONSTACK},
		{alt, 0x12000, 0, 0x12000 - 128, SS_ONSTACK},
		{alt, 0x18000, SA_ONSTACK, 0x18000, SS_ONSTACK}, // just above it: not on it, so to its top
	} {
		if got := c.s.FrameTop(c.sp, 128, c.flags); got != c.top {
			t.Errorf("%+v.FrameTop(%#x, flags %#x) = %#x, want %#x", c.s, c.sp, c.flags, got, c.top)
		}
		want := Stack{SP: uint64(c.s.SP), Flags: c.saved, Size: uint64(c.s.Size)}
		if got := c.s.Saved(c.sp, c.flags); got != want {
			t.Errorf("%+v.Saved(%#x, flags %#x) = %+v, want %+v", c.s, c.sp, c.flags, got, want)
		}
	}
}

func TestStackCodec(t *testing.T) {
	b := bytes.Repeat([]byte{0xee}, StackSize)
	s := Stack{SP: 0x1122334455667788, Flags: -1 << 31, Size: 0x99}
	PutStack(b, s)
	if got := ReadStack(b); got != s {
		t.Errorf("ReadStack(PutStack(%+v)) = %+v", s, got)
	}
	if !bytes.Equal(b[ssFlags+4:ssSize], []byte{0, 0, 0, 0}) {
		t.Errorf("the padding after ss_flags is % x, want zeros", b[ssFlags+4:ssSize])
	}
	// ss_flags is an int: ReadStack ignores the padding a program leaves behind it.
	b[ssFlags+4] = 0xff
	if got := ReadStack(b); got != s {
		t.Errorf("with padding set: %+v, want %+v", got, s)
	}
}
