package amd64

// Descriptor encodings (Intel SDM vol. 3A §3.4.5 segment descriptors, §7.2.3 the 64-bit TSS
// descriptor, §6.14.1 64-bit IDT gates, §7.7 the 64-bit TSS). Pure functions: tested on the host.

const (
	gdtKernelCode = 0x00af9a000000ffff // present, DPL 0, code, execute/read, L=1
	gdtKernelData = 0x00cf92000000ffff // present, DPL 0, data, read/write
	tssSelector   = 0x18
	tssLimit      = 103  // a 104-byte TSS with no I/O permission bitmap
	gateInterrupt = 0x8e // present, DPL 0, 64-bit interrupt gate (clears IF)
)

// tssDescriptor returns the two GDT words of an available 64-bit TSS at base.
func tssDescriptor(base uint64) (lo, hi uint64) {
	lo = tssLimit&0xffff | (base&0xffffff)<<16 | 0x89<<40 | (tssLimit>>16&0xf)<<48 | (base>>24&0xff)<<56
	hi = base >> 32
	return lo, hi
}

// idtGate returns the two words of an interrupt gate to handler on stack table entry ist (1-7).
func idtGate(handler uint64, ist uint8) (lo, hi uint64) {
	lo = handler&0xffff | KernelCS<<16 | uint64(ist&7)<<32 | gateInterrupt<<40 | (handler>>16&0xffff)<<48
	hi = handler >> 32
	return lo, hi
}

// IST slots of the TSS: every gate has one, so the CPU always switches to a known-good kernel
// stack, even though everything runs at ring 0 (where it would otherwise stay on the
// interrupted goroutine's stack).
const (
	istIRQ         = 1 // device and timer interrupts
	istException   = 2 // faults and traps (a kernel fault during an IRQ still gets a clean stack)
	istDoubleFault = 3
	istNMI         = 4
	istMachineChk  = 5
	istSampler     = 6 // the sampler's vector: it nests in the handlers of every other IRQ stack
	// istBreakpoint: a dynamic probe's INT3, which may be hit in kernel code running on any
	// other IST stack (a fault's handler, for one); its handler never takes another.
	istBreakpoint = 7
	numIST        = 7
)

// istFor returns the IST slot for vector v.
func istFor(v int) uint8 {
	switch {
	case v == VectorNMI:
		return istNMI
	case v == VectorDoubleFault:
		return istDoubleFault
	case v == VectorMachineCheck:
		return istMachineChk
	case v == VectorSampler:
		return istSampler
	case v == VectorBreakpoint:
		return istBreakpoint
	case v < FirstExternalVector:
		return istException
	}
	return istIRQ
}

// putTSSIST stores stack top for IST slot n (1-7) into a 64-bit TSS image.
func putTSSIST(tss *[104]byte, n int, top uint64) {
	off := 36 + (n-1)*8
	for i := 0; i < 8; i++ {
		tss[off+i] = byte(top >> (8 * i))
	}
}

// putPseudoDescriptor writes the 10-byte operand of LGDT/LIDT.
func putPseudoDescriptor(p *[16]byte, base uint64, limit uint16) {
	p[0] = byte(limit)
	p[1] = byte(limit >> 8)
	for i := 0; i < 8; i++ {
		p[2+i] = byte(base >> (8 * i))
	}
}
