package kernel

// secondaryMain is where a CPU started by the hardware layer (amd64.StartAP, arm64.StartCPU)
// enters the kernel, on its own kernel stack with interrupts masked. The kernel does not
// schedule on more than one CPU yet (issue 6): it never starts another CPU, and one that
// arrived here anyway stays parked, taking no interrupts and touching no shared state.
func secondaryMain(cpu uint64) {
	for {
		parkCPU()
	}
}
