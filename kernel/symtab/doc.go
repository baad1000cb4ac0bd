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
// read is bounds-checked against the bytes it was given. Results are slices
// of those bytes, never copies.
//
// The format is the one written by cmd/link/internal/ld/pcln.go and read by
// runtime/symtab.go: a pcHeader, then funcnametab, cutab, filetab, pctab and
// functab (pairs of entry offset and _func offset, then the _func records),
// and, since Go 1.22, the funcdata blob go:func.* at the end of the section.
package symtab
