package machine

import (
	"github.com/unitrace/unitrace/arch/amd64"
	"github.com/unitrace/unitrace/kernel/sysnames"
)

// The kernel's view of the hardware layer on amd64. Each arch provides the same names.
type Frame = amd64.Frame

// Linux/amd64 system-call convention: number in RAX, arguments in RDI, RSI, RDX, R10, R8, R9,
// result in RAX.
func SysNum(f *Frame) uint64 { return f.RAX }

func SysArgs(f *Frame, a *SyscallArgs) {
	a[0], a[1], a[2], a[3], a[4], a[5] = f.RDI, f.RSI, f.RDX, f.R10, f.R8, f.R9
}

func SetSysRet(f *Frame, v uint64) { f.RAX = v }

// SysRet is the result SetSysRet stored.
func SysRet(f *Frame) uint64 { return f.RAX }

// struct epoll_event is packed (12 bytes) on amd64.
const (
	EpollPacked    = true
	EpollEventSize = 12
)

// Platform is AT_PLATFORM.
const Platform = "x86_64"

// FramePC and FrameSP are a trapped context's pc and stack pointer.
func FramePC(f *Frame) uintptr { return uintptr(f.RIP) }
func FrameSP(f *Frame) uintptr { return uintptr(f.RSP) }

// SyscallName names a Linux/amd64 system call for messages.
func SyscallName(nr uint64) string {
	if n := sysnames.AMD64(nr); n != "" {
		return n
	}
	return "unknown"
}

// RewindSyscall puts f's pc back on the SYSCALL instruction (2 bytes) that entered the kernel,
// so the call runs again: RAX still holds its number, the other argument registers its
// arguments. UnrewindSyscall undoes it.
func RewindSyscall(f *Frame)   { f.RIP -= 2 }
func UnrewindSyscall(f *Frame) { f.RIP += 2 }

// FramePCSPFP returns the trapped context's pc, stack pointer and frame pointer.
func FramePCSPFP(f *Frame) (pc, sp, fp uintptr) {
	return uintptr(f.RIP), uintptr(f.RSP), uintptr(f.RBP)
}

// FrameInterruptsMasked reports whether the trapped context ran with interrupts masked.
func FrameInterruptsMasked(f *Frame) bool { return f.RFLAGS&amd64.FlagIF == 0 }
