package machine

import (
	"github.com/unitrace/unitrace/arch/arm64"
	"github.com/unitrace/unitrace/kernel/sysnames"
)

// Frame is a trapped context as the entry stubs save it (arch/arm64's).
type Frame = arm64.Frame

// Linux/arm64 system-call convention: number in x8, arguments in x0-x5, result in x0.
func SysNum(f *Frame) uint64 { return f.X[8] }

func SysArgs(f *Frame, a *SyscallArgs) {
	a[0], a[1], a[2], a[3], a[4], a[5] = f.X[0], f.X[1], f.X[2], f.X[3], f.X[4], f.X[5]
}

func SetSysRet(f *Frame, v uint64) { f.X[0] = v }

// SysRet is the result SetSysRet stored.
func SysRet(f *Frame) uint64 { return f.X[0] }

// struct epoll_event is naturally aligned (16 bytes) on arm64.
const (
	EpollPacked    = false
	EpollEventSize = 16
)

// Platform is AT_PLATFORM.
const Platform = "aarch64"

// FramePC and FrameSP are a trapped context's pc and stack pointer.
func FramePC(f *Frame) uintptr { return f.PC() }
func FrameSP(f *Frame) uintptr { return f.SP() }

// SyscallName names a Linux/arm64 system call for messages.
func SyscallName(nr uint64) string {
	if n := sysnames.ARM64(nr); n != "" {
		return n
	}
	return "unknown"
}

// RewindSyscall puts f's pc back on the SVC instruction (4 bytes) that entered the kernel, so
// the call runs again: X8 still holds its number, X0-X5 its arguments (the result was not
// stored). UnrewindSyscall undoes it.
func RewindSyscall(f *Frame)   { f.ELR -= 4 }
func UnrewindSyscall(f *Frame) { f.ELR += 4 }

// FramePCSPFP returns the trapped context's pc, stack pointer and frame pointer.
func FramePCSPFP(f *Frame) (pc, sp, fp uintptr) { return f.PC(), f.SP(), f.FP() }

// FrameInterruptsMasked reports whether the trapped context ran with interrupts masked (PSTATE.I).
func FrameInterruptsMasked(f *Frame) bool { return f.SPSR&arm64.SPSRI != 0 }
