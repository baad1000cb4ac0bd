// Package goabi holds the parts of the Go runtime's private layout that the kernel's assembly
// and the unwinder depend on: offsets into runtime.g and runtime.m, and the stack guard that
// the compiler's stack checks assume. The runtime does not export them, so they are typed here,
// each naming its source; tests/layout checks every one against the DWARF of images built by
// the toolchain in use, so a Go upgrade that moves one fails `make test` with the field's name.
//
// The values are the same on amd64 and arm64.
package goabi

// Offsets into runtime.g (runtime/runtime2.go, type g) and runtime.m (type m).
const (
	GStackLo     = 0   // g.stack.lo (type stack: lo, hi), the lowest byte of the goroutine's stack
	GStackHi     = 8   // g.stack.hi, one past its highest byte
	GStackGuard0 = 16  // g.stackguard0, what a function prologue compares SP against
	GStackGuard1 = 24  // g.stackguard1, the same for the C-ABI and system-stack checks
	GM           = 48  // g.m, the M running the goroutine (nil on a kernel stack's stand-in g)
	MG0          = 0   // m.g0, the goroutine that owns the M's system stack
	MGsignal     = 72  // m.gsignal, the goroutine that owns the M's signal stack
	MCurg        = 184 // m.curg, the goroutine the M runs (what a signal handler interrupted)
)

// StackGuard is how far above stack.lo the runtime puts stackguard0 (runtime/stack.go
// stackGuard = stackNosplit + stackSystem + abi.StackSmall: 800 + 0 + 128 on linux, without
// -race): a nosplit chain may use that much below the guard, so a stack whose guard sits at
// lo+StackGuard never overflows silently.
const StackGuard = 928
