// Package kernel is the portable core of unitrace: it boots the machine, serves the Linux system
// calls that the Go runtime makes (memory, threads, futexes, time, epoll, signals, console), and
// hands control to the runtime's own entry point. A program becomes a unitrace image by
// importing it:
//
//	import _ "github.com/unitrace/unitrace/kernel"
//
// and being built with the image builder (cmd/mkimage). When such a program runs as an ordinary
// Linux process, this package does nothing: all of its work starts from the image's boot entry,
// never from package initialisation.
//
// Kernel-mode code (everything reached from bootMain and trap) is pointer-free and
// allocation-free, runs with interrupts masked on a per-CPU kernel stack, and never calls into
// the Go runtime: cmd/kernelcheck enforces the first two.
package kernel
