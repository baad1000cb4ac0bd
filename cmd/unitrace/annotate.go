package main

import (
	"errors"
	"flag"
	"fmt"

	"github.com/unitrace/unitrace/internal/profile"
)

const annotateDoc = `Print the disassembly of a function with the number of samples whose exact
pc was each instruction (return addresses never count). Under TCG,
interrupts are taken at translation-block boundaries: counts pile up on
the first instruction of each block, and a warning says so.
`

var annotateCommand = command{
	name:     "annotate",
	synopsis: "-func F " + profFlagsSynopsis + " FILE",
	summary:  "disassemble a function with per-instruction sample counts",
	doc:      annotateDoc + "\n" + profCommonDoc,
	setup:    annotateSetup,
}

func annotateSetup(fs *flag.FlagSet) func(std stdio, args []string) error {
	var pf profFlags
	pf.register(fs)
	fn := fs.String("func", "", "the function (a name matches whole, or after its last '.' or '/')")
	return func(std stdio, args []string) error {
		file, err := traceFlags(fs, args)
		if err != nil {
			return flagError(err)
		}
		if *fn == "" {
			return usageError{"-func is required"}
		}
		p, err := loadProfile(std, fs.Name(), file, &pf)
		if err != nil {
			return err
		}
		err = profile.Annotate(std.out, p, *fn)
		if errors.Is(err, profile.ErrNoFunc) {
			return fmt.Errorf("%s: %w", p.Image.Path, err)
		}
		return err
	}
}
