package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"syscall"
	"time"
)

// selfProfiles are the program's own profiles of its workload, which the flags before the
// workload ask for: the CPU profile and the execution trace cover the workload, the others are
// written after it.
type selfProfiles struct {
	cpu, trace                   string
	mem, block, mutex, goroutine string
	cpuFile, traceFile           *os.File
}

func (p *selfProfiles) register(fs *flag.FlagSet) {
	fs.StringVar(&p.cpu, "cpuprofile", "", "write a CPU profile of the workload (runtime/pprof) to `file`")
	fs.StringVar(&p.trace, "trace", "", "write an execution trace of the workload (runtime/trace) to `file`")
	fs.StringVar(&p.mem, "memprofile", "", "write a heap profile to `file` after the workload")
	fs.StringVar(&p.block, "blockprofile", "", "record every blocking event and write the block profile to `file` after the workload")
	fs.StringVar(&p.mutex, "mutexprofile", "", "record every mutex contention and write the mutex profile to `file` after the workload")
	fs.StringVar(&p.goroutine, "goroutineprofile", "", "write the goroutine profile to `file` after the workload")
}

// start begins what must record the workload as it runs.
func (p *selfProfiles) start() error {
	if p.block != "" {
		runtime.SetBlockProfileRate(1)
	}
	if p.mutex != "" {
		runtime.SetMutexProfileFraction(1)
	}
	if p.cpu != "" {
		f, err := os.Create(p.cpu)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return fmt.Errorf("-cpuprofile: %w", err)
		}
		p.cpuFile = f
	}
	if p.trace != "" {
		f, err := os.Create(p.trace)
		if err != nil {
			return err
		}
		if err := trace.Start(f); err != nil {
			f.Close()
			return fmt.Errorf("-trace: %w", err)
		}
		p.traceFile = f
	}
	return nil
}

// stop ends the CPU profile and the trace, and writes the other profiles.
func (p *selfProfiles) stop() error {
	var errs []error
	if p.traceFile != nil {
		trace.Stop()
		errs = append(errs, p.traceFile.Close())
	}
	if p.cpuFile != nil {
		pprof.StopCPUProfile()
		errs = append(errs, p.cpuFile.Close())
	}
	if p.mem != "" {
		runtime.GC() // the heap profile shows the state as of the last collection
		errs = append(errs, writeProfile("allocs", p.mem))
	}
	for _, w := range []struct{ name, file string }{{"block", p.block}, {"mutex", p.mutex}, {"goroutine", p.goroutine}} {
		if w.file != "" {
			errs = append(errs, writeProfile(w.name, w.file))
		}
	}
	return errors.Join(errs...)
}

// writeProfile writes the runtime/pprof profile name to file, in pprof's format.
func writeProfile(name, file string) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if err := pprof.Lookup(name).WriteTo(f, 0); err != nil {
		f.Close()
		return fmt.Errorf("%s profile: %w", name, err)
	}
	return f.Close()
}

// cpuTime is the process's user and system CPU time so far, as getrusage(RUSAGE_SELF) says.
func cpuTime() (user, sys time.Duration, err error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0, fmt.Errorf("getrusage: %w", err)
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano()), nil
}

// cpuTimeLine is the line that reports the CPU time the workload took, from the rusage before
// (u0, s0, err0) and after it, and the wall time it took:
//
//	groundtruth: cputime user=DURATION sys=DURATION wall=DURATION
//
// or, when getrusage failed, "groundtruth: cputime unknown (ERROR) wall=DURATION".
func cpuTimeLine(u0, s0 time.Duration, err0 error, wall time.Duration) string {
	u1, s1, err := cpuTime()
	wallStr := wall.Round(time.Millisecond).String()
	if err0 != nil {
		err = err0
	}
	if err != nil {
		return fmt.Sprintf("groundtruth: cputime unknown (%v) wall=%s", err, wallStr)
	}
	return fmt.Sprintf("groundtruth: cputime user=%v sys=%v wall=%s",
		(u1 - u0).Round(time.Millisecond), (s1 - s0).Round(time.Millisecond), wallStr)
}
