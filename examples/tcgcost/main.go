// Command tcgcost measures what single instructions and short sequences cost in the guest: under
// QEMU's TCG the price of an instruction has little to do with a real CPU's (a call's return is
// a lookup of the next translated block, a TSC read is a helper, a local APIC access takes
// QEMU's global lock). The kernel's trap paths were shaped by these numbers
// (docs/measurements.md).
//
// Each primitive is an assembly function (prim_ARCH.s) called 5000 times in each of 40 batches;
// it prints the fastest batch's time per call and that less the empty function's, the cost of
// the primitive itself. It runs at ring 0 / EL1 inside a unitrace image only: several of the
// primitives are privileged.
package main

import (
	"fmt"
	"slices"
	"time"

	_ "github.com/unitrace/unitrace/kernel"
)

// primitive is one measured sequence: fn runs it once.
type primitive struct {
	name, what string
	fn         func()
}

func main() {
	base := fastest(empty)
	fmt.Printf("tcgcost: %-10s %7.1f ns per call (the call and return alone)\n", "empty", base)
	for _, p := range primitives {
		ns := fastest(p.fn)
		fmt.Printf("tcgcost: %-10s %7.1f ns, %7.1f ns over empty: %s\n", p.name, ns, ns-base, p.what)
	}
}

// fastest is the time of one call of fn in the fastest of 40 batches of 5000: the least
// disturbed by the host.
func fastest(fn func()) float64 {
	const batches, calls = 40, 5000
	ds := make([]float64, 0, batches)
	for range batches {
		start := time.Now()
		for range calls {
			fn()
		}
		ds = append(ds, float64(time.Since(start).Nanoseconds())/calls)
	}
	return slices.Min(ds)
}
