package arm64

// Declarations of the instruction wrappers in cpu_arm64.s and of the entry code in
// boot_arm64.s and trap_arm64.s.

func mmioRead32(addr uintptr) uint32
func mmioWrite32(addr uintptr, v uint32)
func mmioWrite8(addr uintptr, v uint8)
func mmioRead64(addr uintptr) uint64

func currentEL() uint64
func readSCTLR() uint64
func readVBAR() uint64
func readTTBR0() uint64
func writeTTBR0(v uint64)
func readMPIDR() uint64
func readISAR0() uint64
func readPFR0() uint64

// MIDR reads MIDR_EL1, the CPU's implementer, variant, architecture, part and revision.
func MIDR() uint64
func rndr() (v uint64, ok bool)

// FlushTLB drops every EL1 TLB entry (inner shareable: every CPU's) after making earlier
// page-table stores visible to the walkers.
func FlushTLB()

// FlushPage drops the TLB entries (any ASID, every CPU) for the page holding va.
func FlushPage(va uintptr)

// SyncPageTables makes page-table stores visible to the table walker (DSB ISHST; ISB): needed
// after Map before the new page is touched (an invalid entry is never cached, so no TLB
// maintenance is needed for it).
func SyncPageTables()

func cntvct() uint64
func cntpct() uint64
func cntfrq() uint64
func writeCNTVCVAL(v uint64)
func writeCNTVCTL(v uint64)
func readCNTVCTL() uint64
func writeCNTPCVAL(v uint64)
func writeCNTPCTL(v uint64)
func readCNTPCTL() uint64

func iccEnableSRE() uint64
func iccWritePMR(v uint64)
func iccWriteBPR1(v uint64)
func iccWriteIGRPEN1(v uint64)
func iccReadIAR1() uint64
func iccReadHPPIR1() uint64
func iccWriteEOIR1(v uint64)

// WaitForInterrupt executes WFI (a hint: it may return at once).
func WaitForInterrupt()

func bootEntry()
func entry()
func vectors()
func initKernelStackAt(base uintptr) // called from Go: writes a kernel stack's header
func resume(f uintptr)               // called from Go: enters a Frame, never returns
func idleLoop()
func addrOfIdleLoop() uintptr
func addrOfVectors() uintptr
func addrOfText() uintptr
func addrOfEtext() uintptr
func addrOfEnd() uintptr
func addrOfPclntab() (start, end uintptr)

// AddrOfRuntimeEntry returns the address of _rt0_arm64_linux, the Go runtime's Linux entry
// point, where the first thread starts with the initial process stack.
func AddrOfRuntimeEntry() uintptr

// bootStackBase is the base of the boot kernel stack, written by bootEL1.
var bootStackBase uintptr

// entryTicks is the virtual counter when bootEL1 started: monotonic time zero.
var entryTicks uint64

// entryEL is the exception level bootEntry was entered at (1, or 2 when it dropped from EL2).
var entryEL uint64

// cpus are the per-CPU areas (each CPU's TPIDR_EL1 points at its own); cpus[0] is the boot
// CPU's. An entry with Self == 0 belongs to a CPU that has not been started.
var cpus [MaxCPUs]CPU

// exitBlock is the semihosting SYS_EXIT parameter block (reason, subcode).
var exitBlock [2]uint64

// IRQSave masks IRQs and FIQs and returns the previous DAIF for IRQRestore. Safe with
// interrupts already masked (trap context).
func IRQSave() uint64

// IRQRestore puts DAIF back as IRQSave found it.
func IRQRestore(flags uint64)

// EnableInterrupts unmasks IRQs in PSTATE; DisableInterrupts masks them.
func EnableInterrupts()
func DisableInterrupts()

// CurrentStack returns the bounds of the stack the caller runs on, from the g in R28: the
// running goroutine's g in a thread, the kernel stack's stand-in g in a trap handler.
func CurrentStack() (lo, hi uintptr)

// CPUIndex returns the number of the CPU it runs on, from the per-CPU area (guest kernel only).
func CPUIndex() uint32

// InterruptedFrame returns the address of the Frame of the trap being handled on this CPU
// (CPU.CurrentFrame), or 0 outside a trap handler (guest kernel only).
//
//go:nosplit
func InterruptedFrame() uintptr

// Exit ends the machine with the guest's exit code through semihosting SYS_EXIT
// (ADP_Stopped_ApplicationExit; QEMU needs -semihosting-config enable=on,target=native and then
// exits with exactly code). Without semihosting the HLT is an undefined instruction; Exit has
// pointed VBAR_EL1 at a fallback table by then, which tries PSCI SYSTEM_OFF (QEMU exits with
// status 0), and else waits with interrupts masked, forever.
func Exit(code uint32)
