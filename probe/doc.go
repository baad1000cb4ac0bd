// Package probe holds what the host and the guest kernel share about dynamic probes: a probe
// site (where a breakpoint goes, the instruction it displaces and whether it is a function's
// entry or one of its returns), its wire encoding, and the few instructions the kernel emulates
// in place of the one a breakpoint displaced.
//
// The kernel never runs a displaced instruction out of line: it decodes it here, strictly, and
// emulates it on the trapped context's registers. The set is what Go's compiler puts where
// probes go, chosen so that emulation never stores to memory:
//
//   - a register move or an add of an immediate to a register (the frame-pointer set-up after
//     the stack-growth check: amd64 MOVQ SP, BP; arm64 SUB $8, RSP, R29 or SUB $n, RSP, R20),
//     and arm64's move of a 16-bit immediate (MOVD $n, R27, before a large frame's SUB);
//   - a return (amd64 RET, which loads the return address from the stack; arm64 RET).
//
// The host picks each site with the same decoder (Decode), so what it offers is exactly what
// the kernel accepts; the kernel decodes the bytes again from its own text before it patches.
// Everything here runs in the kernel's trap path: no allocation, no panics.
package probe
