// Package trace is the guest side of the tracer: static tracepoints that write records into
// per-CPU rings (package ring) in the format of package record.
//
// A tracepoint is a package variable:
//
//	var tpWait = trace.Point{Name: "futex_wait", Format: "addr=%x val=%d", Args: trace.Args(record.KHex, record.KU64)}
//
// registered once (Register, at boot or in an init function) and fired with
//
//	tpWait.Emit2(addr, val)
//
// The disabled path of every Emit is one atomic load and a branch. The enabled path runs in any
// context, interrupts included: it is //go:nosplit, allocates nothing, stores no pointers, masks
// interrupts around the ring write, and drops (and counts) an emit that re-enters the same
// CPU's emit path.
//
// Flags per tracepoint: Enabled; Backtrace (walk the call path that reached the tracepoint);
// InterruptBacktrace (walk the thread the current trap interrupted: only the sampler's tick sets
// it). The global log-backtrace option sets Backtrace on every enabled tracepoint and never
// InterruptBacktrace, so it keeps meaning "the path that reached the tracepoint".
package trace
