package sampler

// Phases accounts where one CPU's timer interrupts spend their time while the sampler runs,
// phase by phase, for the kernel's exit report (unitrace.debug=samplecost): the numbers behind
// the per-sample breakdown in docs/measurements.md. Only that CPU writes it, from its timer
// interrupt, so it needs no locks; sums, not percentiles, because what profiling costs a program
// is the sum.
type Phases struct {
	sum   [NumPhases]uint64
	count [NumPhases]uint64
}

// Phase is one step of the sampler's interrupt.
type Phase uint8

const (
	// PhaseEntry runs from the trap's first instruction (the entry stub's timestamp) to the
	// handler: saving the interrupted context and dispatching on the vector.
	PhaseEntry Phase = iota
	// PhaseEOI is the end-of-interrupt write to the interrupt controller.
	PhaseEOI
	// PhaseSample is the sample itself: the walk and the record's emission (only interrupts
	// that found a sample due).
	PhaseSample
	// PhaseHandOn is raising the scheduler tick's interrupt for later, where one timer serves
	// both (only interrupts that found the tick due).
	PhaseHandOn
	// PhaseRearm is arming the timer for the next deadline.
	PhaseRearm
	NumPhases
)

var phaseNames = [NumPhases]string{"entry", "end of interrupt", "sample", "tick hand-on", "re-arm"}

// String names the phase for the report.
func (p Phase) String() string {
	if p >= NumPhases {
		return "?"
	}
	return phaseNames[p]
}

// Add accounts ticks spent in phase p by one interrupt.
func (ph *Phases) Add(p Phase, ticks uint64) {
	if p >= NumPhases {
		return
	}
	ph.sum[p] += ticks
	ph.count[p]++
}

// Total returns the ticks spent in phase p and how many interrupts went through it.
func (ph *Phases) Total(p Phase) (ticks, n uint64) {
	if p >= NumPhases {
		return 0, 0
	}
	return ph.sum[p], ph.count[p]
}
