// Package kernel is unitrace's kernel: it boots the machine, serves the Linux system calls that
// the Go runtime and the program make, and hands control to the runtime's own entry point. A
// program becomes a unitrace image by importing it:
//
//	import _ "github.com/unitrace/unitrace/kernel"
//
// and being built with the image builder (cmd/mkimage). When such a program runs as an ordinary
// Linux process, this package does nothing: all of its work starts from the image's boot entry,
// never from package initialisation.
//
// # Its parts
//
// This package is the composition root: the boot sequence (boot*.go, secondary.go), the trap
// dispatch (trap_<arch>.go), which runs the sample, the tick, the timers, the watchdog and the
// end of a locked entry in that order (tick.go, devirq.go), the fault report (fault*.go), the
// boot mounts (files.go, packed.go, procfs.go, netfiles.go) and the wiring (wiring.go), which
// hands each layer's hooks down once, first thing at boot. The layers, each importing only the
// ones below it:
//
//   - kernel/syscalls: the system-call handlers, their dispatch and the generated tables.
//   - kernel/observe: the tracer's and the sampler's glue, the off-CPU sweep, the stacks
//     snapshots, the wake-up records, the watchdog.
//   - kernel/dev/serial, kernel/dev/console, kernel/dev/shares: the devices, each owning its
//     interrupt, its wait keys' wake-ups and its wait's completion.
//   - kernel/core: the state and its mechanisms.
//   - kernel/machine: the hardware, one name per hook, over arch/amd64 and arch/arm64.
//   - kernel/klog, kernel/options, kernel/tp, kernel/abi: leaves every layer uses.
//
// and the pure packages the layers apply (kernel/sched, kernel/signal, kernel/mm, kernel/fd,
// kernel/fs/..., kernel/waitq, kernel/timerq, ...), each tested on the host.
//
// # The kernel's nouns
//
// Defined in package kernel/core, and used in every layer above it:
//
//   - A slot is an index into core.Threads, the scheduler's unit: slots below core.FirstThreadSlot are the
//     CPUs' idle threads (slot n: CPU n's), the rest are the program's threads. A slot is reused
//     after its thread exits (core.Thread.Gen counts the reuses).
//   - A tid is the thread's Linux id, given once (core.NewThread); the main thread's, 1, is also the
//     process id (core.ProcessID). core.SlotOfTID finds the slot.
//   - CPU-local state (core.CPULocal, core.Here) is one CPU's own: written only by it, read by others only
//     through its atomic fields.
//   - An entry is one trap into the kernel: a system call, a fault, an interrupt. Entries that
//     touch shared state take the kernel lock (core.LockKernel) with interrupts masked, so the kernel's
//     state changes one CPU at a time; taking a sample, serving a cross-CPU request and emitting
//     a trace record are per CPU and take no lock.
//   - A wait kind (core.WaitKind) says what a blocked thread waits for; its rules (core.WaitRules, in
//     core.WaitKinds) say how its system call completes when the thread runs again and whether and how
//     a signal ends it. The futex and sleep kinds are core's own; the code that blocks in any other
//     kind hands its rules down at boot.
//   - A wait key is what a blocked thread waits on in the wait table (core.Waiters): a futex word's
//     address, or one of the kernel's own keys (core's waitkeys.go), each kind in its own range above the
//     user addresses.
//   - A hook (core.Hook) is a function a higher layer hands down at boot for core to call: the exit,
//     a wake-up record, a cross-CPU request's work.
//
// # Kernel-mode Go
//
// The kernel is Go that runs where the runtime cannot help it: in trap handlers, on a per-CPU
// kernel stack, with interrupts masked (the sampler's excepted), before the runtime has
// initialised anything, with no scheduler and no garbage collector of its own. Every package
// that runs there (cmd/kernelcheck's kernelPackages) keeps these rules:
//
//   - No allocation: kernel state is fixed arrays indexed by slot and CPU numbers, and nothing
//     escapes to the heap. cmd/kernelcheck fails on any escape.
//   - No write barrier: no pointer is stored into memory at run time. Tables of pointers and
//     functions are static data the linker lays out; a function a higher layer hands down is
//     kept as a uintptr (core.Hook); the kernel reaches memory by address (machine.Ptr), and
//     none of it is the Go heap. cmd/kernelcheck fails on any write barrier.
//   - No call into the runtime: no maps, interface conversions, string building, defers or
//     panics (cmd/kernelcheck lists them); bounds checks stay, and a failed one is a kernel
//     fault.
//   - No package initialisation: the first system calls arrive before the runtime runs any
//     init function, so nothing may depend on one (no init, no variable initialised by code).
//   - No blocking: kernel code never waits in Go; a system call that must wait blocks its
//     thread (core.Block) and completes when the thread runs again, by its wait kind's rules.
package kernel
