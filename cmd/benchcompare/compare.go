package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"time"
)

// Timeouts for one guest's steps; a step that takes longer fails the run.
const (
	bootTimeout  = 2 * time.Minute
	batchTimeout = 2 * time.Minute
	quitTimeout  = time.Minute
)

// comparison is what a round boots and runs.
type comparison struct {
	uni, lin guest
	microvm  *guest   // unitrace on microvm, for the boot row; nil for none
	only     []string // the workloads to run; all the guest has when empty
	batches  int
	log      io.Writer
}

// result is what one guest measured in a round: QEMU's start to the guest's first line, and
// each workload's fastest batch by name.
type result struct {
	boot   time.Duration
	names  []string // the workloads in the order they ran: the guest's own
	values map[string]float64
	units  map[string]string
}

// round boots the guests and runs every workload's batches in both, alternating, and returns
// unitrace's result, Linux's and (with microvm) the microvm boot's.
func (c comparison) round() ([3]result, error) {
	var res [3]result
	if c.microvm != nil {
		mv, err := c.microvm.start(bootTimeout)
		if err != nil {
			return res, fmt.Errorf("%s: %w", c.microvm.name, err)
		}
		res[2].boot = mv.boot
		if err := mv.quit(quitTimeout); err != nil {
			return res, err
		}
	}
	uni, err := c.uni.start(bootTimeout)
	if err != nil {
		return res, fmt.Errorf("%s: %w", c.uni.name, err)
	}
	defer uni.kill()
	lin, err := c.lin.start(bootTimeout)
	if err != nil {
		return res, fmt.Errorf("%s: %w", c.lin.name, err)
	}
	defer lin.kill()
	fmt.Fprintf(c.log, "benchcompare: booted: %s %v, %s %v\n", uni.name, uni.boot.Round(time.Millisecond), lin.name, lin.boot.Round(time.Millisecond))
	names, err := c.workloads(uni, lin)
	if err != nil {
		return res, err
	}
	res[0] = result{boot: uni.boot, values: map[string]float64{}, units: map[string]string{}}
	res[1] = result{boot: lin.boot, values: map[string]float64{}, units: map[string]string{}}
	for _, w := range names {
		u, l, err := c.alternate(uni, lin, w.name)
		if err != nil {
			return res, err
		}
		for i, v := range []float64{u, l} {
			res[i].names = append(res[i].names, w.name)
			res[i].values[w.name], res[i].units[w.name] = v, w.unit
		}
		fmt.Fprintf(c.log, "benchcompare: %s: %s %.4g, %s %.4g %s (%.2f)\n", w.name, uni.name, u, lin.name, l, w.unit, u/l)
	}
	if err := uni.quit(quitTimeout); err != nil {
		return res, err
	}
	return res, lin.quit(quitTimeout)
}

// workloads are the workloads to run: unitrace's list in its order (or those of it -only
// names), each of which the Linux guest must have with the same unit.
func (c comparison) workloads(uni, lin *session) ([]workloadInfo, error) {
	var names []workloadInfo
	for _, w := range uni.workloads {
		if len(c.only) > 0 && !slices.Contains(c.only, w.name) {
			continue
		}
		if !slices.Contains(lin.workloads, w) {
			return nil, fmt.Errorf("%s has workload %s (%s), %s has not", uni.name, w.name, w.unit, lin.name)
		}
		names = append(names, w)
	}
	if len(names) == 0 {
		return nil, errors.New("no workload to run")
	}
	return names, nil
}

// alternate runs c.batches batches of workload name in each guest, alternating which goes
// first (unitrace, Linux, Linux, unitrace, ...), and returns each guest's fastest. Under an
// emulator on a shared host the host only ever adds time, so the fastest batch is the least
// disturbed; the first also pays for translating the workload's code and faulting its memory
// in.
func (c comparison) alternate(uni, lin *session, name string) (u, l float64, err error) {
	u, l = math.Inf(1), math.Inf(1)
	for b := 0; b < c.batches; b++ {
		order := []*session{uni, lin}
		if b%2 == 1 {
			order = []*session{lin, uni}
		}
		for _, s := range order {
			v, err := s.run(name, batchTimeout)
			if err != nil {
				return 0, 0, err
			}
			if s == uni {
				u = min(u, v)
			} else {
				l = min(l, v)
			}
		}
	}
	return u, l, nil
}
