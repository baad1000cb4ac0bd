package trace

import "github.com/unitrace/unitrace/trace/ring"

// enterEmit masks interrupts and takes this CPU's emit slot for a record of the kernel's own
// (a goroutine sample, a wake-up): it returns the CPU's state, nil when there is none or an emit
// is already in progress on this CPU (that drop is counted, as a nested one), and the interrupt
// state leaveEmit restores.
//
//go:nosplit
func enterEmit() (*cpuState, uint64) {
	irq := irqSave()
	cpu := cpuIndex()
	if cpu < 0 || cpu >= MaxCPUs {
		irqRestore(irq)
		return nil, 0
	}
	cs := &cpus[cpu]
	if cs.inEmit.Load() != 0 {
		cs.ring.Drop(ring.CauseNested)
		irqRestore(irq)
		return nil, 0
	}
	cs.inEmit.Store(1)
	return cs, irq
}

// leaveEmit gives the slot enterEmit took back and restores the interrupt state.
//
//go:nosplit
func leaveEmit(cs *cpuState, irq uint64) {
	cs.inEmit.Store(0)
	irqRestore(irq)
}
