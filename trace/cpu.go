package trace

import (
	"sync/atomic"

	"github.com/unitrace/unitrace/trace/ring"
)

// MaxCPUs is how many CPUs the tracer keeps rings for.
const MaxCPUs = 64

// cpuState is one CPU's tracer state. Only that CPU writes it (with interrupts masked), except
// the ring's consumer side, which the drain goroutine owns.
type cpuState struct {
	ring   ring.Ring
	inEmit atomic.Uint32 // non-zero while this CPU is inside emit: a nested emit is dropped
	tid    atomic.Uint32 // the thread running on this CPU, set by the scheduler

	truncatedStacks atomic.Uint64 // walks that stopped at the depth cap
	walkStops       atomic.Uint64 // walks ended by a failed check
	samplerTicks    atomic.Uint64 // the sampler's counters, as the kernel reports them
	samplerLate     atomic.Uint64
	throttled       atomic.Uint64
}

var cpus [MaxCPUs]cpuState

// SetupRing gives CPU cpu its ring: size bytes of memory at base (a power of two, from
// ring.MinSize to ring.MaxSize), in the given mode. Records emitted before this are dropped and
// counted (cause: early).
func SetupRing(cpu int, base uintptr, size uint64, mode ring.Mode) bool {
	if cpu < 0 || cpu >= MaxCPUs {
		return false
	}
	return cpus[cpu].ring.Init(base, size, uint16(cpu), mode)
}

// Ring returns CPU cpu's ring, for the drain goroutine.
func Ring(cpu int) *ring.Ring {
	if cpu < 0 || cpu >= MaxCPUs {
		return nil
	}
	return &cpus[cpu].ring
}

// SetThread records which thread now runs on CPU cpu; every record carries it.
//
//go:nosplit
func SetThread(cpu int, tid uint32) {
	if cpu >= 0 && cpu < MaxCPUs {
		cpus[cpu].tid.Store(tid)
	}
}
