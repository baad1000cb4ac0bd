package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/unitrace/unitrace/trace"
)

// The profiler's cost measured inside one run (-toggle PHASE, hash only): the workload runs in
// phases of PHASE, profiler off and on in turn, starting and ending off, and each on phase's
// throughput is set against the mean of the off phases on either side of it. A host whose speed
// drifts over seconds (a shared machine's does, by a third) slows both sides of a pair alike,
// which separate runs compared by their medians cannot promise. It prints, after the usual
// lines,
//
//	groundtruth: toggle phase=PHASE pairs=N overhead=P% (median of the pairs; each: P1 P2 ...)
//
// The profiler is switched by the workload itself: in a unitrace guest the kernel's sampler, by
// the tracer's control call (the sampler needs the trace ports: boot with unitrace run -o);
// under Linux, perf record started with its events disabled (-D -1) and a control FIFO pair
// (--control fifo:CTL,ACK), which -perf-control CTL,ACK names.

// toggleOpts are the -toggle flags.
type toggleOpts struct {
	phase       time.Duration
	hz          uint
	perfControl string
}

func (t *toggleOpts) register(fs *flag.FlagSet) {
	fs.DurationVar(&t.phase, "toggle", 0, "run hash in phases of `duration`, profiler off and on in turn, and print the profiler's overhead")
	fs.UintVar(&t.hz, "toggle-hz", 1000, "the sampler's rate in the on phases (unitrace)")
	fs.StringVar(&t.perfControl, "perf-control", "", "switch perf record through its control FIFOs `ctl,ack` instead of the unitrace sampler")
}

// profilerSwitch turns the profiler's sampling on and off.
type profilerSwitch interface {
	set(on bool) error
}

// samplerSwitch is the unitrace kernel's sampler, through the tracer's control call.
type samplerSwitch struct{ hz uint }

func (s samplerSwitch) set(on bool) error {
	op, hz := uintptr(trace.CtlSamplerStop), uintptr(0)
	if on {
		op, hz = trace.CtlSamplerStart, uintptr(s.hz)
	}
	if _, _, errno := syscall.Syscall(trace.SysCtl, op, hz, 0); errno != 0 {
		return fmt.Errorf("the sampler's control call: %w", errno)
	}
	return nil
}

// perfSwitch is perf record's control FIFO and its acknowledgement FIFO.
type perfSwitch struct{ ctl, ack *os.File }

func openPerfSwitch(spec string) (*perfSwitch, error) {
	ctlPath, ackPath, ok := strings.Cut(spec, ",")
	if !ok {
		return nil, fmt.Errorf("-perf-control %q: want CTL,ACK", spec)
	}
	ctl, err := os.OpenFile(ctlPath, os.O_WRONLY, 0)
	if err != nil {
		return nil, err
	}
	ack, err := os.Open(ackPath)
	if err != nil {
		ctl.Close()
		return nil, err
	}
	return &perfSwitch{ctl, ack}, nil
}

func (p *perfSwitch) set(on bool) error {
	cmd := "disable\n"
	if on {
		cmd = "enable\n"
	}
	if _, err := p.ctl.WriteString(cmd); err != nil {
		return err
	}
	var b [16]byte
	n, err := p.ack.Read(b[:])
	if err != nil {
		return fmt.Errorf("perf's acknowledgement: %w", err)
	}
	if got := strings.TrimRight(string(b[:n]), "\x00\n"); got != "ack" { // perf writes "ack\n\x00"
		return fmt.Errorf("perf acknowledged %q", got)
	}
	return nil
}

// toggleHash runs outerWorkload in phases of phase until d has passed (an odd number of
// phases, at least three), switching sw on for the odd ones. It returns the whole run's result
// and each phase's throughput (units per second).
func toggleHash(d, phase time.Duration, sw profilerSwitch) (result, []float64, error) {
	n := max(int(d/phase), 3) | 1
	var total result
	rates := make([]float64, 0, n)
	for i := 0; i < n; i++ {
		if err := sw.set(i%2 == 1); err != nil {
			return total, nil, err
		}
		start := time.Now()
		r := outerWorkload(phase)
		rates = append(rates, float64(r.units)/time.Since(start).Seconds())
		total.calls += r.calls
		total.units += r.units
		total.checksum ^= r.checksum
	}
	return total, rates, sw.set(false)
}

// pairOverheads returns, for each on phase (odd index), the share of throughput it lost against
// the mean of the off phases on either side.
func pairOverheads(rates []float64) []float64 {
	var o []float64
	for i := 1; i+1 < len(rates); i += 2 {
		off := (rates[i-1] + rates[i+1]) / 2
		if off > 0 {
			o = append(o, 1-rates[i]/off)
		}
	}
	return o
}

// toggleLine formats the toggle report.
func toggleLine(phase time.Duration, overheads []float64) string {
	if len(overheads) == 0 {
		return "groundtruth: toggle phase=" + phase.String() + " pairs=0"
	}
	s := slices.Clone(overheads)
	slices.Sort(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	var b strings.Builder
	fmt.Fprintf(&b, "groundtruth: toggle phase=%v pairs=%d overhead=%.2f%% (median of the pairs; each:", phase, len(s), 100*med)
	for _, v := range overheads {
		fmt.Fprintf(&b, " %.2f", 100*v)
	}
	b.WriteString(")")
	return b.String()
}

// profilerFor returns the switch the flags ask for.
func (t *toggleOpts) profilerFor() (profilerSwitch, error) {
	if t.perfControl != "" {
		return openPerfSwitch(t.perfControl)
	}
	if t.hz == 0 {
		return nil, errors.New("-toggle-hz 0")
	}
	return samplerSwitch{t.hz}, nil
}
