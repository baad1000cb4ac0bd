//go:build arm64

package unwind

import (
	"unsafe"

	"github.com/unitrace/unitrace/arch/arm64"
	"github.com/unitrace/unitrace/kernel/signal"
)

// Reading a saved arm64 context.

// read fills c with a thread's registers from the Frame at fa (an interrupt frame, or a thread's
// saved context) and classifies the stack they run on. The running g is in R28, in both Go
// ABIs.
//
//go:nosplit
func (c *Context) read(fa uintptr) {
	f := (*arm64.Frame)(ptr(fa))
	c.PC, c.SP, c.FP, c.LR = uintptr(f.ELR), uintptr(f.SavedSP), uintptr(f.X[29]), uintptr(f.X[30])
	c.classify(uintptr(f.X[28]))
}

// framePrev is the Prev link of the trap frame at fa: the frame of the trap it nested in, 0 if
// it interrupted a thread.
//
//go:nosplit
func framePrev(fa uintptr) uintptr { return uintptr((*arm64.Frame)(ptr(fa)).Prev) }

// archRule is the table step's rule for arm64's frames.
const archRule = ruleARM64

// frameBytes is the size of a trap frame.
const frameBytes = unsafe.Sizeof(arm64.Frame{})

// signalFrameBytes is how much of a signal frame, from its base, a walk reads: up to the end of
// the frame record above the rt_sigframe.
const signalFrameBytes = signal.ARM64FrameRecord + 16

// signalBase is the base of the signal frame whose restorer the walk met as the return address
// of its frame record w.sig, 0 if it met none: that record, the handler's outermost, saved x29
// as the handler began, the address of the frame record the kernel put above the rt_sigframe.
// A record that points below itself is no such frame (badFrame).
//
//go:nosplit
func (w *Walk) signalBase() uintptr {
	if w.sig == 0 {
		return 0
	}
	rec := load(w.sig) // the walk loaded and checked this word's page already
	if rec < signal.ARM64FrameRecord || rec-signal.ARM64FrameRecord <= w.sig {
		return badFrame
	}
	return rec - signal.ARM64FrameRecord
}

// signalEntry is the base of the signal frame of a handler whose first instruction the context
// is at, 0 if it is at none: the kernel left SP at the frame, x29 at its frame record and x30
// at the restorer.
//
//go:nosplit
func (c *Context) signalEntry() uintptr {
	if !isRestorer(c.LR) || c.FP != c.SP+signal.ARM64FrameRecord {
		return 0
	}
	return c.SP
}

// readSignal reads the context a signal interrupted from the signal frame at base, whose words
// must lie inside w's bounds, and classifies its stack from g, the handler's. The frame record
// above the rt_sigframe holds the interrupted x29 and pc again: a check that this is the frame.
//
//go:nosplit
func (c *Context) readSignal(w *Walk, base, g uintptr) bool {
	if !w.frameWords(base, signalFrameBytes) {
		return false
	}
	rec := base + signal.ARM64FrameRecord
	c.PC, c.SP = load(base+signal.ARM64FramePC), load(base+signal.ARM64FrameSP)
	c.FP, c.LR = load(base+signal.ARM64FrameX29), load(base+signal.ARM64FrameX30)
	if load(rec) != c.FP || load(rec+8) != c.PC || !inText(c.PC) {
		return false
	}
	c.classifyInterrupted(g)
	return true
}
