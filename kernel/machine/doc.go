// Package machine is the kernel's one door to the hardware: the same names on every arch, each a
// thin wrapper over arch/amd64 or arch/arm64 that the compiler inlines, so the door adds no call
// to any path.
//
// Its files split along what they describe:
//
//   - linux_<arch>.go: the Linux ABI's view of a trapped context (Frame, the system-call
//     registers, how a system call is rewound, struct epoll_event's layout, AT_PLATFORM). It is
//     the same in the guest and in a host process.
//   - arch_<arch>.go: the hardware (counter and clocks, timers, interrupt masking and priority,
//     the console, the image's ranges, entering a thread, parking a CPU). Built for the guest.
//   - arch_host.go: the hardware in a plain Linux process (the unitrace_host build), so that
//     kernel code above this package runs in `go test`: one CPU, a clock the test sets, a console
//     that records, interrupt masking that is only recorded.
//   - mem_unsafe.go and mmio.go: addresses to memory, and device registers through the identity
//     map; the same everywhere.
//
// A test (names_test.go) keeps the three hardware files' names the same.
package machine
