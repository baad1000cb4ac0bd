package profile

import (
	"math"
	"slices"

	"github.com/unitrace/unitrace/internal/tracefile"
	"github.com/unitrace/unitrace/trace/record"
)

// DefaultHz is the sampler's default rate, the rate assumed when a
// recording says nothing about it.
const DefaultHz = 1000

// rates follows the sampling rate of each CPU through a recording. HELLO
// does not carry the rate, so the starting rate is the first THROTTLE
// record's old rate, or else the median interval between consecutive
// samples of a CPU; each THROTTLE record sets its CPU's rate from then on.
type rates struct {
	startHz float64
	source  string
	cur     map[uint16]float64
}

func newRates(recs []tracefile.Rec) *rates {
	r := &rates{cur: map[uint16]float64{}}
	for i := range recs {
		if old, _, ok := recs[i].Throttle(); ok && old > 0 {
			r.startHz, r.source = float64(old), "from THROTTLE records"
			return r
		}
	}
	last := map[uint16]int64{}
	var gaps []int64
	for i := range recs {
		rec := &recs[i]
		if rec.TPID != record.TPSample {
			continue
		}
		if prev, ok := last[rec.CPU]; ok && rec.Ns > prev {
			gaps = append(gaps, rec.Ns-prev)
		}
		last[rec.CPU] = rec.Ns
	}
	if len(gaps) == 0 {
		r.startHz, r.source = DefaultHz, "assumed: no interval to measure"
		return r
	}
	slices.Sort(gaps)
	median := gaps[len(gaps)/2]
	r.startHz, r.source = math.Max(1, math.Round(1e9/float64(median))), "median sample interval"
	return r
}

// observe takes a THROTTLE record's new rate for its CPU.
func (r *rates) observe(rec *tracefile.Rec) {
	if _, hz, ok := rec.Throttle(); ok && hz > 0 {
		r.cur[rec.CPU] = float64(hz)
	}
}

// period returns the ns one sample of cpu stands for now.
func (r *rates) period(cpu uint16) int64 {
	hz, ok := r.cur[cpu]
	if !ok {
		hz = r.startHz
	}
	return int64(math.Round(1e9 / hz))
}

// PeriodNs is the sampling period at the start of the recording.
func (p *Profile) PeriodNs() int64 { return int64(math.Round(1e9 / p.StartHz)) }
