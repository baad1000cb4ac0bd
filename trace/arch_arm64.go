//go:build arm64 && !unitrace_host

package trace

import "github.com/unitrace/unitrace/arch/arm64"

// The few machine facts the emit path needs, from the hardware layer.

//go:nosplit
func cpuIndex() int { return int(arm64.CPUIndex()) }

//go:nosplit
func ticks() uint64 { return arm64.Ticks() }

//go:nosplit
func irqSave() uint64 { return arm64.IRQSave() }

//go:nosplit
func irqRestore(f uint64) { arm64.IRQRestore(f) }
