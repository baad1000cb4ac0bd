// Package systab describes the kernel's system-call ABI as data: for each Linux system call the
// kernel answers, by name and for every architecture at once, the kernel function that serves it
// and how far it is supported (Calls). mksystab.go joins that list with each architecture's
// numbers (package sysnames, generated from the Go toolchain) into the kernel's dispatch tables,
// kernel/syscalls/systab_amd64.go and systab_arm64.go, and into the table of supported calls in
// docs/kernel.md. A call an architecture does not have (open, arch_prctl on arm64) simply has no
// row there.
//
// The package runs on the host only (the generator and its tests); the kernel never imports it.
package systab

//go:generate go run mksystab.go -kernel ../syscalls -doc ../../docs/kernel.md

// Level is how far the kernel supports a system call.
type Level int

const (
	// Full: served as Linux serves it, for the arguments a program may pass (Note, if any,
	// says how a single-process machine answers, such as the ids that are always 0).
	Full Level = iota + 1
	// Partial: served, within the limits Note states; what lies outside them fails as Note
	// says.
	Partial
	// Fails: not served; the call returns -Errno, for the reason Note gives, and is not
	// reported on the console (an unknown call is, once).
	Fails
)

func (l Level) String() string {
	switch l {
	case Full:
		return "full"
	case Partial:
		return "partial"
	case Fails:
		return "fails"
	}
	return "Level(?)"
}

// Call is one system call the kernel answers, on every architecture that has it.
type Call struct {
	// Name is Linux's name for the call (as package sysnames spells it).
	Name string
	// Handler names the kernel function that serves the call, of type syscallHandler
	// (kernel/syscalls/syscall.go): one of package kernel/syscalls, or of kernel/syscalls/files
	// as files.Name; empty for a call that Fails.
	Handler string
	// Level says how far the call is supported.
	Level Level
	// Errno names the kernel's errno constant (kernel/abi) that a call that Fails
	// returns, negated.
	Errno string
	// Note is what the docs say about the call: the limits of a Partial call, the reason a
	// call Fails; optional for a Full one.
	Note string
}

// full, partial and fails build the rows of Calls.
func full(name, handler, note string) Call {
	return Call{Name: name, Handler: handler, Level: Full, Note: note}
}

func partial(name, handler, note string) Call {
	return Call{Name: name, Handler: handler, Level: Partial, Note: note}
}

func fails(name, errno, reason string) Call {
	return Call{Name: name, Level: Fails, Errno: errno, Note: reason}
}
