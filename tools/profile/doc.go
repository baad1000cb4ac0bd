// Package profile turns the SAMPLE records of a unitrace recording into
// profiles: a model of symbolized samples (Build), and the views the
// unitrace CLI prints or writes from it: a call tree and the callers and
// callees of one function (Tree, WriteTree, WriteFunction), folded stacks
// (WriteFolded), a flame graph (WriteFlame), a pprof protocol buffer
// (PProf) and annotated disassembly (Annotate).
//
// A SAMPLE's stack is the interrupted pc (exact: never looked up at pc-1)
// followed by the interrupted thread's frame-pointer chain. When the
// interrupted function had not linked its frame into that chain (a frameless
// leaf, or a pc in a prologue or epilogue), the chain starts at the caller's
// caller: LeafCaller recovers the missing return address from the image's
// pclntab SP delta at the pc and the words the sampler saved (amd64: [sp]
// and [sp+8]; arm64: LR and [sp]). docs/profiling.md describes the rules.
//
// This is host code: it allocates freely and never runs in the guest.
package profile
