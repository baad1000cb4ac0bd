// Package options holds what the kernel was told at boot: the boot protocol's memory map and
// command line (Boot), the command line split into words (Cmdline), and the kernel's own flags
// (Kernel), for every kernel package to read. Each feature's own options (the tracer's, the
// sampler's, the shares', ...) are parsed where the feature lives, by the kernel's
// parseCommandLine.
package options

import "github.com/unitrace/unitrace/boot"

// Flags are the kernel's own options, unitrace.NAME=VALUE words on the command line:
//
//	unitrace.strace=1        print every system call on the console
//	unitrace.verbose=1       print boot details (clock, memory, boot time)
//	unitrace.debug=kfault    fault inside the kernel on the first system call (tests the report)
//	unitrace.debug=maskspin  the last CPU spins 3 s with interrupts masked once it is online
//	                         (tests the watchdog's probe)
//	unitrace.vdso=0          no vDSO: every clock read is a system call
//	unitrace.stdin=null      the console has no input: its reads are at end of file, as
//	                         /dev/null's (unitrace run passes it when it gives QEMU no input)
//	unitrace.avx=0           amd64: no AVX, SSE only (ignored on arm64)
//	unitrace.svcbranch=0     arm64: every system call takes the SVC exception; no call site is
//	                         rewritten into a branch to the kernel (ignored on amd64)
//	unitrace.tickless=0      keep every CPU's scheduler tick running, idle or not
//	unitrace.unwind=fp       walks follow frame pointers alone, never the image's SP-delta
//	                         tables (to compare, or to measure the tables' cost)
type Flags struct {
	Verbose     bool
	Strace      bool
	DebugFault  bool
	MaskSpin    bool
	NoVDSO      bool
	StdinNull   bool
	NoAVX       bool
	NoSVCBranch bool
	NoTickless  bool
	FPOnly      bool
}

// Set reads word if it is one of the kernel's flags, and reports whether it was.
func (f *Flags) Set(word string) bool {
	switch word {
	case "unitrace.strace=1":
		f.Strace = true
	case "unitrace.verbose=1":
		f.Verbose = true
	case "unitrace.debug=kfault":
		f.DebugFault = true
	case "unitrace.debug=maskspin":
		f.MaskSpin = true
	case "unitrace.vdso=0":
		f.NoVDSO = true
	case "unitrace.stdin=null":
		f.StdinNull = true
	case "unitrace.avx=0":
		f.NoAVX = true
	case "unitrace.svcbranch=0":
		f.NoSVCBranch = true
	case "unitrace.tickless=0":
		f.NoTickless = true
	case "unitrace.unwind=fp":
		f.FPOnly = true
	default:
		return false
	}
	return true
}

var (
	Kernel  Flags        // the kernel's own flags
	Cmdline boot.Cmdline // the command line, split into words (parsed once at boot)
)

// What the boot protocol told the kernel (PVH start_info on amd64, the device tree on arm64),
// in one structure: the memory map and the command line.
var (
	Boot      boot.StartInfo
	BootNanos int64 // when the kernel was ready to start the program (ns since entry)
)
