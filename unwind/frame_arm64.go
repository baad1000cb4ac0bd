//go:build arm64

package unwind

import (
	"unsafe"

	"github.com/unitrace/unitrace/arch/arm64"
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

// frameBytes is the size of a trap frame.
const frameBytes = unsafe.Sizeof(arm64.Frame{})
