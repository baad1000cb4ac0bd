package amd64

import "encoding/binary"

func syncX87(fx *[512]byte)
func loadX87(fx *[512]byte)
func stmxcsr() uint32

// SyncFP brings f's FXSAVE image up to date from the CPU before the context in f leaves the CPU
// (a switch, a clone) or is shown to the program (a signal frame). Its x87 part is the CPU's:
// the trap stubs save and restore only the SSE registers and MXCSR, and kernel code never uses
// the x87 unit. Its SSE part is filled in if a system call's entry left it out
// (Frame.SSEUnsaved): the vector registers read as zero, which is what a Go caller may find in
// them after any call, and MXCSR is the CPU's, which kernel code leaves alone.
func SyncFP(f *Frame) {
	if f.SSEUnsaved != 0 {
		clear(f.FX[fxXMM0 : fxXMM0+16*16])
		clear(f.YMMHi[:]) // scratch across a system call, as X0-X14 are
		binary.LittleEndian.PutUint32(f.FX[fxMXCSR:], stmxcsr())
		f.SSEUnsaved = 0
	}
	syncX87(&f.FX)
}

// LoadX87 puts f's whole FXSAVE image into the CPU: for the thread that runs next here (a
// switch), or the context that rt_sigreturn restored.
func LoadX87(f *Frame) { loadX87(&f.FX) }

// Offsets in the FXSAVE64 image (Intel SDM vol. 1 §10.5.1, table 10-2), as trap_amd64.s uses them.
const (
	fxMXCSR = 24
	fxXMM0  = 160
)
