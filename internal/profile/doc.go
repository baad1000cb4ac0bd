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
// A sample taken in the kernel has a stack that crosses the kernel boundary:
// the kernel's exact pc and chain, a stack mark (record.StackMarkThread),
// then the thread's exact pc and chain. Build drops the marks, symbolizes
// the word after each as exact, applies the leaf fix at the thread's pc too
// (with the thread's registers from the appended SAMPLE slots), and marks
// the kernel's locations (Loc.Kernel); every view shows them as the
// kernel's, and Options.FoldKernel folds them into the thread's pc. Each
// sample counts as its weight, the sampler's deadlines it stands for.
//
// This is host code: it allocates freely and never runs in the guest.
package profile
