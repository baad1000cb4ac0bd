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
// breakpoint is written. Removal puts the original instruction back, marks the site removed,
// and waits for every CPU to answer a cross-CPU request: a CPU answers with interrupts enabled,
// so none is still inside a handler that counted a hit; only then are the hits read and the
// site freed. A breakpoint that traps after that (TCG may run a translation of the breakpoint
// made before the write, even after the interrupt: measured, a few hits in 100 attach and
// detach cycles) finds its site removed or gone, sees the original instruction back, and runs
// it again, neither counted nor recorded.
package dprobe
