package boot

import "testing"

func TestSetCmdline(t *testing.T) {
	var s StartInfo
	if s.SetCmdline([]byte("a b -- c\x00junk")) != OK || string(s.Cmdline()) != "a b -- c" {
		t.Fatalf("got %q", s.Cmdline())
	}
	if s.SetCmdline(make([]byte, CmdlineCapacity)) != OK || len(s.Cmdline()) != 0 { // all NULs
		t.Fatalf("a line of NULs: %q", s.Cmdline())
	}
	long := make([]byte, CmdlineCapacity)
	for i := range long {
		long[i] = 'x'
	}
	if s.SetCmdline(long) != ErrCmdlineUnterminated || len(s.Cmdline()) != 0 {
		t.Fatal("an overlong line was taken")
	}
}

func TestSetRAM(t *testing.T) {
	var s StartInfo
	if err := s.SetRAM([]uint64{0x40000000, 0x80000000}, []uint64{0x40000000, 0x1000}); err != OK {
		t.Fatal(err)
	}
	if s.Memory.RAMBytes() != 0x40001000 {
		t.Fatalf("RAM %#x", s.Memory.RAMBytes())
	}
}
