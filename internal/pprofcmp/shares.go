// Package pprofcmp compares two CPU profiles in pprof's format by the share of each function:
// typically the one a program wrote itself with runtime/pprof and the one unitrace's sampler
// recorded of the same run ("unitrace run -sample HZ -pprof FILE"). The two see different
// things: the runtime's profile has only the program's threads, in user mode as the profiling
// signal finds them; the sampler's also has the kernel's frames above a thread's (the
// internal/profile KernelMapping) and, unless left out, idle CPUs and lost samples. Options
// select the like-for-like part of each: FoldKernel charges the kernel's frames to the
// thread's pc that entered the kernel, as a signal delivered on the way back to user mode
// sees it, and Focus keeps only the stacks of the workload.
//
// This is host code.
package pprofcmp

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"time"

	pprof "github.com/google/pprof/profile"

	"github.com/unitrace/unitrace/internal/profile"
)

// Options select what a profile's shares are computed over.
type Options struct {
	// Value is the sample type whose values are shared out ("cpu", "samples"); "" picks cpu
	// when the profile has it, else samples (see ValueIndex).
	Value string
	// Cum gives each function the value of every sample with it anywhere in the stack, once
	// per sample, instead of only the samples it is the leaf of.
	Cum bool
	// Focus keeps only the samples with a function whose name matches it somewhere in the
	// stack; Ignore drops those with one. Nil: no restriction. They see the stack after
	// FoldKernel.
	Focus, Ignore *regexp.Regexp
	// FoldKernel drops the locations of the kernel's mapping (profile.KernelMapping), so that
	// a sample taken in the kernel counts for the thread's pc below the kernel's frames. A
	// sample with only kernel locations counts for KernelFrame.
	FoldKernel bool
}

// KernelFrame names the function of a sample whose locations were all the kernel's, when
// Options.FoldKernel drops them: the same placeholder the sampler's views use.
const KernelFrame = profile.FrameKernel

// Shares is one profile's value shared out by function.
type Shares struct {
	Value    string        // the sample type shared out: "cpu/nanoseconds"
	Samples  int64         // samples in the profile: the sum of its samples/count, or its sample count
	Kept     int64         // of which Focus and Ignore kept, counted the same way
	Total    int64         // the value of the kept samples
	Duration time.Duration // the profile's duration; 0 if it does not say
	ByFunc   map[string]int64
}

// Share is fn's share of the kept total, in percent; ok is false when no kept sample has fn
// (where Options.Cum says).
func (s *Shares) Share(fn string) (pct float64, ok bool) {
	v, ok := s.ByFunc[fn]
	if !ok || s.Total == 0 {
		return 0, ok
	}
	return 100 * float64(v) / float64(s.Total), true
}

// ReadFile parses the pprof file at path (gzipped or not).
func ReadFile(path string) (*pprof.Profile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := pprof.Parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// ValueIndex is the index of the sample type named value in p ("" : cpu if p has it, else
// samples, else the profile's default sample type, else the last one, as pprof picks).
func ValueIndex(p *pprof.Profile, value string) (int, error) {
	if len(p.SampleType) == 0 {
		return 0, errors.New("the profile has no sample types")
	}
	find := func(t string) int {
		return slices.IndexFunc(p.SampleType, func(v *pprof.ValueType) bool { return v.Type == t })
	}
	if value != "" {
		if i := find(value); i >= 0 {
			return i, nil
		}
		return 0, fmt.Errorf("the profile has no sample type %q (it has %s)", value, typeNames(p))
	}
	for _, t := range []string{"cpu", "samples", p.DefaultSampleType} {
		if i := find(t); t != "" && i >= 0 {
			return i, nil
		}
	}
	return len(p.SampleType) - 1, nil
}

func typeNames(p *pprof.Profile) string {
	var s string
	for i, v := range p.SampleType {
		if i > 0 {
			s += ", "
		}
		s += v.Type
	}
	return s
}

// Compute shares out p's value by function, as opt says.
func Compute(p *pprof.Profile, opt Options) (*Shares, error) {
	vi, err := ValueIndex(p, opt.Value)
	if err != nil {
		return nil, err
	}
	ci := slices.IndexFunc(p.SampleType, func(v *pprof.ValueType) bool { return v.Type == "samples" })
	s := &Shares{Value: p.SampleType[vi].Type + "/" + p.SampleType[vi].Unit, Duration: time.Duration(p.DurationNanos),
		ByFunc: map[string]int64{}}
	for _, smp := range p.Sample {
		count := int64(1)
		if ci >= 0 {
			count = smp.Value[ci]
		}
		s.Samples += count
		funcs := stackFuncs(smp, opt.FoldKernel)
		if opt.Focus != nil && !slices.ContainsFunc(funcs, opt.Focus.MatchString) ||
			opt.Ignore != nil && slices.ContainsFunc(funcs, opt.Ignore.MatchString) {
			continue
		}
		v := smp.Value[vi]
		s.Kept += count
		s.Total += v
		if !opt.Cum {
			s.ByFunc[funcs[0]] += v
			continue
		}
		seen := map[string]bool{}
		for _, fn := range funcs {
			if !seen[fn] {
				seen[fn] = true
				s.ByFunc[fn] += v
			}
		}
	}
	return s, nil
}

// stackFuncs names the functions of a sample's stack, innermost first, inlined frames
// included; never empty. A location without lines is named by its address.
func stackFuncs(s *pprof.Sample, foldKernel bool) []string {
	var funcs []string
	kernelOnly := len(s.Location) > 0
	for _, loc := range s.Location {
		if foldKernel && loc.Mapping != nil && loc.Mapping.File == profile.KernelMapping {
			continue
		}
		kernelOnly = false
		if len(loc.Line) == 0 {
			funcs = append(funcs, fmt.Sprintf("%#x", loc.Address))
			continue
		}
		for _, l := range loc.Line { // innermost first: the last is the function the others are inlined into
			name := "?"
			if l.Function != nil {
				name = l.Function.Name
			}
			funcs = append(funcs, name)
		}
	}
	switch {
	case len(funcs) > 0:
	case kernelOnly:
		funcs = []string{KernelFrame}
	default:
		funcs = []string{profile.FrameNoStack}
	}
	return funcs
}
