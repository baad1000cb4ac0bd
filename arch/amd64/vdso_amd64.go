package amd64

// The vDSO's functions (vdso_amd64.s): never called from Go. The image builder copies their
// code into the vDSO's page (kernel/vdso.LayoutFor names them by symbol).
func vdsoClockGettime()
func vdsoGettimeofday()

var vdsoClockGettimePC, vdsoGettimeofdayPC uintptr

// VDSOCodeLinked reports whether the vDSO's functions are in the image. Calling it keeps them
// there: nothing else in the image refers to them.
func VDSOCodeLinked() bool { return vdsoClockGettimePC != 0 && vdsoGettimeofdayPC != 0 }

// ClockParams are the monotonic clock's parameters, as Nanotime uses them: ns = (TSC - base) *
// mult >> 32.
func ClockParams() (base, mult uint64) { return tscBase, tscMult }
