package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/unitrace/unitrace/internal/probes"
	"github.com/unitrace/unitrace/internal/profile"
	"github.com/unitrace/unitrace/probe"
)

const pprofDoc = `Write the samples as a pprof profile (gzipped protocol buffer) for
"go tool pprof": sample types samples/count and cpu/nanoseconds, the
period from the sampling rate, the image as the mapping of the threads'
frames and "[kernel]" as the mapping of the kernel's (-focus, -ignore and
-hide '\[kernel\]' select by it), inline frames, numeric labels cpu, tid and
goroutine (the goroutine the thread ran, when the image says where g keeps its
id), and the lost samples as a "[lost samples]" frame. Samples with the same
stack and labels are one pprof sample.

A recording of run -offcpu adds the sample type wait/nanoseconds: the off-CPU
sweep's goroutine samples carry wait (-sample_index=wait is the off-CPU
profile; cpu plus wait is the wall-clock profile), with the string labels
state (runnable, syscall, waiting), reason (the runtime's wait reason, or the
system call's name) and kernel_wait (what its thread waits on in the kernel).

With -wakers (a recording of run -wakers) the profile is of the wake-ups of
blocked threads instead, sample types samples/count and wait/nanoseconds:
each stack is the blocked thread's as it blocked, then a frame "[woken by
WAKER]", then the waker's (a thread's system call across the trap frame, or
the kernel's path of a timer or device interrupt), with the labels goroutine,
waker, waker_goroutine, waker_tid, kernel_wait and reason.

With -probe NAME (a recording whose probes had -backtrace) the profile is of
that dynamic probe's hits instead: NAME for an entry probe's, NAME%return for
a return probe's, sample types hits/count and latency/nanoseconds (each
return's call, paired with its entry; 0 for an entry, or a return without
its entry), each stack the probed context's from its exact pc.
`

var pprofCommand = command{
	name:     "pprof",
	synopsis: "[-wakers | -probe NAME] " + profFlagsSynopsis + " FILE -o cpu.pb.gz",
	summary:  "write the samples as a pprof profile for go tool pprof",
	doc:      pprofDoc + "\n" + profCommonDoc,
	setup:    pprofSetup,
}

func pprofSetup(fs *flag.FlagSet) func(std stdio, args []string) error {
	pf := profFlags{all: true}
	pf.register(fs)
	pf.registerWakers(fs)
	out := fs.String("o", "", "output file (- for standard output)")
	probeName := fs.String("probe", "", "a profile of this dynamic probe's hits (NAME, or NAME%return)")
	return func(std stdio, args []string) error {
		file, err := traceFlags(fs, args)
		if err != nil {
			return flagError(err)
		}
		if *out == "" {
			return usageError{"-o is required"}
		}
		var p *profile.Profile
		if *probeName != "" {
			if pf.wakers || pf.offCPU || pf.wall {
				return usageError{"-probe chooses the probe's hits: it cannot be combined with -wakers, -offcpu or -wall"}
			}
			p, err = loadProbeProfile(std, fs.Name(), file, *probeName, &pf)
		} else {
			p, err = loadProfile(std, fs.Name(), file, &pf)
		}
		if err != nil {
			return err
		}
		return writeOutput(std, *out, func(w io.Writer) error { return profile.WritePProf(w, p) })
	}
}

// loadProbeProfile makes the profile of the hits of the probe called name (NAME or
// NAME%return) in the recording file.
func loadProbeProfile(std stdio, tool, file, name string, f *profFlags) (*profile.Profile, error) {
	tr, err := loadTrace(std, tool, file, false)
	if err != nil {
		return nil, err
	}
	recs := tr.Merged()
	pv, err := openProbeView(f.img, tr, recs)
	if err != nil {
		return nil, err
	}
	fn, ret := strings.CutSuffix(name, probes.ReturnSuffix)
	var hits []profile.ProbeHit
	for i := range pv.hits {
		h := &pv.hits[i]
		if h.Func != fn || h.Return != ret || !ret && probe.Kind(h.P.Kind) != probe.KindEntry {
			continue // another function, or a return probe's entry
		}
		ph := profile.ProbeHit{Rec: h.Rec}
		if h.Return && h.Paired {
			ph.LatencyNs = h.Latency.Nanoseconds()
		}
		hits = append(hits, ph)
	}
	if len(hits) == 0 {
		return nil, fmt.Errorf("%s: no hits of a probe %s", file, name)
	}
	im, err := profile.OpenFor(f.img.elf, tr, f.img.force)
	if err != nil {
		return nil, err
	}
	return profile.BuildProbe(tr, im, hits, f.options())
}
