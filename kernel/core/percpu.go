package core

import (
	"sync/atomic"

	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/sched"
	"github.com/unitrace/unitrace/trace/record"
)

// Per-CPU kernel state. Each CPU runs one thread at a time (its current slot) and has its own
// idle thread in the slot numbered like the CPU, its own timers and sampler. A CPU writes its
// own entry; other CPUs read the atomic fields only (stacks, the watchdog, wake-up kicks). Which
// Thread a CPU runs is the scheduler's (scheduler.Current).

// MaxCPUs bounds the CPUs the kernel runs: the scheduler's bound (the hardware layers bound
// them too: amd64.MaxCPUs, arm64.MaxCPUs).
const MaxCPUs = sched.MaxCPUs

// FirstThreadSlot is the first thread slot of the program: slots below it are idle threads.
const FirstThreadSlot = sched.FirstThread

type CPULocal struct {
	Online   atomic.Bool
	Halted   atomic.Bool   // stopped for good (exit or kernel fault)
	kicked   atomic.Bool   // a wake-up IPI is on its way: don't send another
	switches atomic.Uint64 // context switches: the watchdog's progress counter
	Ticks    atomic.Uint64 // timer ticks taken: a CPU whose count stands still is not answering

	// Kernel entries (every trap, NMIs included; on amd64 not the system calls served without
	// the lock, whose path has no call to spare), and the last one's kind and pc: what a CPU
	// that takes no timer tick is doing instead (the watchdog's report). Written by their CPU
	// only, with plain stores (NoteTrap); read by others with atomic loads.
	Traps      uint64
	LastTrap   uint64 // amd64: the vector; arm64: exception kind<<32 | exception class
	LastTrapPC uint64

	lockTaken     atomic.Uint64 // kernel lock acquisitions (ReportLock)
	lockWaits     atomic.Uint64 // ... that had to wait
	lockWaitTicks atomic.Uint64 // ... and how long they waited

	// waker is what wakes threads on this CPU now (SetWaker): the interrupt path being
	// handled, or WakerThread for the running thread's system call.
	Waker record.WakerKind

	TickNext uint64 // the scheduler tick's next deadline (ticks)
	// TickStopped: this CPU's tick is stopped (UpdateTick), its TickNext TickStretch ahead.
	// Written by this CPU only, in its tick's interrupt and at the end of its locked entries;
	// read by the CPUs that may have to kick it (KickForRunnable, KickTicklessCPUs).
	TickStopped atomic.Bool
	// wakeNext is the earliest deadline of a sleeper or a wall-clock timer that this CPU armed
	// its timer for (ticks; 0 for none): the wake-up comes then, not at the next tick.
	WakeNext uint64
	wakeFor  int64 // the deadline wakeNext stands for (ns)
	// tickHandedOn: the sampler's handler found the tick due and handed it on to a lower
	// priority (amd64: a self-IPI on the tick's vector), which has not run yet. Until it has,
	// the timer is armed for the sampler alone.
	TickHandedOn bool
	// periodic: the tick interrupt being handled is the periodic tick, not only a wake-up; the
	// CPU-time timers are checked on the periodic tick alone (ExpireTimers).
	Periodic bool
	// heldTick is the deadline (tickNext) of a tick that fell due while the kernel ran and
	// whose check of the CPU-time timers the kernel made before the tick's interrupt came
	// (CheckHeldOffTick): the interrupt then checks nothing.
	HeldTick uint64
	// sampleCarry is the weight of samples that were due but could not be recorded (their emit
	// nested in another on this CPU): the next sample recorded carries it.
	SampleCarry uint64
	// held: kernel code on this CPU runs at the kernel's priority because an interrupt other
	// than the sampler's is held back until the trap returns (holdback.go).
	held     bool
	XcallAck atomic.Uint64

	// lockWake is set by wakeLockSleeper before it interrupts this CPU, and cleared by the CPU
	// before it announces itself as a sleeper: a wake-up that arrives between the sleeper's last
	// look at the lock and its halt is seen (sync/atomic functions only: lockSleep's assembly
	// reads it).
	lockWake uint32
}

var (
	CPULocals [MaxCPUs]CPULocal
	NumCPUs   int = 1 // CPUs the kernel runs; set once at boot before any secondary starts
)

// NoteTrap counts a kernel entry on this CPU.
//
//go:nosplit
func NoteTrap(vector uint64, pc uintptr) { Here().noteTrap(vector, uint64(pc)) }

// NoteTrap counts a trap on l's CPU and records its kind and pc. Only that CPU writes them, and
// an aligned word store is atomic on both arches, so plain stores do (under TCG an atomic store
// is a locked exchange, a helper call); the watchdog reads them with atomic loads.
//
//go:nosplit
func (l *CPULocal) noteTrap(vector, pc uint64) {
	l.Traps++
	l.LastTrap = vector
	l.LastTrapPC = pc
}

// Here is the calling CPU's state.
//
//go:nosplit
func Here() *CPULocal { return &CPULocals[machine.CPUIndex()&(MaxCPUs-1)] }

// CurSlot is the slot of the thread running on the calling CPU.
//
//go:nosplit
func CurSlot() int32 { return Scheduler.Current(machine.CPUIndex()) }

// IsIdleSlot reports whether slot is an idle thread's.
func IsIdleSlot(slot int32) bool { return sched.IsIdle(slot) }

// OnIdle reports whether the calling CPU runs its idle thread.
func OnIdle() bool { return IsIdleSlot(CurSlot()) }
