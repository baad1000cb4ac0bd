// Package core is the kernel's state and the mechanisms that change it: threads and their slots,
// the CPUs' own state, the kernel lock, blocking, waking and switching, the wait kinds and the
// wait table, CPU time and clocks, the timer mux, cross-CPU requests, signal delivery, POSIX and
// interval timers, the address space and the program's memory. The system-call handlers, the
// devices and the observers (tracer, sampler, snapshots, watchdog) are above it; the kernel's
// root package wires them together at boot.
//
// The kernel's nouns (slot, tid, CPU-local, entry, wait kind, wait key, hook) are defined in
// package kernel's documentation; they are this package's types and tables.
//
// A blocked thread's system call completes in the context of the CPU that resumes it: Block
// saves its frame, Wake makes it runnable, and the switch back to it (Schedule) runs its wait
// kind's completion, which sets the call's result in the frame or blocks the thread again.
package core
