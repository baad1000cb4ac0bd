package core

// What the kernel's state calls in the layers above it, handed down at boot by the composition
// root (the kernel's wiring.go). Each is called through a helper that says what happens when none is set.

var (
	// ExitHook stops the machine with the program's exit status: the reports, the trace's end.
	ExitHook Hook[func(code int)]
	// WakeHook writes a wake-up record (only while WakersOn).
	WakeHook Hook[func(slot int32, timedOut bool)]
	// ProbeHook reports where the CPUs in mask are (a cross-CPU request they did not answer).
	ProbeHook Hook[func(mask uint64)]
)

// ExitGroup ends the program with status code: the machine stops. It does not return.
func ExitGroup(code int) { ExitHook.Get()(code) }

// whereCPUsAre reports where the CPUs in mask are, if a reporter is installed.
func whereCPUsAre(mask uint64) {
	if ProbeHook.IsSet() {
		ProbeHook.Get()(mask)
	}
}
