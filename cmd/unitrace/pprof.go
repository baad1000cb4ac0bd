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
`

var pprofCommand = command{
	name:     "pprof",
	synopsis: "[-wakers] " + profFlagsSynopsis + " FILE -o cpu.pb.gz",
	summary:  "write the samples as a pprof profile for go tool pprof",
	doc:      pprofDoc + "\n" + profCommonDoc,
	setup:    pprofSetup,
}

func pprofSetup(fs *flag.FlagSet) func(std stdio, args []string) error {
	pf := profFlags{all: true}
	pf.register(fs)
	pf.registerWakers(fs)
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
