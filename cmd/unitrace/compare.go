package main

import (
	"flag"
	"fmt"
	"regexp"
	"strconv"

	"github.com/unitrace/unitrace/internal/pprofcmp"
)

const compareDoc = `Compare two CPU profiles in pprof's format, A and B: typically the one the
program wrote with runtime/pprof and the one "unitrace run -sample HZ -pprof
FILE" wrote of the same run. Print each profile's samples, duration and the
value shared out, then the top functions by their share in either profile:
the share in A, in B, and B's less A's in percentage points. A function
without samples in a profile shows "-" there (and counts as 0). Rows are
sorted by the larger of the two shares, ties by name.

The value is the cpu sample type when the profile has it (runtime/pprof and
unitrace both write samples/count and cpu/nanoseconds; cpu weighs each
sample by its period, which unitrace's sampler may change during a run),
else samples; -value names another. Shares are flat (the leaf function's)
unless -cum (every function in the stack, once per sample).

Like with like: the runtime's profile sees only the program's threads in
user mode; unitrace's also has the kernel's frames above a thread's (the
"[kernel]" mapping), the "[lost samples]" and, with -idle, "[idle]" CPUs.
-fold-kernel charges a sample taken in the kernel to the thread's pc that
entered it, as a profiling signal delivered on the way back sees it;
-focus REGEXP keeps only the samples with a matching function name in the
stack, in both profiles (-focus '^main\.main$' keeps the workload's own
stacks: no idle, lost or kernel-only samples, no runtime background work);
-ignore REGEXP drops those with one.

Exit status 0; 1 when a profile cannot be read or nothing in it is left to
compare, or with -max-diff POINTS when a listed function's shares differ by
more than POINTS.
`

var compareCommand = command{
	name:     "compare",
	synopsis: "[-n N] [-cum] [-value TYPE] [-fold-kernel] [-focus REGEXP] [-ignore REGEXP] [-max-diff POINTS] A B",
	summary:  "compare two pprof CPU profiles (the program's own and the sampler's) function by function",
	doc:      compareDoc,
	setup:    compareSetup,
}

func compareSetup(fs *flag.FlagSet) func(std stdio, args []string) error {
	var opt pprofcmp.Options
	n := fs.Int("n", 10, "list `N` functions (0: all)")
	fs.BoolVar(&opt.Cum, "cum", false, "compare cumulative shares (a function anywhere in the stack) instead of flat ones")
	fs.StringVar(&opt.Value, "value", "", "the sample `TYPE` to share out (default cpu, else samples)")
	fs.BoolVar(&opt.FoldKernel, "fold-kernel", false, "drop the frames of the [kernel] mapping: charge a sample taken in the kernel to the thread's pc that entered it")
	regexpFlag(fs, &opt.Focus, "focus", "keep only the samples with a function matching `REGEXP` in the stack")
	regexpFlag(fs, &opt.Ignore, "ignore", "drop the samples with a function matching `REGEXP` in the stack")
	var maxDiff *float64
	fs.Func("max-diff", "exit with status 1 when a listed function's shares differ by more than `POINTS` percentage points", func(s string) error {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || v < 0 {
			return fmt.Errorf("want a number of points, not negative: %q", s)
		}
		maxDiff = &v
		return nil
	})
	return func(std stdio, args []string) error {
		if err := fs.Parse(args); err != nil {
			return flagError(err)
		}
		if fs.NArg() != 2 {
			return usageError{"want two profiles, A and B"}
		}
		if *n < 0 {
			return usageError{"-n must not be negative"}
		}
		var sides [2]pprofcmp.Named
		for i, file := range fs.Args() {
			p, err := pprofcmp.ReadFile(file)
			if err != nil {
				return err
			}
			s, err := pprofcmp.Compute(p, opt)
			if err != nil {
				return fmt.Errorf("%s: %w", file, err)
			}
			if s.Total == 0 {
				return fmt.Errorf("%s: no samples to compare (%d in the profile, %d kept)", file, s.Samples, s.Kept)
			}
			sides[i] = pprofcmp.Named{Name: file, Shares: s}
		}
		rows := pprofcmp.Top(sides[0].Shares, sides[1].Shares, *n)
		if err := pprofcmp.Format(std.out, sides[0], sides[1], rows, opt); err != nil {
			return err
		}
		if maxDiff == nil {
			return nil
		}
		if worst, d, ok := pprofcmp.MaxDiff(rows); ok && d > *maxDiff {
			fmt.Fprintf(std.err, "unitrace compare: %s differs by %.1f points, more than -max-diff %g\n", worst.Func, d, *maxDiff)
			return exitStatus(1)
		}
		return nil
	}
}

// regexpFlag defines a flag on fs whose value is compiled into *re.
func regexpFlag(fs *flag.FlagSet, re **regexp.Regexp, name, usage string) {
	fs.Func(name, usage, func(s string) error {
		r, err := regexp.Compile(s)
		if err != nil {
			return err
		}
		*re = r
		return nil
	})
}
