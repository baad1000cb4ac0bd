package amd64

// Declarations of the instruction wrappers in cpu_amd64.s.

func Outb(port uint16, v uint8)
func Inb(port uint16) uint8
func Outl(port uint16, v uint32)
func Inl(port uint16) uint32
func rdmsr(msr uint32) uint64
func wrmsr(msr uint32, v uint64)
func cpuid(leaf, sub uint32) (a, b, c, d uint32)

// CPUID runs the CPUID instruction for leaf and subleaf sub.
func CPUID(leaf, sub uint32) (a, b, c, d uint32) { return cpuid(leaf, sub) }

// Rdtsc reads the time-stamp counter.
func Rdtsc() uint64
func rdrand() (v uint64, ok bool)
func readCR3() uint64
func writeCR3(v uint64)
func readCR4() uint64
func writeCR4(v uint64)

// Invlpg drops the TLB entry for the page holding va.
func Invlpg(va uintptr)
func lgdt(pseudo uintptr)
func lidt(pseudo uintptr)
func ltr(sel uint16)
func halt()

// Pause hints a spin-wait loop.
func Pause()
func mmioRead32(addr uintptr) uint32
func mmioWrite32(addr uintptr, v uint32)

// Declarations of the entry code in boot_amd64.s and trap_amd64.s; these are never called from Go
// except where noted.

func pvhEntry()
func start64()
func initKernelStackAt(base uintptr) // called from Go: writes a kernel stack's header
func syscallEntry()
func trapCommon()
func vectors()
func resume(f uintptr) // called from Go: enters a Frame, never returns
func idleLoop()
func addrOfIdleLoop() uintptr
func addrOfSyscallEntry() uintptr
func addrOfVectors() uintptr

// bootStackBase is the base of the boot kernel stack, written by start64.
var bootStackBase uintptr

// cpu0 is the boot CPU's per-CPU area (GS base).
var cpu0 CPU

func setCR0WP()
func addrOfText() uintptr
func addrOfEtext() uintptr

// AddrOfRuntimeEntry returns the address of _rt0_amd64_linux.
func AddrOfRuntimeEntry() uintptr
func addrOfEnd() uintptr
func addrOfPclntab() (start, end uintptr)

// IRQSave masks interrupts and returns the previous flags for IRQRestore.
func IRQSave() uint64

// IRQRestore re-enables interrupts if they were enabled when IRQSave ran.
func IRQRestore(flags uint64)

// CurrentStack returns the bounds of the stack the caller runs on.
func CurrentStack() (lo, hi uintptr)

// CPUIndex returns the number of the CPU it runs on (guest kernel only).
func CPUIndex() uint32

// HaltUnless halts the calling CPU until an NMI (SendNMI) or an interrupt above the task
// priority wakes it, unless *flag is non-zero. It runs in a trap handler with interrupts
// enabled, and returns so. The waker sets *flag, then sends the
// NMI; the NMI handler must call SkipHaltAfterNMI.
func HaltUnless(flag *uint32)

// SetPriority sets the task-priority class (CR8): only vectors of a higher class are taken.
func SetPriority(class uint64)

// EnableInterrupts sets IF; DisableInterrupts clears it.
func EnableInterrupts()
func DisableInterrupts()

func haltThenReturn()

func haltUnlessPC() uintptr

func haltThenReturnPC() uintptr
