// Package mm manages memory for the kernel: physical frames (Frames) and the map of the user
// address space that the Linux mmap family of system calls edits (Space).
//
// It is kernel-mode Go: every type is pointer-free and every method is allocation-free and
// panic-free, so it can run in trap context. None of it locks; the caller serialises access.
// It is pure logic, tested on the host: physical memory is reached through DirectMap, which host
// tests point at a buffer of their own.
package mm
