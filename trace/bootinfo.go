package trace

// BootInfo is what the kernel tells the tracer about the machine, for the HELLO frame. Plain
// values only: the kernel sets it at boot, before the Go runtime starts.
type BootInfo struct {
	NCPU      int
	TickHz    uint64 // ticks per second of the record timestamps (the TSC)
	RefTicks  uint64 // a tick reading...
	RefNs     uint64 // ...taken this many ns after boot...
	RefUnixNs int64  // ...at this wall-clock time
	TextStart uint64
	RingSize  uint64
	Flight    bool
	Ready     bool // rings are set up and a trace device is there to drain them to
}

var bootInfo BootInfo

// SetBootInfo records the machine facts for the agent.
func SetBootInfo(b BootInfo) { bootInfo = b }

// Boot returns what the kernel recorded.
func Boot() BootInfo { return bootInfo }
