package profile

import (
	"golang.org/x/arch/arm64/arm64asm"
	"golang.org/x/arch/x86/x86asm"

	"github.com/unitrace/unitrace/trace/wire"
)

// callEndsAt reports whether code (the bytes just before a candidate return
// address) ends with a call instruction. It is the leaf fix's last check:
// a word taken from the stack is a return address only if a call pushed it
// (amd64) or set LR to it (arm64). A signal trampoline's restorer address,
// or data that happens to point into text, fails it.
func callEndsAt(arch wire.Arch, code []byte) bool {
	switch arch {
	case wire.ArchAMD64:
		// x86 cannot be decoded backwards: try every length a call can
		// have and keep one that decodes to a call of exactly that length.
		for n := 2; n <= len(code) && n <= 15; n++ {
			inst, err := x86asm.Decode(code[len(code)-n:], 64)
			if err == nil && inst.Len == n && inst.Op == x86asm.CALL {
				return true
			}
		}
	case wire.ArchARM64:
		if len(code) < 4 {
			return false
		}
		inst, err := arm64asm.Decode(code[len(code)-4:])
		if err != nil {
			return false
		}
		return inst.Op == arm64asm.BL || inst.Op == arm64asm.BLR
	}
	return false
}
