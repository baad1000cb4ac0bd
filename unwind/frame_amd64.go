//go:build amd64

package unwind

import (
	"unsafe"

	"github.com/unitrace/unitrace/arch/amd64"
	"github.com/unitrace/unitrace/kernel/signal"
)

// Reading a saved amd64 context: the guest's, and the host tests' synthetic frames.

// read fills c with a thread's registers from the Frame at fa (an interrupt frame, or a thread's
// saved context) and classifies the stack they run on. The runtime keeps the running g at
// -8(FS), so the frame's FS base finds it.
//
//go:nosplit
func (c *Context) read(fa uintptr) {
	f := (*amd64.Frame)(ptr(fa))
	c.PC, c.SP, c.FP, c.LR = uintptr(f.RIP), uintptr(f.RSP), uintptr(f.RBP), 0
	tls := uintptr(f.FSBase)
	g := uintptr(0)
	if tls >= 8 && readable(tls-8) {
		g = load(tls - 8)
	}
	c.classify(g)
}

// framePrev is the Prev link of the trap frame at fa: the frame of the trap it nested in, 0 if
// it interrupted a thread.
//
//go:nosplit
func framePrev(fa uintptr) uintptr { return uintptr((*amd64.Frame)(ptr(fa)).Prev) }

// archRule is the table step's rule for amd64's frames.
const archRule = ruleAMD64

// frameBytes is the size of a trap frame.
const frameBytes = unsafe.Sizeof(amd64.Frame{})

// signalFrameBytes is how much of a signal frame, from its base, a walk reads.
const signalFrameBytes = signal.AMD64FrameRIP + 8

// signalBase is the base of the signal frame whose restorer the walk met as the return address
// of its frame record w.sig, 0 if it met none: the restorer is the frame's first word
// (rt_sigframe.pretcode), so the frame begins at the record's return-address slot.
//
//go:nosplit
func (w *Walk) signalBase() uintptr {
	if w.sig == 0 {
		return 0
	}
	return w.sig + 8
}

// signalEntry is the base of the signal frame of a handler that the context is at the first
// instruction of, or has returned from into its restorer, 0 if neither: the kernel left SP at
// the frame, whose first word is the restorer, and the handler's return popped that word.
//
//go:nosplit
func (c *Context) signalEntry() uintptr {
	if c.SP&7 != 0 || c.SP < 8 {
		return 0
	}
	if readable(c.SP) && isRestorer(load(c.SP)) {
		return c.SP
	}
	if readable(c.SP - 8) {
		if r := load(c.SP - 8); isRestorer(r) && c.PC-r < restorerCodeBytes {
			return c.SP - 8
		}
	}
	return 0
}

// restorerCodeBytes bounds a restorer's code: the Go runtime's loads the system call's number
// and makes it (MOVQ $15, AX; SYSCALL), and a thread in rt_sigreturn is there.
const restorerCodeBytes = 16

// readSignal reads the context a signal interrupted from the signal frame at base, whose words
// must lie inside w's bounds, and classifies its stack from g, the handler's.
//
//go:nosplit
func (c *Context) readSignal(w *Walk, base, g uintptr) bool {
	if !w.frameWords(base, signalFrameBytes) {
		return false
	}
	c.PC, c.SP, c.FP, c.LR = load(base+signal.AMD64FrameRIP), load(base+signal.AMD64FrameRSP), load(base+signal.AMD64FrameRBP), 0
	if !inText(c.PC) {
		return false
	}
	c.classifyInterrupted(g)
	return true
}
