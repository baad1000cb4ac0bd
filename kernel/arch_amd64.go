package kernel

import (
	"github.com/unitrace/unitrace/arch/amd64"
	"github.com/unitrace/unitrace/kernel/sysnames"
)

// The kernel's view of the hardware layer on amd64. Each arch provides the same names.
type Frame = amd64.Frame

// Linux/amd64 system-call convention: number in RAX, arguments in RDI, RSI, RDX, R10, R8, R9,
// result in RAX.
func sysNum(f *Frame) uint64 { return f.RAX }

func sysArgs(f *Frame, a *[6]uint64) {
	a[0], a[1], a[2], a[3], a[4], a[5] = f.RDI, f.RSI, f.RDX, f.R10, f.R8, f.R9
}

func setSysRet(f *Frame, v uint64) { f.RAX = v }

// sysRet is the result setSysRet stored.
func sysRet(f *Frame) uint64 { return f.RAX }

// struct epoll_event is packed (12 bytes) on amd64.
const (
	epollPacked    = true
	epollEventSize = 12
)

// archPlatform is AT_PLATFORM. AT_HWCAP means nothing to the Go runtime on amd64 (it reads
// CPUID itself), so it is 0.
const archPlatform = "x86_64"

func archHWCap() uint64 { return 0 }

// cpuIndex is the number of the CPU the kernel runs on.
func cpuIndex() int { return int(amd64.CPUIndex()) }

// syscallName names a Linux/amd64 system call for messages.
func syscallName(nr uint64) string {
	if n := sysnames.AMD64(nr); n != "" {
		return n
	}
	return "unknown"
}
