package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/unitrace/unitrace/internal/profile"
)

const pprofDoc = `Write the samples as a pprof profile (gzipped protocol buffer) for
"go tool pprof": sample types samples/count and cpu/nanoseconds, the
period from the sampling rate, the image as the mapping of the threads'
frames and "[kernel]" as the mapping of the kernel's (-focus, -ignore and
-hide '\[kernel\]' select by it), inline frames, numeric labels cpu, tid and
task (a goroutine's id), and the lost samples as a "[lost samples]" frame.
Samples with the same stack and labels are one pprof sample.
`

func pprofCommand(std stdio, name string, args []string) error {
	fs := newFlagSet(std, name, "[flags] FILE -o cpu.pb.gz", pprofDoc+"\n"+profCommonDoc)
	var pf profFlags
	pf.register(fs)
	out := fs.String("o", "", "output file (- for standard output)")
	file, err := traceFlags(fs, args)
	if err != nil {
		return flagError(err)
	}
	if *out == "" {
		return usageError{"-o is required"}
	}
	p, err := loadProfile(std, name, file, &pf)
	if err != nil {
		return err
	}
	return writeOutput(std, *out, func(w io.Writer) error { return profile.WritePProf(w, p) })
}

const annotateDoc = `Print the disassembly of a function with the number of samples whose exact
pc was each instruction (return addresses never count). Under TCG,
interrupts are taken at translation-block boundaries: counts pile up on
the first instruction of each block, and a warning says so.
`

func annotateCommand(std stdio, name string, args []string) error {
	fs := newFlagSet(std, name, "-func F [flags] FILE", annotateDoc+"\n"+profCommonDoc)
	var pf profFlags
	pf.register(fs)
	fn := fs.String("func", "", "the function (a name matches whole, or after its last '.' or '/')")
	file, err := traceFlags(fs, args)
	if err != nil {
		return flagError(err)
	}
	if *fn == "" {
		return usageError{"-func is required"}
	}
	p, err := loadProfile(std, name, file, &pf)
	if err != nil {
		return err
	}
	err = profile.Annotate(std.out, p, *fn)
	if errors.Is(err, profile.ErrNoFunc) {
		return fmt.Errorf("%s: %w", p.Image.Path, err)
	}
	return err
}
