package main

import (
	"flag"
	"io"

	"github.com/unitrace/unitrace/internal/profile"
)

const flameDoc = `Write a flame graph as one self-contained SVG (no script; hover a frame for
its name and samples): the root at the bottom, callees above callers, each
frame as wide as its samples, the kernel's frames in blue-green.
`

var flameCommand = command{
	name:     "flame",
	synopsis: shapeFlagsSynopsis + " " + profFlagsSynopsis + " [-title TITLE] FILE -o FILE.svg",
	summary:  "write a self-contained SVG flame graph",
	doc:      flameDoc + "\n" + profCommonDoc,
	setup:    flameSetup,
}

func flameSetup(fs *flag.FlagSet) func(std stdio, args []string) error {
	var pf profFlags
	var sf shapeFlags
	pf.register(fs)
	pf.registerTime(fs)
	sf.register(fs)
	out := fs.String("o", "", "output file (- for standard output)")
	title := fs.String("title", "", "title above the graph (default: the recording's name)")
	return func(std stdio, args []string) error {
		file, err := traceFlags(fs, args)
		if err != nil {
			return flagError(err)
		}
		if *out == "" {
			return usageError{"-o is required"}
		}
		p, opt, err := loadShaped(std, fs.Name(), file, &pf, &sf)
		if err != nil {
			return err
		}
		if *title == "" {
			*title = "unitrace flame graph: " + file
		}
		return writeOutput(std, *out, func(w io.Writer) error { return profile.WriteFlame(w, p, opt, *title) })
	}
}
