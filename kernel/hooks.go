package kernel

// What the kernel's state calls in the layers above it, handed down at boot by the composition
// root (wiring.go). Each is called through a helper that says what happens when none is set.

var (
	// exitHook stops the machine with the program's exit status: the reports, the trace's end.
	exitHook hook[func(code int)]
	// wakeHook writes a wake-up record (only while wakersOn).
	wakeHook hook[func(slot int32, timedOut bool)]
	// probeHook reports where the CPUs in mask are (a cross-CPU request they did not answer).
	probeHook hook[func(mask uint64)]
	// sweepHook is the boot CPU's third timer client, the off-CPU sweep: its next deadline in
	// ticks (0 for none).
	sweepHook hook[func() uint64]
)

// exitGroup ends the program with status code: the machine stops. It does not return.
func exitGroup(code int) { exitHook.get()(code) }

// whereCPUsAre reports where the CPUs in mask are, if a reporter is installed.
func whereCPUsAre(mask uint64) {
	if probeHook.isSet() {
		probeHook.get()(mask)
	}
}

// sweepDeadline is the off-CPU sweep's next deadline on this CPU, in ticks, 0 for none.
//
//go:nosplit
func sweepDeadline() uint64 {
	if !sweepHook.isSet() {
		return 0
	}
	return sweepHook.get()()
}
