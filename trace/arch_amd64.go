//go:build amd64 && !unitrace_host

package trace

import "github.com/unitrace/unitrace/arch/amd64"

// The few machine facts the emit path needs, from the hardware layer.

//go:nosplit
func cpuIndex() int { return int(amd64.CPUIndex()) }

//go:nosplit
func ticks() uint64 { return amd64.Rdtsc() }

//go:nosplit
func irqSave() uint64 { return amd64.IRQSave() }

//go:nosplit
func irqRestore(f uint64) { amd64.IRQRestore(f) }
