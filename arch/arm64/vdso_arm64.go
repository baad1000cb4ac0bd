package arm64

// The vDSO's function (vdso_arm64.s): never called from Go, only copied.
func vdsoClockGettime()

var vdsoClockGettimePC uintptr

// VDSOFunc is one function of the vDSO: its exported name and where its code starts in the
// kernel's text.
type VDSOFunc struct {
	Name  string
	Entry uintptr
}

// VDSOVersion is the symbol version of the function, and VDSOFuncs the functions, as the Go
// runtime looks them up on arm64 (runtime/vdso_linux_arm64.go).
const VDSOVersion = "LINUX_2.6.39"

func VDSOFuncs() [1]VDSOFunc {
	return [1]VDSOFunc{{"__kernel_clock_gettime", vdsoClockGettimePC}}
}

// ClockParams are the monotonic clock's parameters, as Nanotime uses them: ns = (CNTVCT - base)
// * mult >> 32.
func ClockParams() (base, mult uint64) { return entryTicks, ticksMult }

func syncInstructions(addr, n uintptr)

// SyncInstructions makes code just written at [addr, addr+n) safe to run on every CPU.
func SyncInstructions(addr, n uintptr) { syncInstructions(addr, n) }
