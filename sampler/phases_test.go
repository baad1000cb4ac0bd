package sampler

import "testing"

// TestPhases: each phase sums its own interrupts; a phase out of range is ignored.
func TestPhases(t *testing.T) {
	var ph Phases
	ph.Add(PhaseRearm, 100)
	ph.Add(PhaseRearm, 300)
	ph.Add(PhaseEOI, 7)
	ph.Add(NumPhases, 1000)
	if sum, n := ph.Total(PhaseRearm); sum != 400 || n != 2 {
		t.Errorf("re-arm = %d ticks over %d, want 400 over 2", sum, n)
	}
	if sum, n := ph.Total(PhaseEOI); sum != 7 || n != 1 {
		t.Errorf("end of interrupt = %d ticks over %d, want 7 over 1", sum, n)
	}
	if sum, n := ph.Total(PhaseSample); sum != 0 || n != 0 {
		t.Errorf("sample = %d ticks over %d, want nothing", sum, n)
	}
	if sum, n := ph.Total(NumPhases); sum != 0 || n != 0 {
		t.Errorf("out-of-range phase = %d ticks over %d, want nothing", sum, n)
	}
	for p := Phase(0); p < NumPhases; p++ {
		if p.String() == "?" || p.String() == "" {
			t.Errorf("phase %d has no name", p)
		}
	}
}
