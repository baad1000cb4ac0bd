package main

import (
	"flag"

	"github.com/unitrace/unitrace/internal/profile"
)

const profDoc = `Print the sampled call tree: each line is a function reached by one path,
with its share of all samples, its sample count, and the samples that ended
in it when it also has callees. -r starts the trees at the leaves and goes
out to their callers. -function F prints F's callees and callers instead
(F may be the leaf; a name matches whole, or after its last '.' or '/'),
across the kernel boundary. -split prints, per CPU and for all CPUs, the
samples and their shares in the kernel's trap context, in threads and idle.
`

var profCommand = command{
	name:     "prof",
	synopsis: shapeFlagsSynopsis + " [-r] [-function F | -split] " + profFlagsSynopsis + " FILE",
	summary:  "print the sampled call tree, the callers and callees of one function, or each CPU's kernel/thread/idle split",
	doc:      profDoc + "\n" + profCommonDoc,
	setup:    profSetup,
}

func profSetup(fs *flag.FlagSet) func(std stdio, args []string) error {
	var pf profFlags
	var sf shapeFlags
	pf.register(fs)
	pf.registerTime(fs)
	sf.register(fs)
	reverse := fs.Bool("r", false, "start at the leaves: callee-first trees")
	function := fs.String("function", "", "print the callees and callers of this function")
	split := fs.Bool("split", false, "print each CPU's samples split into kernel, thread and idle")
	return func(std stdio, args []string) error {
		file, err := traceFlags(fs, args)
		if err != nil {
			return flagError(err)
		}
		g, err := sf.parse()
		if err != nil {
			return err
		}
		if *split && *function != "" {
			return usageError{"-split and -function are two views: pick one"}
		}
		if _, err := profile.ParseMinHits(sf.minHits, 0); err != nil {
			return usageError{err.Error()}
		}
		p, err := loadProfile(std, fs.Name(), file, &pf)
		if err != nil {
			return err
		}
		if *split {
			return profile.WriteSplit(std.out, p)
		}
		return profile.WriteProf(std.out, p, profile.ProfOptions{Group: g, Reverse: *reverse, Function: *function,
			MinHits: sf.minHits, MaxDepth: sf.maxDepth})
	}
}
