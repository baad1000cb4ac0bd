package main

import (
	"io"

	"github.com/unitrace/unitrace/internal/profile"
)

const foldedDoc = `Print folded stacks, "root;...;leaf count", one line per distinct stack:
the input of flamegraph.pl and speedscope. Kernel frames end in "_[k]", as
flamegraph.pl expects. Lost samples are one "[lost samples]" stack.
`

func foldedCommand(std stdio, name string, args []string) error {
	fs := newFlagSet(std, name, "[flags] FILE", foldedDoc+"\n"+profCommonDoc)
	var pf profFlags
	var sf shapeFlags
	pf.register(fs)
	sf.register(fs)
	out := fs.String("o", "-", "output file (- for standard output)")
	file, err := traceFlags(fs, args)
	if err != nil {
		return flagError(err)
	}
	p, opt, err := loadShaped(std, name, file, &pf, &sf)
	if err != nil {
		return err
	}
	return writeOutput(std, *out, func(w io.Writer) error { return profile.WriteFolded(w, p, opt) })
}

const flameDoc = `Write a flame graph as one self-contained SVG (no script; hover a frame for
its name and samples): the root at the bottom, callees above callers, each
frame as wide as its samples, the kernel's frames in blue-green.
`

func flameCommand(std stdio, name string, args []string) error {
	fs := newFlagSet(std, name, "[flags] FILE -o FILE.svg", flameDoc+"\n"+profCommonDoc)
	var pf profFlags
	var sf shapeFlags
	pf.register(fs)
	sf.register(fs)
	out := fs.String("o", "", "output file (- for standard output)")
	title := fs.String("title", "", "title above the graph (default: the recording's name)")
	file, err := traceFlags(fs, args)
	if err != nil {
		return flagError(err)
	}
	if *out == "" {
		return usageError{"-o is required"}
	}
	p, opt, err := loadShaped(std, name, file, &pf, &sf)
	if err != nil {
		return err
	}
	if *title == "" {
		*title = "unitrace flame graph: " + file
	}
	return writeOutput(std, *out, func(w io.Writer) error { return profile.WriteFlame(w, p, opt, *title) })
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
