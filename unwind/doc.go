// Package unwind walks stacks by their frame pointers, for the tracer and for the kernel: the
// tracepoints' backtraces and the sampler's samples (package trace), the kernel's fault report,
// the path a thread blocked at and the stacks snapshot (package kernel).
//
//   - Walk is the validated frame-pointer walk of one chain, taken frame by frame (Next) or to
//     its end in one loop (Count, Store). Every load it makes is checked first, so garbage in a
//     frame pointer ends the walk (record.WalkStop) and never faults, and nothing outside the
//     image's text is ever taken for a frame.
//   - Context is the registers a trap frame saved, and which stack they run on (a kernel stack,
//     a goroutine's, an M's system stack), found from the Go runtime's g with every pointer
//     checked against the page tables.
//   - Crossing walks across trap frames, from kernel code into the thread it runs for: each
//     context's exact pc and chain, with the stack marks of package record between them.
//
// What a walk yields is in the record's vocabulary (record.Flags for how it ended,
// record.StackKind, the stack marks), so the tracer stores it as it comes; the records
// themselves are the tracer's.
//
// All of it runs in the kernel, interrupt handlers included: nothing here allocates or stores a
// pointer, and the frame-pointer walk is nosplit (the emits walk the stack they run on, which
// must not move under them). The machine comes from the hardware layer (machine_*.go); the
// unitrace_host build swaps in a synthetic one (machine_host.go) for the host tests and the
// tracer's host benchmarks.
package unwind
