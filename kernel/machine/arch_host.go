//go:build unitrace_host && amd64

package machine

import "github.com/unitrace/unitrace/trace/wire"

// Host is the machine a host test drives: the unitrace_host build's stand-in for the hardware.
// Its zero value is a machine at time 0 with interrupts enabled and nothing on the console.
var Host HostMachine

// HostMachine is what the stand-in keeps. Tests set Clock and Input, and read the rest.
type HostMachine struct {
	Clock   int64  // ns since "boot": Nanotime, and Ticks at TicksHz = 1e9
	Console []byte // what ConsoleWrite wrote
	Input   []byte // what ConsoleReceive hands out next

	Masked    bool   // interrupts masked (MaskInterrupts, RestoreInterrupts)
	Priority  bool   // the kernel's priority raised (RaisePriority, LowerPriority)
	TickAt    uint64 // the deadlines ArmTimers set last, in ticks
	SampleAt  uint64
	TicksSent int // HandOnTick's self-interrupts
}

// HostExit is what Exit panics with on the host: a host test can recover it and read the code.
type HostExit struct{ Code uint32 }

// HWCap is AT_HWCAP: 0, as on amd64.
func HWCap() uint64 { return 0 }

// Ticks is the host machine's clock in ns.
func Ticks() uint64 { return uint64(Host.Clock) }

// TicksHz: one tick a nanosecond.
func TicksHz() uint64 { return 1e9 }

// Nanotime is the host machine's clock.
func Nanotime() int64 { return Host.Clock }

// HWRandom: the host machine has no random-number instruction.
func HWRandom() (uint64, bool) { return 0, false }

// Exit panics with HostExit.
func Exit(code uint32) { panic(HostExit{code}) }

// FaultExitValue is the guest's (arch/amd64's isa-debug-exit value for a fault).
const FaultExitValue = 0x7f

// TextRange, Pclntab and ImageRange: the host process has no image; all empty.
func TextRange() (lo, hi uintptr)      { return 0, 0 }
func Pclntab() (start, end uintptr)    { return 0, 0 }
func ImageRange() (start, end uintptr) { return 0, 0 }

// KernelStackBounds: a host process runs on no kernel stack.
func KernelStackBounds(sp uintptr) (lo, hi uintptr, ok bool) { return 0, 0, false }

// ConsoleWrite appends to Host.Console.
func ConsoleWrite(b []byte) { Host.Console = append(Host.Console, b...) }

// ConsoleInputInit: the host console has an interrupt (ConsoleReceive serves Host.Input).
func ConsoleInputInit() bool { return true }

// ConsoleReceive moves the bytes Host.Input holds into dst.
func ConsoleReceive(dst []byte) int {
	n := copy(dst, Host.Input)
	Host.Input = Host.Input[n:]
	return n
}

// ConsoleReceiveInterrupt: nothing to turn on or off.
func ConsoleReceiveInterrupt(on bool) {}

// The trace format's names for the host machine: amd64 with the ns clock as its counter.
const (
	TraceArch       = wire.ArchAMD64
	TraceTickSource = wire.TickTSC
)

// InitLocalTimer: nothing to start.
func InitLocalTimer() {}

// ArmTimers records the deadlines.
func ArmTimers(tick, sample uint64, samplerOn, tickHandedOn bool) {
	Host.TickAt, Host.SampleAt = tick, 0
	if samplerOn {
		Host.SampleAt = sample
	}
}

// SharedTimer: as on amd64, one timer serves the tick and the sampler.
const SharedTimer = true

// HandOnTick counts the self-interrupt.
func HandOnTick() { Host.TicksSent++ }

// NanosAt: the host double's clock counts nanoseconds.
func NanosAt(ticks uint64) int64 { return int64(ticks) }

// TimerHz: the host double has no timer hardware.
func TimerHz() uint64 { return 0 }

// AckTimer: nothing to acknowledge.
func AckTimer() {}

// TimerWrites: the host double arms no hardware.
func TimerWrites(cpu int) uint64 { return 0 }

// RaisePriority and LowerPriority record the kernel's priority.
func RaisePriority() { Host.Priority = true }
func LowerPriority() { Host.Priority = false }

// MaskInterrupts and RestoreInterrupts record the mask: flags 1 if it was masked before.
func MaskInterrupts() uint64 {
	was := Host.Masked
	Host.Masked = true
	if was {
		return 1
	}
	return 0
}

func RestoreInterrupts(flags uint64) { Host.Masked = flags != 0 }

// VirtioWindow: the host machine has no virtio-mmio slots.
func VirtioWindow() (base uintptr, slots int) { return 0, 0 }

// IdleFrame and ThreadFrame build contexts as a test can check them: pc and sp only.
func IdleFrame(f *Frame) { *f = Frame{} }

func ThreadFrame(f *Frame, pc, sp uintptr) {
	*f = Frame{}
	f.RIP, f.RSP = uint64(pc), uint64(sp)
}

// RuntimeEntry: no image, no entry.
func RuntimeEntry() uintptr { return 0 }

// Enter and ParkCPU cannot return on the guest; a host test that reaches them has gone wrong.
func Enter(f *Frame) { panic("machine: Enter on the host") }
func ParkCPU()       { panic("machine: ParkCPU on the host") }

// CPUIndex: the host machine has one CPU.
func CPUIndex() int { return 0 }

// VDSOCodeLinked: the host process has no vDSO code to copy.
func VDSOCodeLinked() bool { return false }

// ClockParams is the vDSO's view of the clock: Ticks at 1e9 Hz from 0.
func ClockParams() (base, mult uint64) { return 0, 1 << 32 }

// KernelClock: no CPU is in the kernel.
func KernelClock(c int) (since, ticks uint64) { return 0, 0 }

// SyncInstructions, SaveFPU, LoadFPU, CPURelax, FlushLocalTLB: nothing to do.
func SyncInstructions(addr, n uintptr) {}
func SaveFPU(f *Frame)                 {}
func LoadFPU(f *Frame)                 {}
func CPURelax()                        {}
func FlushLocalTLB()                   {}

// FlushLocalPage: there is no TLB.
func FlushLocalPage(va uintptr) {}

// Readable: a host test's addresses are its own memory.
func Readable(va uintptr) bool { return va != 0 }
