package agent

import (
	"syscall"
	"unsafe"

	"github.com/unitrace/unitrace/trace"
)

// clockTries is how many times clockPair brackets the monotonic clock read; it keeps the
// tightest bracket. One try is enough on an idle machine, but a vCPU that the host deschedules
// between the two reads (common under TCG with more vCPUs than host cores) skews a single pair
// by tens of milliseconds, which across pairs a second apart reads as a tick rate off by
// several percent.
const clockTries = 8

// clockPair reads the tick counter that stamps records together with the monotonic clock the
// program sees (ns since boot) and the wall clock. On amd64 the kernel's clocks are computed
// from the same TSC, so a CLOCK pair checks that records and the program's clock agree (one
// rate, no jumps), not the TSC against an outside reference.
//
// The tick count is the midpoint of ticks read just before and just after the monotonic clock,
// from the try with the narrowest gap between them, so the pair's own error is at most half
// that gap.
func clockPair() (ticks, ns uint64, unixNs int64) {
	best := ^uint64(0)
	for range clockTries {
		var mono syscall.Timespec
		before := trace.Ticks()
		syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 1 /* CLOCK_MONOTONIC */, uintptr(unsafe.Pointer(&mono)), 0)
		after := trace.Ticks()
		if gap := after - before; after >= before && gap < best {
			best = gap
			ticks = before + gap/2
			ns = uint64(mono.Nano())
		}
	}
	var wall syscall.Timespec
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 0 /* CLOCK_REALTIME */, uintptr(unsafe.Pointer(&wall)), 0)
	return ticks, ns, wall.Nano()
}
