// Package loadavg keeps the 1, 5 and 15 minute load averages as Linux does (kernel/sched/
// loadavg.c): every Period the number of active threads (running or runnable) is folded into
// three exponentially decaying averages, in fixed point with FShift fraction bits.
//
// The package is kernel-mode Go: pointer-free, allocation-free, never panics on any input.
package loadavg

// FShift is the number of fraction bits of an average (FSHIFT); Fixed1 is 1.0.
const (
	FShift = 11
	Fixed1 = 1 << FShift
)

// Period is how often the averages take a sample: Linux's LOAD_FREQ, 5 s and a tick (at 250 Hz).
const Period = 5_000_000_000 + 4_000_000

// The decay factors per Period: 1/exp(5s/1min), 1/exp(5s/5min), 1/exp(5s/15min) in fixed point.
const (
	exp1  = 1884
	exp5  = 2014
	exp15 = 2037
)

// Avg holds the three averages and when the next sample is due.
type Avg struct {
	Load [3]uint64 // fixed point, FShift fraction bits
	next int64     // when the next sample is due (ns); 0 before the first Update
}

// calc is Linux's calc_load: load decayed by exp towards active (both fixed point), rounded up
// while rising.
func calc(load, exp, active uint64) uint64 {
	n := load*exp + active*(Fixed1-exp)
	if active >= load {
		n += Fixed1 - 1
	}
	return n / Fixed1
}

// maxCatchUp bounds the samples one Update folds in: after this many the averages have decayed
// to the active count anyway (0.9998^n, for the 15-minute one, is below one part in 2^11).
const maxCatchUp = 4096

// Update folds in a sample of active threads for each Period that has ended by now since the
// last sample (the first call only starts the clock). A caller that missed samples gives the
// count it sees now for all of them.
func (a *Avg) Update(now int64, active int) {
	if a.next == 0 {
		a.next = now + Period
		return
	}
	act := uint64(max(active, 0)) * Fixed1
	for i := 0; now >= a.next && i < maxCatchUp; i++ {
		a.Load[0] = calc(a.Load[0], exp1, act)
		a.Load[1] = calc(a.Load[1], exp5, act)
		a.Load[2] = calc(a.Load[2], exp15, act)
		a.next += Period
	}
	if now >= a.next { // more than maxCatchUp periods: the rest change nothing
		a.next = now + Period - (now-a.next)%Period
	}
}

// Due reports whether Update would take a sample at now (or start the clock).
func (a *Avg) Due(now int64) bool { return a.next == 0 || now >= a.next }

// Scaled returns the averages with shift fraction bits (sysinfo's SI_LOAD_SHIFT is 16).
func (a *Avg) Scaled(shift uint) [3]uint64 {
	var out [3]uint64
	for i, l := range a.Load {
		if shift >= FShift {
			out[i] = l << (shift - FShift)
		} else {
			out[i] = l >> (FShift - shift)
		}
	}
	return out
}
