package kernel

// The handlers of the system calls only amd64 has (see syscall_handlers.go).

func sysArchPrctl(f *Frame, a syscallArgs) (uint64, bool) {
	return sysArchPrctlImpl(f, int(a[0]), uintptr(a[1])), true
}
