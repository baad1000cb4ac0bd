package arm64

// The vDSO's function (vdso_arm64.s): never called from Go. The image builder copies its code
// into the vDSO's page (kernel/vdso.LayoutFor names it by symbol).
func vdsoClockGettime()

var vdsoClockGettimePC uintptr

// VDSOCodeLinked reports whether the vDSO's function is in the image. Calling it keeps it
// there: nothing else in the image refers to it.
func VDSOCodeLinked() bool { return vdsoClockGettimePC != 0 }

// ClockParams are the monotonic clock's parameters, as Nanotime uses them: ns = (CNTVCT - base)
// * mult >> 32.
func ClockParams() (base, mult uint64) { return entryTicks, ticksMult }

func syncInstructions(addr, n uintptr)

// SyncInstructions makes code just written at [addr, addr+n) safe to run on every CPU.
func SyncInstructions(addr, n uintptr) { syncInstructions(addr, n) }
