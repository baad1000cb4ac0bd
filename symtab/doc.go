// Package symtab symbolizes program counters with a Go image's own pclntab:
// it reads the Go 1.20+ .gopclntab section (bounded by the linker symbols
// runtime.pclntab and runtime.epclntab) and turns a PC into the function
// name, source file and line, walking inlined frames as the runtime's
// traceback does.
//
// Both sides of unitrace use it, which is why it sits at the top of the tree
// rather than under kernel/ or internal/: the kernel reads its own image's
// table to print fault reports in trap context, where the runtime's own
// symbolizer (runtime.FuncForPC, runtime.CallersFrames) is off limits (those
// allocate, take locks and throw on corrupt tables); the host tools
// (internal/tracefile, internal/profile) read the same table from the image
// file to symbolize recordings, profiles and stacks. One reader means the
// guest's fault reports and the host's views name the same frames.
//
// Because the kernel calls it, the package is kernel-mode Go, checked by
// cmd/kernelcheck like the kernel's own packages: it never allocates, never
// calls into the runtime, and never panics on any input. A table that is
// truncated or corrupt yields "not found" (a false result), not an index
// panic: every read is checked against the bytes it was given first, so the
// compiler's own bounds checks never fire. Results are slices of those bytes,
// never copies. Functions are not //go:nosplit: the chain through the
// compiler's (unreachable) bounds-check calls exceeds the nosplit limit under
// fuzzing and race instrumentation, and the kernel's trap path is not nosplit
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
