// Package dprobe is the kernel's half of the dynamic probes: the table of probe sites, the
// breakpoints written into the text, and the breakpoint's handler, which records the hit and
// emulates the instruction the breakpoint displaced.
//
// The host picks the sites (internal/probes) and the trace agent hands them in, one system call
// each (trace.CtlProbeSite); the kernel trusts none of it: a site must decode as an instruction
// it emulates (package probe), lie in a function of its own image that the deny list allows,
// and the bytes at its address must be the ones the host read. A probe's sites are staged
// first and armed together (trace.CtlProbeArm: returns before entries, so that no call is seen
// entering without its return being watched), and removed together (trace.CtlProbeDel).
//
// Concurrency. The table changes under the kernel lock; the handler runs on any CPU with
// interrupts masked and reads it without the lock. A site is in the pc table before its
// breakpoint is written, and leaves it only after the original instruction is back and every
// CPU has answered a cross-CPU request: a CPU answers with interrupts enabled, so none is still
// inside a handler that may have found the site. A breakpoint that traps while its site is
// being removed finds no site, sees the original instruction back, and runs it again.
package dprobe
