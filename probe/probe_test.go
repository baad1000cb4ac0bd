package probe

import (
	"bytes"
	"testing"
)

func TestDecode(t *testing.T) {
	for _, tt := range []struct {
		arch Arch
		code []byte
		want Insn
		ok   bool
	}{
		{AMD64, []byte{0xc3}, Insn{Op: OpRet, Len: 1, Src: RegSP}, true},
		{AMD64, []byte{0x48, 0x89, 0xe5}, Insn{Op: OpMove, Len: 3, Dst: 5, Src: RegSP}, true}, // MOVQ SP, BP
		{AMD64, []byte{0x4c, 0x89, 0xc0}, Insn{Op: OpMove, Len: 3, Dst: 0, Src: 8}, true},     // MOVQ R8, AX
		{AMD64, []byte{0x49, 0x8b, 0xc1}, Insn{Op: OpMove, Len: 3, Dst: 0, Src: 9}, true},     // MOVQ R9, AX
		{AMD64, []byte{0x48, 0x89, 0x45}, Insn{}, false},                                      // a store
		{AMD64, []byte{0x4a, 0x89, 0xe5}, Insn{}, false},                                      // REX.X
		{AMD64, []byte{0x40, 0x89, 0xe5}, Insn{}, false},                                      // no REX.W
		{AMD64, []byte{0x55}, Insn{}, false},                                                  // PUSHQ BP: a store
		{AMD64, []byte{0xc2, 0, 0}, Insn{}, false},                                            // RET imm16
		{AMD64, nil, Insn{}, false},
		{ARM64, []byte{0xc0, 0x03, 0x5f, 0xd6}, Insn{Op: OpRet, Len: 4, Src: 30}, true},                         // RET
		{ARM64, []byte{0xfd, 0x23, 0x00, 0xd1}, Insn{Op: OpAddImm, Len: 4, Dst: 29, Src: RegSP, Imm: -8}, true}, // SUB $8, RSP, R29
		{ARM64, []byte{0xff, 0x43, 0x00, 0x91}, Insn{Op: OpAddImm, Len: 4, Dst: RegSP, Src: RegSP, Imm: 16}, true},
		{ARM64, []byte{0x74, 0x03, 0x40, 0xd1}, Insn{Op: OpAddImm, Len: 4, Dst: 20, Src: 27, Imm: -0}, true}, // SUB $0<<12, R27, R20
		{ARM64, []byte{0x1b, 0xc4, 0x82, 0xd2}, Insn{Op: OpMovImm, Len: 4, Dst: 27, Imm: 5664}, true},        // MOVD $5664, R27
		{ARM64, []byte{0xe0, 0x03, 0x01, 0xaa}, Insn{Op: OpMove, Len: 4, Dst: 0, Src: 1}, true},              // MOVD R1, R0
		{ARM64, []byte{0xfe, 0x0f, 0x1d, 0xf8}, Insn{}, false},                                               // MOVD.W R30, -48(RSP)
		{ARM64, []byte{0xc0, 0x03, 0x5f}, Insn{}, false},
	} {
		got, ok := Decode(tt.arch, tt.code)
		if ok != tt.ok || got != tt.want {
			t.Errorf("% x: %+v %v, want %+v %v", tt.code, got, ok, tt.want, tt.ok)
		}
	}
}

func loadFrom(mem map[uint64]uint64) func(uint64) (uint64, bool) {
	return func(a uint64) (uint64, bool) {
		v, ok := mem[a]
		return v, ok
	}
}

func TestEmulate(t *testing.T) {
	g := Regs{SP: 0x1000, PC: 0x400}
	g.R[0] = 7
	in, _ := Decode(AMD64, []byte{0x48, 0x89, 0xe5})
	if !Emulate(AMD64, in, &g, nil) || g.R[5] != 0x1000 || g.PC != 0x403 {
		t.Errorf("MOVQ SP, BP: %+v", g)
	}
	in, _ = Decode(AMD64, []byte{0xc3})
	if Emulate(AMD64, in, &g, loadFrom(nil)) || g.PC != 0x403 || g.SP != 0x1000 {
		t.Errorf("RET from an unreadable stack changed the registers: %+v", g)
	}
	if !Emulate(AMD64, in, &g, loadFrom(map[uint64]uint64{0x1000: 0x777})) || g.PC != 0x777 || g.SP != 0x1008 {
		t.Errorf("RET: %+v", g)
	}
	a := Regs{SP: 0x2000, PC: 0x800}
	a.R[30] = 0x999
	in, _ = Decode(ARM64, []byte{0xfd, 0x23, 0x00, 0xd1})
	if !Emulate(ARM64, in, &a, nil) || a.R[29] != 0x1ff8 || a.PC != 0x804 {
		t.Errorf("SUB $8, RSP, R29: %+v", a)
	}
	in, _ = Decode(ARM64, []byte{0xe0, 0x03, 0x1f, 0xaa}) // MOVD ZR, R0
	a.R[0] = 5
	if !Emulate(ARM64, in, &a, nil) || a.R[0] != 0 {
		t.Errorf("MOVD ZR, R0: %+v", a)
	}
	in, _ = Decode(ARM64, []byte{0xc0, 0x03, 0x5f, 0xd6})
	if !Emulate(ARM64, in, &a, nil) || a.PC != 0x999 {
		t.Errorf("RET: %+v", a)
	}
}

func TestSiteRoundTrip(t *testing.T) {
	s := Site{PC: 0x4012345, Code: [MaxInsnLen]byte{0x48, 0x89, 0xe5}, Len: 3, Kind: KindEntry, Arch: AMD64,
		Strings: [MaxStrings]StringRegs{{Ptr: 1, Len: 2}}, NStrings: 1, StringBytes: 16}
	var b [SiteSize]byte
	if s.Put(b[:]) != SiteSize || s.Put(b[:3]) != 0 {
		t.Fatal("Put")
	}
	got, in, e := ParseSite(b[:], AMD64, 9)
	if e != OK || got != s || in.Op != OpMove {
		t.Fatalf("ParseSite: %+v %+v %v", got, in, e)
	}
	for _, tt := range []struct {
		edit func(b []byte)
		arch Arch
		want Err
	}{
		{func(b []byte) {}, ARM64, ErrArch},
		{func(b []byte) { b[13] = byte(KindReturn) }, AMD64, ErrKind},
		{func(b []byte) { b[13] = 9 }, AMD64, ErrKind},
		{func(b []byte) { b[13] = 0 }, AMD64, ErrKind},
		{func(b []byte) { b[12] = 2 }, AMD64, ErrInsn},
		{func(b []byte) { b[11] = 1 }, AMD64, ErrInsn},
		{func(b []byte) { b[15] = 1 }, AMD64, ErrReserved},
		{func(b []byte) { b[23] = 1 }, AMD64, ErrReserved},
		{func(b []byte) { b[16] = 3 }, AMD64, ErrStrings},
		{func(b []byte) { b[17] = MaxStringBytes + 1 }, AMD64, ErrStrings},
		{func(b []byte) { b[16], b[18], b[19] = 1, 9, 1 }, AMD64, ErrStrings},
		{func(b []byte) { b[16], b[20] = 1, 1 }, AMD64, ErrStrings},
	} {
		c := b
		tt.edit(c[:])
		if _, _, e := ParseSite(c[:], tt.arch, 9); e != tt.want {
			t.Errorf("% x: %v, want %v", c, e, tt.want)
		}
	}
	if _, _, e := ParseSite(b[:SiteSize-1], AMD64, 9); e != ErrShort {
		t.Errorf("short: %v", e)
	}
}

func TestDenied(t *testing.T) {
	for name, want := range map[string]bool{
		"github.com/unitrace/unitrace/kernel.trap":                true,
		"github.com/unitrace/unitrace/trace.emit":                 true,
		"github.com/unitrace/unitrace/kernel/syscalls.Getpid":     false,
		"github.com/unitrace/unitrace/kernel/syscalls/files.Read": false,
		"github.com/unitrace/unitrace/kernel/dprobe.Hit":          true,
		"runtime.morestack_noctxt":                                true,
		"main.main":                                               false,
	} {
		if _, got := Denied([]byte(name)); got != want {
			t.Errorf("%s: denied %v", name, got)
		}
	}
}

// FuzzParseSite feeds the kernel's site parser arbitrary bytes: it never panics, what it accepts
// re-encodes to the same bytes, and the instruction decodes the same again and emulates.
func FuzzParseSite(f *testing.F) {
	var b [SiteSize]byte
	s := Site{PC: 0x1000, Code: [MaxInsnLen]byte{0xc3}, Len: 1, Kind: KindReturn, Arch: AMD64}
	s.Put(b[:])
	f.Add(b[:], uint8(AMD64))
	s = Site{PC: 0x2000, Code: [MaxInsnLen]byte{0xfd, 0x23, 0x00, 0xd1}, Len: 4, Kind: KindEntry, Arch: ARM64}
	s.Put(b[:])
	f.Add(b[:], uint8(ARM64))
	f.Fuzz(func(t *testing.T, in []byte, arch uint8) {
		site, insn, e := ParseSite(in, Arch(arch), IntRegs(Arch(arch)))
		if e != OK {
			return
		}
		var out [SiteSize]byte
		site.Put(out[:])
		if !bytes.Equal(out[:], in[:SiteSize]) {
			t.Fatalf("% x re-encoded as % x", in[:SiteSize], out)
		}
		again, ok := Decode(site.Arch, site.Code[:site.Len])
		if !ok || again != insn {
			t.Fatalf("decoded %+v, then %+v %v from the site's own bytes", insn, again, ok)
		}
		g := Regs{SP: 0x8000, PC: site.PC}
		Emulate(site.Arch, insn, &g, func(uint64) (uint64, bool) { return 0x1234, true })
	})
}
