package kernel

// reportSVCBranches: amd64's SYSCALL is no exception to the emulator, and no call site is
// rewritten (svcbranch_arm64.go).
func reportSVCBranches() {}
