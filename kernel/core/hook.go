package core

import "unsafe"

// Hook is a function a higher layer hands down at boot, for kernel code below it to call
// without importing it (a wait kind's completion, a cross-CPU request's work). It keeps the
// address of the function value's static closure as a uintptr: installing it stores no pointer,
// so it needs no write barrier (cmd/kernelcheck), and the closure, static data of the image, is
// never the garbage collector's to move or free. F must be a func type, and set must be given a
// top-level function: a closure with captured variables, or a method value, would be allocated,
// which kernel code never does.
type Hook[F any] struct{ fv uintptr }

// Set installs f.
func (h *Hook[F]) Set(f F) { h.fv = *(*uintptr)(unsafe.Pointer(&f)) }

// Get returns the installed function, nil if none was.
func (h *Hook[F]) Get() F { return *(*F)(unsafe.Pointer(&h.fv)) }

// IsSet reports whether a function was installed.
func (h *Hook[F]) IsSet() bool { return h.fv != 0 }
