// Package symtab symbolizes program counters inside the kernel: it reads the
// image's own Go 1.20+ pclntab (the .gopclntab section, bounded by the linker
// symbols runtime.pclntab and runtime.epclntab) and turns a PC into the
// function name, source file and line, walking inlined frames as the
// runtime's traceback does.
//
// It exists because the kernel prints fault reports in trap context, where
// the runtime's own symbolizer (runtime.FuncForPC, runtime.CallersFrames) is
// off limits: those allocate, take locks and throw on corrupt tables.
//
// The package is kernel-mode Go: it never allocates, never calls into the
// runtime, and never panics on any input. A table that is truncated or
// corrupt yields "not found" (a false result), not an index panic: every
// read is checked against the bytes it was given first, so the compiler's
// own bounds checks never fire. Results are slices of those bytes, never
// copies. Functions are not //go:nosplit: the chain through the compiler's
// (unreachable) bounds-check calls exceeds the nosplit limit under fuzzing
// and race instrumentation, and the kernel's trap path is not nosplit
// either.
//
// New validates the header and locates the inline trees (a bounded probe of
// a sample of them; see findGoFunc). It takes the bytes between
// runtime.pclntab and runtime.epclntab and the address of runtime.text, and
// costs some tens of microseconds, so a fault report can simply call it.
// Lookup and InlinedAt then cost a binary search of the function table and
// a few pc-table decodes (BenchmarkNew, BenchmarkLookup).
//
// A Table and a Frame hold slices of the pclntab, which lives outside the
// Go heap. Keep them in locals: storing one into a global or heap object
// would need a write barrier.
//
// The format is the one written by cmd/link/internal/ld/pcln.go and read by
// runtime/symtab.go: a pcHeader, then funcnametab, cutab, filetab, pctab and
// functab (pairs of entry offset and _func offset, then the _func records),
// and, in current toolchains, the funcdata blob go:func.* at the end of the
// section, where the inline trees live.
package symtab
