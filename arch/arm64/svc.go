package arm64

// System calls without the SVC exception.
//
// Under QEMU's TCG an exception is the dearest thing a guest can do: the emulator leaves the
// translated code with a long jump, takes its global lock to deliver the exception, rebuilds its
// cached CPU flags on the way in and again at ERET, and looks the next block up from scratch
// both times. A Go program's system call on arm64 is an SVC #0 in one of a few dozen runtime
// stubs, and every thread runs at EL1 like the kernel, so the kernel can rewrite such an
// instruction into a branch to a stub of its own (a slot, trap_arm64.s) that builds the same
// Frame an SVC exception would and calls the same trap handler, and returns by a branch too.
//
// A site is rewritten only after it raised an SVC exception from a thread: the hardware's word
// that the four bytes there are an instruction (not a literal pool's constant that looks like
// one), and the Frame says the thread's PSTATE was plain (EL1t, nothing masked). SVC and B are
// both in the Arm ARM's list of instructions that may be swapped under another CPU's feet
// (B2.2.5, concurrent modification and execution of instructions): a CPU that still fetches the
// SVC takes the exception, as before. Slots are never freed: the program's text never goes
// away, and a program has a few dozen call sites.
//
// The branch path differs from the exception in one register: it returns to the thread with x18
// holding the return address (it needs a register for the indirect branch, and x18 is the
// platform register, which Go never uses). Frame.Jump marks such a context.

const (
	// SVCInstruction is SVC #0 (Arm ARM C6.2.365): Linux's system call.
	SVCInstruction = 0xd400_0001
	// NumSVCSlots is how many call sites can be rewritten; the rest keep their SVC.
	NumSVCSlots = 128
	// SVCSlotBytes is one slot's size in trap_arm64.s (tests/layout checks the linked table).
	SVCSlotBytes = 32
	// svcESR is the syndrome an SVC #0 from AArch64 reports: class SVC64, 32-bit instruction.
	svcESR = ECSVC64<<esrECShift | esrIL
	// spsrNZCV are SPSR's condition flags, the one part of a thread's PSTATE the slot reads
	// (MRS NZCV puts them at the same bits).
	spsrNZCV = 0xf000_0000
	// branchOp is B's opcode (Arm ARM C6.2.26): imm26 words from the instruction.
	branchOp    = 0x1400_0000
	branchReach = 1 << 27 // bytes either way
)

// svcReturns holds, for each claimed slot, the return address of its call site (the
// instruction after it): the slot's Frame.ELR.
var svcReturns [NumSVCSlots]uint64

// svcSlotsUsed is how many slots are claimed. Written under the kernel lock only; read without
// it by SVCSlotsLeft, a hint that claimSVCSlot checks again under the lock.
var svcSlotsUsed uint32

// SVCBranchable reports whether word, the instruction before a thread's SVC exception's return
// address, is SVC #0 and spsr (the exception's) a thread's plain PSTATE: a site to rewrite.
func SVCBranchable(word uint32, spsr uint64) bool {
	return word == SVCInstruction && spsr&^spsrNZCV == SPSRModeEL1t
}

// SVCSlotsLeft reports whether a call site can still be given a slot.
func SVCSlotsLeft() bool { return svcSlotsUsed < NumSVCSlots }

// SVCSlotsUsed returns how many call sites have been rewritten into branches.
func SVCSlotsUsed() int { return int(svcSlotsUsed) }

// claimSVCSlot gives the SVC at site the next slot of the table at slots and returns the
// branch instruction to write over it; false when no slot is left or the slots are out of a
// branch's reach. The caller holds the kernel lock and writes the instruction.
func claimSVCSlot(site, slots uintptr) (uint32, bool) {
	k := svcSlotsUsed
	if k >= NumSVCSlots {
		return 0, false
	}
	insn, ok := branchTo(site, slots+uintptr(k)*SVCSlotBytes)
	if !ok {
		return 0, false
	}
	svcReturns[k] = uint64(site) + 4
	svcSlotsUsed = k + 1
	return insn, true
}

// branchTo encodes B from the instruction at from to to; false when to is out of reach or
// either is not 4-byte aligned.
func branchTo(from, to uintptr) (uint32, bool) {
	off := int64(to) - int64(from)
	if from&3 != 0 || to&3 != 0 || off < -branchReach || off >= branchReach {
		return 0, false
	}
	return branchOp | uint32(off>>2)&0x3ff_ffff, true
}
