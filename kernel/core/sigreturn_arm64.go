package core

// sigreturnTrampoline returns the address of the kernel's rt_sigreturn trampoline
// (sigreturn_arm64.s).
func sigreturnTrampoline() uintptr

// sigreturnCode is the trampoline itself; only its address is used.
func sigreturnCode()
