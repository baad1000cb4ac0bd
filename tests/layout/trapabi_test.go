package layout

import (
	"debug/elf"
	"fmt"
	"testing"

	"golang.org/x/arch/x86/x86asm"
)

// TestTrapRegisterABI: amd64's trapCommon calls the kernel's trap function by Go's register ABI
// (arch/amd64/trap_amd64.s), doing what the function's ABI0 wrapper does: its one argument in
// RAX, g in R14 from the TLS slot (FS:-8), X15 zeroed, then a direct call. This reads the wrapper
// the toolchain generated and checks that it still does exactly that, so a change in the ABI
// fails here and not in the guest.
func TestTrapRegisterABI(t *testing.T) {
	im := openImage(t, build(t, "amd64", "examples/hello"))
	wrapper, err := im.symbol(module + "/kernel.trap.abi0")
	if err != nil {
		t.Fatal(err)
	}
	trap, err := im.symbol(module + "/kernel.trap")
	if err != nil {
		t.Fatal(err)
	}
	code, err := im.bytes(wrapper.Value, int(wrapper.Size))
	if err != nil {
		t.Fatal(err)
	}
	var argToRAX, zeroX15, gToR14, calls bool
	for pc := wrapper.Value; len(code) > 0; {
		inst, err := x86asm.Decode(code, 64)
		if err != nil {
			t.Fatalf("%#x: %v", pc, err)
		}
		switch text := x86asm.GoSyntax(inst, pc, nil); {
		case inst.Op == x86asm.MOV && inst.Args[0] == x86asm.RAX && isStackLoad(inst.Args[1]):
			argToRAX = true
		case inst.Op == x86asm.XORPS && inst.Args[0] == x86asm.X15 && inst.Args[1] == x86asm.X15:
			zeroX15 = true
		case inst.Op == x86asm.MOV && inst.Args[0] == x86asm.R14 && text == "MOVQ FS:0xfffffff8, R14":
			gToR14 = true
		case inst.Op == x86asm.CALL:
			rel, ok := inst.Args[0].(x86asm.Rel)
			if !ok || pc+uint64(inst.Len)+uint64(int64(rel)) != trap.Value {
				t.Fatalf("%#x: %s: the wrapper calls something other than kernel.trap", pc, text)
			}
			calls = argToRAX && zeroX15 && gToR14
		}
		pc += uint64(inst.Len)
		code = code[inst.Len:]
	}
	if !calls {
		t.Errorf("kernel.trap's ABI0 wrapper no longer loads its argument into RAX (%v), zeroes X15 (%v) and loads g into R14 from FS:-8 (%v) before it calls: update trapCommon's direct call",
			argToRAX, zeroX15, gToR14)
	}
}

// isStackLoad reports whether a is a memory operand based on SP (the ABI0 argument).
func isStackLoad(a x86asm.Arg) bool {
	m, ok := a.(x86asm.Mem)
	return ok && m.Base == x86asm.RSP && m.Segment == 0
}

// bytes reads n bytes at addr.
func (im *elfImage) bytes(addr uint64, n int) ([]byte, error) {
	for _, sec := range im.f.Sections {
		if addr < sec.Addr || addr+uint64(n) > sec.Addr+sec.Size || sec.Type == elf.SHT_NOBITS {
			continue
		}
		b := make([]byte, n)
		if _, err := sec.ReadAt(b, int64(addr-sec.Addr)); err != nil {
			return nil, err
		}
		return b, nil
	}
	return nil, fmt.Errorf("%#x is in no section with contents", addr)
}
