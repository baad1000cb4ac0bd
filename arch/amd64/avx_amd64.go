package amd64

// AVX: whether the program may use the AVX registers (YMM0-YMM15) and instructions, as under
// Linux. The Go runtime and the standard library take their AVX and AVX2 code (SHA-256's block
// function, memmove and memclr of larger blocks, ...) when CPUID says the OS enabled the YMM
// state: CR4.OSXSAVE set, and XCR0 holding x87|SSE|AVX. The kernel then keeps the upper halves
// of YMM0-YMM15 in every interrupt's and exception's frame (Frame.YMMHi, trap_amd64.s), and its
// signal frames carry them in Linux's XSAVE layout (kernel/signal); a system call keeps them no
// more than X0-X14, since the Go ABI has no vector value live across a call.
//
// Under QEMU's TCG the choice cuts both ways (docs/measurements.md): the AVX2 SHA-256 is much
// faster than the scalar one, while memmove's AVX loops are slower than the REP MOVSQ it takes
// without AVX. So it is a boot option (kernel option unitrace.avx=0 turns it off).

// avxOn is 1 when AVX is on; read by trap_amd64.s. Set on the boot CPU by loadCPUTables, before
// the Go runtime reads CPUID, and the same on every CPU.
var avxOn uint8

// avxWanted is the kernel option's answer (SetAVX), read when the boot CPU sets itself up.
var avxWanted = true

// CPUID and control-register bits (Intel SDM vol. 2A CPUID leaf 1 ECX; vol. 3A §2.5, §2.6).
const (
	cpuidXSAVE   = 1 << 26 // CPUID.1:ECX.XSAVE
	cpuidOSXSAVE = 1 << 27 // CPUID.1:ECX.OSXSAVE: reflects CR4.OSXSAVE
	cpuidAVX     = 1 << 28 // CPUID.1:ECX.AVX
	cr4OSXSAVE   = 1 << 18
	// XCR0's state components: x87 (bit 0), SSE (bit 1), AVX (bit 2). The XSAVE area's
	// YMM_Hi128 component, the layout of Frame.YMMHi, is component 2.
	xcr0AVX = 1<<0 | 1<<1 | 1<<2
)

// SetAVX records the kernel option: false keeps the YMM state off (SSE only). It must be called
// before InitCPU.
func SetAVX(on bool) { avxWanted = on }

// AVXOn reports whether AVX is on.
func AVXOn() bool { return avxOn != 0 }

// hasAVX reports whether the CPU can run AVX with the OS's YMM state: XSAVE and AVX in CPUID.
func hasAVX() bool {
	_, _, c, _ := cpuid(1, 0)
	return c&cpuidXSAVE != 0 && c&cpuidAVX != 0
}

// enableAVX turns the YMM state on for this CPU (CR4.OSXSAVE, then XCR0).
func enableAVX() {
	writeCR4(readCR4() | cr4OSXSAVE)
	xsetbv(0, xcr0AVX)
}

func xsetbv(reg uint32, v uint64)
