package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/unitrace/unitrace/internal/profile"
)

// The sampler's views: prof, pprof, folded, flame and annotate share how a
// recording becomes a profile (internal/profile), these flags and this text
// of their -h.

const profCommonDoc = `Samples are symbolized with the image that made the recording (from the
HOST frame, or -elf; its GNU build id must match the recording's unless
-force), inline frames expanded. The leaf fix puts back the caller that a
frameless leaf's frame-pointer chain skips (docs/profiling.md);
-no-leaf-fix shows the raw stacks. Samples of idle CPUs are left out
unless -idle. A sample taken in the kernel (a trap handler, a system call)
shows the kernel's frames above the thread's, marked as the kernel's
("[k]"; "_[k]" in folded stacks; the [kernel] mapping in pprof);
-fold-kernel charges them to the thread's pc that entered the kernel.
A sample counts as the sampler's deadlines it stands for.
`

// profFlagsSynopsis names the flags profFlags defines, for the synopses.
const profFlagsSynopsis = "[-idle] [-no-leaf-fix] [-fold-kernel] " + imageFlagsSynopsis

// profFlags are the flags every sampler view has.
type profFlags struct {
	img        imageFlags
	noLeafFix  bool
	idle       bool
	foldKernel bool
	// wall and offCPU choose the time views (registerTime); all keeps every sample as
	// recorded, for pprof files.
	wall, offCPU, all, wakers bool
}

func (f *profFlags) register(fs *flag.FlagSet) {
	f.img.register(fs)
	fs.BoolVar(&f.noLeafFix, "no-leaf-fix", false, "do not recover the callers of frameless leaves: show the frame-pointer stacks as recorded")
	fs.BoolVar(&f.idle, "idle", false, "include the samples of idle CPUs")
	fs.BoolVar(&f.foldKernel, "fold-kernel", false, "drop the kernel's frames: charge a sample taken in the kernel to the thread's pc (the system call) that entered it")
}

// registerTime registers the flags that choose what a stack view weighs.
func (f *profFlags) registerTime(fs *flag.FlagSet) {
	fs.BoolVar(&f.wall, "wall", false, "weigh time on and off the CPUs (the CPU samples and the off-CPU sweep's goroutine samples), in µs")
	fs.BoolVar(&f.offCPU, "offcpu", false, "weigh the time goroutines spent off the CPUs (the off-CPU sweep's samples), in µs")
	f.registerWakers(fs)
}

// registerWakers registers -wakers, which the pprof command has alone of the time flags.
func (f *profFlags) registerWakers(fs *flag.FlagSet) {
	fs.BoolVar(&f.wakers, "wakers", false, "the wake-ups of blocked threads (run -wakers): each blocked stack with its waker's above it, weighing the time blocked")
}

func (f *profFlags) options() profile.Options {
	o := profile.Options{NoLeafFix: f.noLeafFix, Idle: f.idle, FoldKernel: f.foldKernel}
	switch {
	case f.wakers:
		o.Value = profile.ValueWakers
	case f.all:
		o.Value = profile.ValueAll
	case f.wall:
		o.Value = profile.ValueWall
	case f.offCPU:
		o.Value = profile.ValueOffCPU
	}
	return o
}

// shapeFlagsSynopsis names the flags shapeFlags defines, for the synopses.
const shapeFlagsSynopsis = "[-g thread|cpu|goroutine|none] [-min-hits N|N%] [-max-depth N] [-wall|-offcpu|-wakers]"

// shapeFlags are the flags of the views that draw stacks.
type shapeFlags struct {
	group    string
	minHits  string
	maxDepth int
}

func (f *shapeFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.group, "g", "none", "split by thread, cpu, goroutine or none")
	fs.StringVar(&f.minHits, "min-hits", "", "hide what has fewer samples (weighted): a count, or a percentage of all samples (1%)")
	fs.IntVar(&f.maxDepth, "max-depth", 0, "show at most this many levels (0: all)")
}

func (f *shapeFlags) parse() (profile.Group, error) {
	if f.maxDepth < 0 {
		return 0, usageError{"-max-depth must not be negative"}
	}
	g, err := profile.ParseGroup(f.group)
	if err != nil {
		return 0, usageError{err.Error()}
	}
	return g, nil
}

// loadProfile reads a recording and builds its profile. A recording
// without samples is an error that says so before any image is opened.
func loadProfile(std stdio, name, file string, f *profFlags) (*profile.Profile, error) {
	tr, err := loadTrace(std, name, file, false)
	if err != nil {
		return nil, err
	}
	if !profile.HasSamples(tr) {
		return nil, fmt.Errorf("%s: %w", file, profile.ErrNoSamples)
	}
	im, err := profile.OpenFor(f.img.elf, tr, f.img.force)
	if err != nil {
		return nil, err
	}
	if n := btoi(f.wall) + btoi(f.offCPU) + btoi(f.wakers); n > 1 {
		return nil, usageError{"-wall, -offcpu and -wakers choose different samples: give one"}
	}
	p, err := profile.Build(tr, im, f.options())
	if err != nil {
		return nil, err
	}
	if len(p.Samples) == 0 && p.Records == 0 && p.Value == profile.ValueCPU {
		return nil, fmt.Errorf("%s: no CPU samples; its goroutine or wake-up samples are in the -offcpu, -wall and -wakers views", file)
	}
	if len(p.Samples) == 0 {
		return nil, fmt.Errorf("%s: all %d samples are of idle CPUs: -idle shows them", file, p.Records)
	}
	return p, nil
}

// writeOutput writes through write to the file out, or to standard output
// for "-".
func writeOutput(std stdio, out string, write func(io.Writer) error) error {
	if out == "-" {
		return write(std.out)
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// loadShaped loads the profile of a view built from folded stacks.
func loadShaped(std stdio, name, file string, pf *profFlags, sf *shapeFlags) (*profile.Profile, profile.FoldOptions, error) {
	g, err := sf.parse()
	if err != nil {
		return nil, profile.FoldOptions{}, err
	}
	if _, err := profile.ParseMinHits(sf.minHits, 0); err != nil {
		return nil, profile.FoldOptions{}, usageError{err.Error()}
	}
	p, err := loadProfile(std, name, file, pf)
	if err != nil {
		return nil, profile.FoldOptions{}, err
	}
	minHits, _ := profile.ParseMinHits(sf.minHits, p.Deadlines)
	return p, profile.FoldOptions{Group: g, MinHits: minHits, MaxDepth: sf.maxDepth}, nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
