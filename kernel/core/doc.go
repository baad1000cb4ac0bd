// Package core is the kernel's state and the mechanisms that change it: threads and their slots,
// the CPUs' own state, the kernel lock, blocking, waking and switching, the wait kinds and the
// wait table, CPU time and clocks, the timer mux, cross-CPU requests, signal delivery, POSIX and
// interval timers, the address space and the program's memory. The system-call handlers, the
// devices and the observers (tracer, sampler, snapshots, watchdog) are above it; the kernel's
// root package wires them together at boot.
//
// Its nouns:
//
//   - A slot is an index into Threads, the scheduler's unit: slots below FirstThreadSlot are the
//     CPUs' idle threads (slot n: CPU n's), the rest are the program's threads. A slot is reused
//     after its thread exits (Thread.Gen counts the reuses).
//   - A tid is the thread's Linux id, given once (NewThread); the main thread's, 1, is also the
//     process id (ProcessID). SlotOfTID finds the slot.
//   - CPU-local state (CPULocal, Here) is one CPU's own: written only by it, read by others only
//     through its atomic fields.
//   - An entry is one trap into the kernel: a system call, a fault, an interrupt. Entries that
//     touch shared state take the kernel lock (LockKernel) with interrupts masked, so the kernel's
//     state changes one CPU at a time; taking a sample, serving a cross-CPU request and emitting
//     a trace record are per CPU and take no lock.
//   - A wait kind (WaitKind) says what a blocked thread waits for; its rules (WaitRules, in
//     WaitKinds) say how its system call completes when the thread runs again and whether and how
//     a signal ends it. The futex and sleep kinds are core's own; the code that blocks in any other
//     kind hands its rules down at boot.
//   - A wait key is what a blocked thread waits on in the wait table (Waiters): a futex word's
//     address, or one of the kernel's own keys (waitkeys.go), each kind in its own range above the
//     user addresses.
//   - A hook (Hook) is a function a higher layer hands down at boot for core to call: the exit,
//     a wake-up record, a cross-CPU request's work.
//
// A blocked thread's system call completes in the context of the CPU that resumes it: Block
// saves its frame, Wake makes it runnable, and the switch back to it (Schedule) runs its wait
// kind's completion, which sets the call's result in the frame or blocks the thread again.
package core
