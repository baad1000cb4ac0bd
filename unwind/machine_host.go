//go:build unitrace_host

package unwind

import "github.com/unitrace/unitrace/symtab"

// The machine in a host process (the unitrace_host build, for host tests and the tracer's host
// benchmarks). A host process is never inside an interrupt handler: the tracer's sample path
// falls back to the ordinary walk, as the guest does outside one. hostMachine stands in for the
// guest's page tables, kernel stacks and text, so that host tests can run the walks across trap
// frames (traps.go) on synthetic frames and stacks, garbage included. Its zero value is the
// benchmark's: any aligned word is readable, there are no kernel stacks, no trap frame.
var hostMachine hostMachineState

type hostMachineState struct {
	memLo, memHi       uintptr    // readable words, when memHi != 0
	kstackLo, kstackHi uintptr    // the one kernel stack, when kstackHi != 0
	textLo, textHi     uintptr    // what counts as code for return addresses
	frame              uintptr    // the current trap frame (0: none, as in a plain process)
	funcs              []hostFunc // the function table the table steps read (funcFrame)
}

// CurrentFrame is the frame of the trap being handled: hostMachine's, 0 unless a test set one.
//
//go:nosplit
func CurrentFrame() uintptr { return hostMachine.frame }

//go:nosplit
func readable(va uintptr) bool {
	m := &hostMachine
	return va&7 == 0 && (m.memHi == 0 || va >= m.memLo && va+8 <= m.memHi && va+8 > va)
}

//go:nosplit
func textRange() (lo, hi uintptr) { return hostMachine.textLo, hostMachine.textHi }

// frameBelowSP: see machine_amd64.go.
const frameBelowSP = 0

//go:nosplit
func kernelStackBounds(sp uintptr) (lo, hi uintptr, ok bool) {
	m := &hostMachine
	if m.kstackHi == 0 || sp < m.kstackLo || sp >= m.kstackHi {
		return 0, 0, false
	}
	return m.kstackLo, m.kstackHi, true
}

// hostFunc is one function of the host machine's stand-in for the image's function table: a
// text range with one SP delta throughout, and its flags.
type hostFunc struct {
	lo, hi uintptr
	delta  int32
	flag   symtab.FuncFlag
}

// funcFrame looks pc up in hostMachine.funcs, the synthetic function table of a test (none:
// walks follow the frame pointers alone, as a guest whose table did not load).
func funcFrame(pc uintptr) (delta int32, flag symtab.FuncFlag, ok bool) {
	for _, f := range hostMachine.funcs {
		if pc >= f.lo && pc < f.hi {
			return f.delta, f.flag, f.delta >= 0
		}
	}
	return 0, 0, false
}
