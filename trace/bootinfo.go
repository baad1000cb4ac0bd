package trace

import "github.com/unitrace/unitrace/trace/wire"

// BootInfo is what the kernel tells the tracer about the machine, for the HELLO frame. Plain
// values only: the kernel sets it at boot, before the Go runtime starts.
type BootInfo struct {
	NCPU       int
	Arch       wire.Arch
	TickSource wire.TickSource
	TickHz     uint64 // ticks per second of the record timestamps (the TSC)
	RefTicks   uint64 // a tick reading...
	RefNs      uint64 // ...taken this many ns after boot...
	RefUnixNs  int64  // ...at this wall-clock time
	TextStart  uint64
	Accel      Accel // what the launcher said QEMU runs the guest with
}

// Accel is the accelerator the launcher reports (unitrace.accel= on the command line).
type Accel uint8

const (
	AccelUnknown Accel = iota
	AccelTCG
	AccelKVM
)

// AccelName is the HELLO spelling of b.Accel.
func (b BootInfo) AccelName() string {
	switch b.Accel {
	case AccelTCG:
		return "tcg"
	case AccelKVM:
		return "kvm"
	}
	return "unknown"
}

var bootInfo BootInfo

// SetBootInfo records the machine facts for the agent.
func SetBootInfo(b BootInfo) { bootInfo = b }

// Boot returns what the kernel recorded.
func Boot() BootInfo { return bootInfo }

// Ticks reads the tick counter that stamps records.
func Ticks() uint64 { return ticks() }
