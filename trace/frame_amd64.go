//go:build amd64

package trace

import (
	"unsafe"

	"github.com/unitrace/unitrace/arch/amd64"
)

// Reading a saved amd64 context: the guest's, and the host tests' synthetic frames.

// contextAt reads into c a thread's registers from the Frame at fa (an interrupt frame, or a thread's
// saved context) and classifies the stack they run on.
//
//go:nosplit
func contextAt(fa uintptr, c *interrupted) {
	f := (*amd64.Frame)(ptr(fa))
	c.pc, c.sp, c.fp, c.tls = uintptr(f.RIP), uintptr(f.RSP), uintptr(f.RBP), uintptr(f.FSBase)
	g := uintptr(0)
	if c.tls >= 8 && readable(c.tls-8) {
		g = load(c.tls - 8)
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
