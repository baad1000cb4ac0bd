package amd64

// The vDSO's functions (vdso_amd64.s): never called from Go, only copied.
func vdsoClockGettime()
func vdsoGettimeofday()

var vdsoClockGettimePC, vdsoGettimeofdayPC uintptr

// VDSOFunc is one function of the vDSO: its exported name and where its code starts in the
// kernel's text.
type VDSOFunc struct {
	Name  string
	Entry uintptr
}

// VDSOVersion is the symbol version of the functions, and VDSOFuncs the functions, as the Go
// runtime looks them up on amd64 (runtime/vdso_linux_amd64.go).
const VDSOVersion = "LINUX_2.6"

func VDSOFuncs() [2]VDSOFunc {
	return [2]VDSOFunc{{"__vdso_clock_gettime", vdsoClockGettimePC}, {"__vdso_gettimeofday", vdsoGettimeofdayPC}}
}

// ClockParams are the monotonic clock's parameters, as Nanotime uses them: ns = (TSC - base) *
// mult >> 32.
func ClockParams() (base, mult uint64) { return tscBase, tscMult }
