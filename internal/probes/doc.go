// Package probes turns a probe's spec (a function name or glob, with %return for its returns)
// into the sites the guest kernel patches, by reading the image: its function symbols, its code
// (disassembled with golang.org/x/arch) and the deny list the kernel also checks.
//
// An entry site goes after the function's stack-growth check, so that a call whose stack grows
// (the prologue runs again after runtime.morestack) counts once, and on the first instruction
// there that the kernel emulates without storing to memory (probe.Decode): amd64's MOVQ SP, BP
// after PUSHQ BP; arm64's SUB $8, RSP, R29 after the stores of the frame record, or the
// large-frame SUB. Return sites are every return instruction of the function, found by
// disassembling it from its entry to its end (Go puts no data in its functions' code).
package probes
