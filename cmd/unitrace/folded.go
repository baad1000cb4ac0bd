package main

import (
	"flag"
	"io"

	"github.com/unitrace/unitrace/internal/profile"
)

const foldedDoc = `Print folded stacks, "root;...;leaf count", one line per distinct stack:
the input of flamegraph.pl and speedscope. Kernel frames end in "_[k]", as
flamegraph.pl expects. Lost samples are one "[lost samples]" stack.
`

var foldedCommand = command{
	name:     "folded",
	synopsis: shapeFlagsSynopsis + " " + profFlagsSynopsis + " [-o FILE] FILE",
	summary:  "print folded stacks (root;...;leaf count) for flamegraph.pl and speedscope",
	doc:      foldedDoc + "\n" + profCommonDoc,
	setup:    foldedSetup,
}

func foldedSetup(fs *flag.FlagSet) func(std stdio, args []string) error {
	var pf profFlags
	var sf shapeFlags
	pf.register(fs)
	pf.registerTime(fs)
	sf.register(fs)
	out := fs.String("o", "-", "output file (- for standard output)")
	return func(std stdio, args []string) error {
		file, err := traceFlags(fs, args)
		if err != nil {
			return flagError(err)
		}
		p, opt, err := loadShaped(std, fs.Name(), file, &pf, &sf)
		if err != nil {
			return err
		}
		return writeOutput(std, *out, func(w io.Writer) error { return profile.WriteFolded(w, p, opt) })
	}
}
