package agent

import (
	"syscall"
	"unsafe"

	"github.com/unitrace/unitrace/trace"
)

// clockPair reads the tick counter that stamps records together with the monotonic clock the
// program sees (ns since boot) and the wall clock. On amd64 the kernel's clocks are computed
// from the same TSC, so a CLOCK pair checks that records and the program's clock agree (one
// rate, no jumps), not the TSC against an outside reference.
func clockPair() (ticks, ns uint64, unixNs int64) {
	var mono, wall syscall.Timespec
	ticks = trace.Ticks()
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 1 /* CLOCK_MONOTONIC */, uintptr(unsafe.Pointer(&mono)), 0)
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 0 /* CLOCK_REALTIME */, uintptr(unsafe.Pointer(&wall)), 0)
	return ticks, uint64(mono.Nano()), wall.Nano()
}
