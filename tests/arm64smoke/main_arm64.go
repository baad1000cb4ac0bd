package main

import (
	"github.com/unitrace/unitrace/arch/arm64"
	"github.com/unitrace/unitrace/decimal"
)

// main never runs: the image enters at arm64.bootEntry and never starts the Go runtime.
func main() {}

// Implemented in entry_arm64.s.
func smokeThread()
func addrOfSmokeThread() uintptr
func addrOfBootResume() uintptr
func clobberFP()
func brk()

// Everything below runs without the Go runtime: no allocation, no panics, no runtime printing,
// no package initializers; the state is pointer-free globals.

const (
	exitPass       = 7
	exitFail       = 1
	threadStackLen = 4096 // words: 32 KiB
	brkImmediate   = 0x77
	svcResult      = 42
	svc0           = 0xd4000001 // the encoding of SVC #0
	standInGSize   = 128        // a kernel stack's usable part starts this far above its stand-in g (arch/arm64 kstackLo)
)

var (
	thread      arm64.Frame
	threadStack [threadStackLen]uint64
	threadTop   uintptr // 16-byte aligned top of threadStack
	brks        int     // BRK traps taken
	overflowing bool    // recurse is running: a data abort at EL1h is expected
	lastBrkPrev uint64  // Frame.Prev of the last BRK trap
	dtbAddr     uintptr // the device tree, for the SMP test's CPU list
)

// bootMain is called by arch/arm64's boot code on the boot stack, MMU on, interrupts masked.
func bootMain(dtb uintptr) {
	dtbAddr = dtb
	arm64.InitConsole(0)
	if arm64.CurrentEL() != 1 || !arm64.MMUEnabled() {
		fail("not at EL1 with the MMU on")
	}
	puts("arm64 smoke: EL1, MMU on\n")
	puts("boot: entered at EL")
	putd(uint64(arm64.EntryEL()))
	puts("\n")
	arm64.InitCPU()
	arm64.InitClock()

	if v := arm64.VectorBase(); v != arm64.AddrOfVectors() || v%2048 != 0 {
		fail("VBAR_EL1 is not the 2 KiB aligned vector table")
	}
	checkMap(dtb)
	checkPageTable(dtb)

	brk()
	if brks != 1 || lastBrkPrev != 0 {
		fail("BRK at EL1h did not trap once with no outer frame")
	}
	puts("brk: EL1h trap returned\n")

	overflowing = true
	recurse(0) // faults in morestack; trap resumes at bootResume on a fresh boot stack
	fail("recursion returned")
}

// bootResume continues the boot after the stack-overflow test, on the top of the boot stack.
func bootResume() {
	if arm64.HasGICv3SysRegs() {
		if !arm64.InitGICv3(arm64.DefaultGICDBase, arm64.DefaultGICRBase) {
			fail("no GICv3 redistributor for this CPU")
		}
	} else {
		arm64.InitGIC(arm64.DefaultGICDBase, arm64.DefaultGICCBase)
	}
	puts("gic: v")
	putd(uint64(arm64.GICVersion()))
	puts("\n")
	arm64.EnableIRQ(arm64.IntidVirtualTimer, 0x80)
	arm64.EnableIRQ(arm64.IntidPhysicalTimer, 0x80)

	threadTop = (addrOfStack() + threadStackLen*8) &^ 15
	arm64.ThreadFrame(&thread, addrOfSmokeThread(), threadTop)
	arm64.Enter(&thread)
}

// checkMap checks the boot identity map through the live page tables, and the DTB's magic.
func checkMap(dtb uintptr) {
	for _, c := range [...]struct {
		va uintptr
		ok bool
	}{
		{0, false}, {0x8, false}, {0xfff8, false}, {0x10000, true},
		{arm64.DefaultUARTBase, true}, {dtb, true}, {arm64.ImageStart, true},
		{arm64.BootMapEnd - 8, true}, {arm64.BootMapEnd, false},
	} {
		if arm64.Readable(c.va) != c.ok {
			puts("map: ")
			putx(uint64(c.va))
			fail(" has the wrong mapping")
		}
	}
	if m := *(*uint32)(arm64PointerTo(dtb)); m != 0xedfe0dd0 { // 0xd00dfeed, big-endian
		fail("no device tree at the DTB address")
	}
	puts("map: null guard, MMIO, RAM, DTB at ")
	putx(uint64(dtb))
	puts("\n")
}

const (
	ramSize    = 256 << 20             // the test boots with -m 256M
	aliasVA    = 0x10_0000_0000        // 64 GiB: outside the identity map
	ptFrames   = 16                    // frames for the new tables
	hugePage   = 2 << 20               // a level-2 block
	pageSize   = 4 << 10               // a level-3 page
	aliasValue = 0x0123_4567_89ab_cdef // what the aliased page holds
	nullGuard  = 64 << 10              // unmapped at the bottom
	mmioEnd    = arm64.DefaultDTBAddr  // RAM starts where MMIO ends on -M virt
	ramStart   = arm64.DefaultDTBAddr
)

var (
	ptArena  [(ptFrames + 1) * pageSize]byte
	ptNext   uintptr // next free frame in ptArena (page aligned)
	ptEnd    uintptr
	aliasBuf [2 * pageSize]byte // holds the page aliasVA maps
)

// allocFrame hands out the zeroed frames of ptArena to PageTable.
func allocFrame() (uintptr, bool) {
	if ptNext+pageSize > ptEnd {
		return 0, false
	}
	pa := ptNext
	ptNext += pageSize
	return pa, true
}

// checkPageTable builds the kernel's kind of page tables with arm64.PageTable (4 KiB pages above
// the null guard, 2 MiB blocks for MMIO and RAM, one page aliased at 64 GiB), switches to them,
// reads through the alias, then unmaps it and flushes its TLB entry.
func checkPageTable(dtb uintptr) {
	ptNext = (addrOfArray(&ptArena[0]) + pageSize - 1) &^ (pageSize - 1)
	ptEnd = ptNext + ptFrames*pageSize
	root, _ := allocFrame()
	pt := arm64.PageTable{Root: root}
	ok := true
	for va := uintptr(nullGuard); va < hugePage; va += pageSize {
		ok = ok && pt.Map(va, va, arm64.PTEMMIO, allocFrame)
	}
	for va := uintptr(hugePage); va < mmioEnd; va += hugePage {
		ok = ok && pt.MapHuge(va, va, arm64.PTEMMIO, allocFrame)
	}
	for va := uintptr(ramStart); va < ramStart+ramSize; va += hugePage {
		ok = ok && pt.MapHuge(va, va, arm64.PTEKernel, allocFrame)
	}
	page := (addrOfArray(&aliasBuf[0]) + pageSize - 1) &^ (pageSize - 1)
	*(*uint64)(arm64PointerTo(page + 8)) = aliasValue
	ok = ok && pt.Map(aliasVA, page, arm64.PTEKernel|arm64.PTEReadOnly|arm64.PTENoExec, allocFrame)
	if !ok {
		fail("page table: Map failed")
	}
	arm64.SyncPageTables()
	arm64.LoadPageTable(pt.Root)
	if !arm64.Readable(aliasVA+8) || arm64.Readable(8) || !arm64.Readable(dtb) || arm64.Readable(ramStart+ramSize) {
		fail("page table: Readable disagrees with the new tables")
	}
	if *(*uint64)(arm64PointerTo(aliasVA + 8)) != aliasValue {
		fail("page table: the alias does not show the page")
	}
	if pa, ok := pt.Unmap(aliasVA); !ok || pa != page {
		fail("page table: Unmap")
	}
	arm64.FlushPage(aliasVA)
	if arm64.Readable(aliasVA + 8) {
		fail("page table: still mapped after Unmap")
	}
	puts("page table: switched to PageTable-built tables, alias read, unmapped\n")
}

// trap is called by arch/arm64's vector stubs with the Frame they built, interrupts masked.
func trap(f *arm64.Frame) {
	if arm64.InterruptedFrame() != addrOfFrame(f) {
		fail("CurrentFrame is not the trap's Frame")
	}
	if arm64.CPUIndex() != 0 {
		secondaryTrap(f)
		return
	}
	ec := arm64.ESRClass(f.ESR)
	switch {
	case f.Kind == arm64.KindSyncEL1h && ec == arm64.ECBRK64:
		if arm64.ESRISS(f.ESR)&0xffff != brkImmediate {
			fail("BRK immediate not in the syndrome")
		}
		brks++
		lastBrkPrev = f.Prev
		f.ELR += 4
	case f.Kind == arm64.KindSyncEL1h && ec == arm64.ECDataAbort && overflowing:
		overflowed(f)
	case f.Kind == arm64.KindSyncEL1t && ec == arm64.ECSVC64:
		syscall(f)
	case f.Kind == arm64.KindSyncEL1t && ec == arm64.ECDataAbort:
		kind, level := arm64.AbortFault(f.ESR)
		if f.FAR != 8 || kind != arm64.FaultTranslation || arm64.AbortIsWrite(f.ESR) {
			fail("data abort: wrong FAR or syndrome")
		}
		puts("abort: EC 0x25, FAR 0x8, translation fault at level ")
		putd(uint64(level))
		puts("\n")
		f.ELR += 4
	case f.Kind == arm64.KindIRQEL1t:
		interrupt(f)
	default:
		puts("unexpected exception: kind ")
		putd(f.Kind)
		puts(", ESR ")
		putx(f.ESR)
		puts(", ELR ")
		putx(f.ELR)
		puts(", FAR ")
		putx(f.FAR)
		fail("")
	}
}

// recurse overflows the stack it runs on: the compiler's stack check calls morestack, which
// faults on the stand-in g's nil m.
//
//go:noinline
func recurse(n int) int {
	var pad [64]uint64
	pad[n%64] = uint64(n)
	return recurse(n+1) + int(pad[(n+1)%64])
}

// overflowed checks the fault that ended recurse: a load near address 0 in morestack, taken
// at EL1h with the boot stack nearly used up, so the stub moved to the fault stack. Then it
// resumes the boot at bootResume on the top of the boot stack (g, the boot stack's stand-in g,
// is still in the Frame's x28).
func overflowed(f *arm64.Frame) {
	overflowing = false
	lo, hi, ok := arm64.KernelStackBounds(uintptr(f.SavedSP))
	flo, fhi, fok := arm64.KernelStackBounds(addrOfFrame(f))
	if !ok || !fok || fhi == hi || addrOfFrame(f) < flo || f.FAR >= 0x10000 ||
		uintptr(f.SavedSP)-lo >= 8<<10 || uintptr(f.X[28]) != lo-standInGSize {
		fail("overflow: not a morestack fault on a nearly full stack, or not moved to the fault stack")
	}
	puts("overflow: morestack faulted at FAR ")
	putx(f.FAR)
	puts(", Frame on the fault stack\n")
	f.ELR = uint64(addrOfBootResume())
	f.SavedSP = uint64(hi - 16)
	f.X[29], f.X[30] = 0, 0
}

// syscall handles the thread's SVC #0 calls (number in x8).
func syscall(f *arm64.Frame) {
	if arm64.SVCImmediate(f.ESR) != 0 || f.Prev != 0 || !f.FromThread() ||
		f.SPSR&arm64.SPSRModeMask != arm64.SPSRModeEL1t {
		fail("svc: wrong syndrome, nesting or mode")
	}
	switch f.X[8] {
	case 1:
		for i := 0; i < len(f.X); i++ {
			if xChecked(i) && f.X[i] != xPattern(i) {
				puts("svc: x")
				putd(uint64(i))
				fail(" not saved")
			}
		}
		for i := 0; i < 32; i++ {
			if f.Q[2*i] != vPattern(i) || f.Q[2*i+1] != vPattern(i) {
				puts("svc: q")
				putd(uint64(i))
				fail(" not saved")
			}
		}
		if uintptr(f.SavedSP) != threadTop || *(*uint32)(arm64PointerTo(uintptr(f.ELR) - 4)) != svc0 {
			fail("svc: SP_EL0 wrong, or ELR not just after the SVC")
		}
		clobberFP()
		f.X[0] = svcResult
		puts("svc: EC 0x15 from EL1t, x0-x30, SP_EL0 and q0-q31 saved\n")
	case 2:
		if f.X[0] != 1 {
			fail("svc: the thread's registers changed across the trap")
		}
		puts("svc: registers and result intact after ERET\n")
	case 3:
		arm64.ArmTimer(arm64.Ticks()+arm64.TicksHz()/1000, arm64.TimerVirtual)
	default:
		fail("svc: unknown call")
	}
}

// interrupt handles the timer interrupts: virtual first, then physical.
func interrupt(f *arm64.Frame) {
	ack := arm64.AcknowledgeIRQ()
	switch id := arm64.INTID(ack); id {
	case arm64.IntidVirtualTimer:
		if !arm64.TimerFired(arm64.TimerVirtual) || arm64.TimerFired(arm64.TimerPhysical) {
			fail("timer: INTID 27 but the virtual timer did not fire")
		}
		arm64.StopTimer(arm64.TimerVirtual)
		arm64.EndOfIRQ(ack)
		puts("timer: virtual fired (INTID 27)\n")
		brk()
		if brks != 2 || lastBrkPrev != uint64(addrOfFrame(f)) {
			fail("nested BRK: Prev is not the interrupt's Frame")
		}
		puts("brk: nested in the handler, Prev links the outer Frame\n")
		arm64.ArmTimer(arm64.Ticks()+arm64.TicksHz()/1000, arm64.TimerPhysical)
	case arm64.IntidPhysicalTimer:
		if !arm64.TimerFired(arm64.TimerPhysical) {
			fail("timer: INTID 30 but the physical timer did not fire")
		}
		arm64.StopTimer(arm64.TimerPhysical)
		arm64.EndOfIRQ(ack)
		puts("timer: physical fired (INTID 30)\n")
		finish()
	case arm64.IntidSpurious:
	default:
		arm64.EndOfIRQ(ack)
		puts("irq: INTID ")
		putd(uint64(id))
		fail(" unexpected")
	}
}

// finish reads the clock and exits with the pass status.
func finish() {
	arm64.InitRTC(0)
	t := arm64.ReadRTC().Unix()
	if t < 1_600_000_000 {
		fail("rtc: implausible time")
	}
	puts("rtc: ")
	putd(uint64(t))
	puts(" s since 1970\n")
	startSecondaries()
	puts("arm64 smoke: PASS\n")
	arm64.Exit(exitPass)
}

func fail(why string) {
	lockConsole()
	puts(why)
	puts("\narm64 smoke: FAIL\n")
	arm64.Exit(exitFail)
}

func puts(s string) {
	var b [1]byte
	for i := 0; i < len(s); i++ {
		b[0] = s[i]
		arm64.ConsoleWrite(b[:])
	}
}

func putd(v uint64) {
	var d decimal.Digits
	arm64.ConsoleWrite(d.Uint(v))
}

func putx(v uint64) {
	var b [18]byte
	i := len(b)
	for {
		i--
		b[i] = "0123456789abcdef"[v&15]
		v >>= 4
		if v == 0 || i == 2 {
			break
		}
	}
	i--
	b[i] = 'x'
	i--
	b[i] = '0'
	arm64.ConsoleWrite(b[i:])
}
