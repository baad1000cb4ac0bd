//go:build amd64

package unwind

import (
	"unsafe"

	"github.com/unitrace/unitrace/arch/amd64"
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

// frameBytes is the size of a trap frame.
const frameBytes = unsafe.Sizeof(amd64.Frame{})
