// Package observe is the kernel's observers: the tracer's boot options, rings and stream over
// the trace device's data port (tracing.go, tracestream.go, tracefinish.go), the sampler's glue
// (sampling.go), the off-CPU sweep of the program's goroutines (offcpu.go), the stacks snapshots
// of threads and goroutines (threadsnap.go, goroutinesnap.go), the wake-up records (wakers.go),
// the watchdog and its probe of unanswering CPUs (watchdog.go, probe.go), and the symbolized
// kernel backtraces they and the fault report print (backtrace.go).
//
// They watch core's state without changing it. What core calls in them (a wake-up record, a
// cross-CPU request's work, the report of unanswering CPUs) is handed down at boot by the
// kernel's wiring.go; the trap runs the sample and the sweep in order (the kernel's tick.go); the
// sweep's next deadline is core.SweepAt, which arming the timer reads.
package observe
