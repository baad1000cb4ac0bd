package kernel

import "unsafe"

// hook is a function a higher layer hands down at boot, for kernel code below it to call
// without importing it (a wait kind's completion, a cross-CPU request's work). It keeps the
// address of the function value's static closure as a uintptr: installing it stores no pointer,
// so it needs no write barrier (cmd/kernelcheck), and the closure, static data of the image, is
// never the garbage collector's to move or free. F must be a func type, and set must be given a
// top-level function: a closure with captured variables, or a method value, would be allocated,
// which kernel code never does.
type hook[F any] struct{ fv uintptr }

// set installs f.
func (h *hook[F]) set(f F) { h.fv = *(*uintptr)(unsafe.Pointer(&f)) }

// get returns the installed function, nil if none was.
func (h *hook[F]) get() F { return *(*F)(unsafe.Pointer(&h.fv)) }

// isSet reports whether a function was installed.
func (h *hook[F]) isSet() bool { return h.fv != 0 }
