package main

import (
	"flag"
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

var pprofCommand = command{
	name:     "pprof",
	synopsis: profFlagsSynopsis + " FILE -o cpu.pb.gz",
	summary:  "write the samples as a pprof profile for go tool pprof",
	doc:      pprofDoc + "\n" + profCommonDoc,
	setup:    pprofSetup,
}

func pprofSetup(fs *flag.FlagSet) func(std stdio, args []string) error {
	pf := profFlags{all: true}
	pf.register(fs)
	out := fs.String("o", "", "output file (- for standard output)")
	return func(std stdio, args []string) error {
		file, err := traceFlags(fs, args)
		if err != nil {
			return flagError(err)
		}
		if *out == "" {
			return usageError{"-o is required"}
		}
		p, err := loadProfile(std, fs.Name(), file, &pf)
		if err != nil {
			return err
		}
		return writeOutput(std, *out, func(w io.Writer) error { return profile.WritePProf(w, p) })
	}
}
