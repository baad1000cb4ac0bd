// Package entry provides an assembly entry symbol, as the kernel's arch
// packages do, so the tests can link with -E.
package entry

// start jumps to the Go runtime's Linux entry. It is never called from Go.
func start()
