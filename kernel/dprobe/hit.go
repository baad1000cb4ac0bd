package dprobe

import (
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/probe"
	"github.com/unitrace/unitrace/trace"
	"github.com/unitrace/unitrace/trace/record"
)

// Hit handles a breakpoint trap, f, with interrupts masked, from a thread or from kernel code:
// if a probe's site is at its pc, it records the hit (a PROBE record), emulates the displaced
// instruction in f and reports true. A breakpoint that is no probe's is left to the caller
// (false), unless its site was just removed: then f is set to run the restored instruction.
// It runs on the trap's kernel stack and is not nosplit: the record's walk needs more than the
// nosplit budget, as the sampler's does.
func Hit(f *machine.Frame) bool {
	pc := machine.BreakpointPC(f)
	i := lookup(pc)
	if i < 0 {
		return removedJustNow(f, pc)
	}
	s := &sites[i]
	if s.state.Load() != siteArmed {
		return removedJustNow(f, pc)
	}
	s.hits.Add(1)
	machine.SetFramePC(f, pc) // the record's exact pc is the site's
	record1(f, s)
	var r probe.Regs
	machine.ProbeRegs(f, &r) // its pc is the site's now
	if !probe.Emulate(machine.ProbeArch, s.insn, &r, loadWord) {
		return false // an amd64 RET with an unreadable stack: the caller reports the trap
	}
	machine.SetProbeRegs(f, &r)
	return true
}

// stringSlots is the most slots a hit's string copies take: a header and the bytes of each.
const stringSlots = probe.MaxStrings * (1 + probe.MaxStringBytes/8)

// record1 writes the hit's PROBE record: the registers, then the strings the site copies.
func record1(f *machine.Frame, s *site) {
	const nregs = machine.ProbeIntRegs + machine.ProbeFloatRegs
	var slots [nregs + stringSlots]uint64
	ni, nf := machine.ProbeArgRegs(f, (*[nregs]uint64)(slots[:nregs]))
	n := ni + nf
	strSlots := 0
	for i := 0; i < int(s.nstrings) && i < probe.MaxStrings; i++ {
		r := s.strings[i]
		w := copyString(slots[n:], slots[r.Ptr], slots[r.Len], uint64(s.stringBytes), r.Ptr)
		n += w
		strSlots += w
	}
	info := record.MakeProbeInfo(s.probe, uint8(s.kind), uint8(ni), uint8(nf)) | record.ProbeStrings(s.nstrings, strSlots)
	bt := probes[s.probe].Load()&probeBacktrace != 0
	trace.EmitProbe(info, uint64(s.pc), uint64(machine.FrameSP(f)), slots[:n], bt)
}

// copyString writes a string copy into dst: a header (record.ProbeStringHeader) and up to max
// of the n bytes at ptr, 8 to a slot; it reads the aligned words that hold them, each checked
// mapped once, and returns the slots written. A string whose bytes cannot all be read is copied
// up to the first unreadable word, and says so.
func copyString(dst []uint64, ptr, n, max uint64, ptrReg uint8) int {
	want := min(n, max)
	got := uint64(0)
	unreadable := false
	word, v := ^uint64(0), uint64(0) // the aligned word last read, and its value
	for got < want && 1+int(got/8) < len(dst) {
		a := ptr + got
		if a&^7 != word {
			word = a &^ 7
			if !machine.Readable(uintptr(word)) {
				unreadable = true
				break
			}
			v = *(*uint64)(machine.Ptr(uintptr(word)))
		}
		dst[1+got/8] |= (v >> (8 * (a & 7)) & 0xff) << (8 * (got & 7))
		got++
	}
	dst[0] = record.ProbeStringHeader(got, ptrReg, got < n, unreadable)
	return 1 + int((got+7)/8)
}

// removedJustNow reports whether the instruction at pc is no breakpoint any more (its probe was
// removed after this CPU trapped on it), and if so has f run it.
func removedJustNow(f *machine.Frame, pc uintptr) bool {
	text := machine.BytesAt(pc, uintptr(len(machine.Breakpoint)))
	for i, b := range machine.Breakpoint {
		if text[i] != b {
			machine.SetFramePC(f, pc)
			return true
		}
	}
	return false
}

// loadWord reads the word at a stack address for an emulated return, if it is mapped.
func loadWord(addr uint64) (uint64, bool) {
	if !machine.Readable(uintptr(addr)) {
		return 0, false
	}
	return *(*uint64)(machine.Ptr(uintptr(addr))), true
}
