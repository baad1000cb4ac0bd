package main

import (
	"sync/atomic"

	"github.com/unitrace/unitrace/arch/amd64"
	"github.com/unitrace/unitrace/boot"
	"github.com/unitrace/unitrace/boot/acpi"
	"github.com/unitrace/unitrace/decimal"
)

// main never runs: the image enters at amd64.pvhEntry and never starts the Go runtime.
func main() {}

// Implemented in entry_amd64.s.
func waitForInterrupts()

// Everything below runs without the Go runtime: no allocation, no panics, no runtime printing,
// no package initializers; the state is pointer-free globals.

const (
	exitPass       = 3 // QEMU status 7
	exitFail       = 1 // QEMU status 3
	vectorIPI      = 0xf0
	trampolinePage = 0x10000 // arch/amd64 trampolineAddr
	timerDelayNS   = 1_000_000
	waitSeconds    = 10
)

var (
	startInfo boot.StartInfo
	tables    acpi.Reader
	madt      acpi.MADT

	apicIDs   [amd64.MaxCPUs]uint32
	numCPUs   int
	timerHits [amd64.MaxCPUs]uint32
	ipiHits   [amd64.MaxCPUs]uint32
	ipiDone   [amd64.MaxCPUs]uint32 // set by the AP after it printed its IPI line
	printLock uint32
)

// bootMain is called by arch/amd64's start64 on the boot stack, interrupts masked.
func bootMain(startInfoAddr uintptr) {
	amd64.InitConsole()
	puts("amd64 smoke: long mode\n")
	amd64.InitCPU()
	amd64.InitClock()
	amd64.InitLocalTimer()
	if e := boot.ParsePVH(startInfoAddr, readPhys, &startInfo); e != boot.OK {
		puts("start_info: ")
		fail(e.String())
	}
	if !isRAM(trampolinePage, 4096) {
		fail("the trampoline page is not RAM in the memory map")
	}
	if startInfoAddr < trampolinePage+4096 && startInfoAddr+4096 > trampolinePage {
		fail("start_info overlaps the trampoline page")
	}
	puts("memmap: trampoline page 0x10000 is RAM\n")
	if e := tables.FindMADT(uintptr(startInfo.RSDP), readPhys, &madt); e != acpi.OK {
		puts("acpi: ")
		fail(e.String())
	}
	if hasWord(startInfo.Cmdline(), "acpidump") {
		dumpTables()
	}
	collectCPUs()
	puts("madt: ")
	putd(uint64(numCPUs))
	puts(" CPUs, boot APIC ID ")
	putd(uint64(apicIDs[0]))
	puts("\n")

	amd64.ReserveCPUs(numCPUs)
	for i := 1; i < numCPUs; i++ {
		if !amd64.StartAP(i, apicIDs[i]) {
			lock()
			puts("cpu ")
			putd(uint64(i))
			fail(" did not start")
		}
	}
	for i := 1; i < numCPUs; i++ {
		waitFor(&timerHits[i], "a timer interrupt on an AP")
	}
	for i := 1; i < numCPUs; i++ {
		amd64.SendIPI(apicIDs[i], vectorIPI)
		waitFor(&ipiDone[i], "an AP's answer to an IPI")
	}
	lock()
	puts("amd64 smoke: PASS\n")
	amd64.Exit(exitPass)
}

// collectCPUs lists the usable CPUs of the MADT with the boot CPU first.
func collectCPUs() {
	boot := amd64.LocalAPICID()
	apicIDs[0] = boot
	numCPUs = 1
	sawBoot := false
	for i := 0; i < madt.NumCPUs; i++ {
		c := madt.CPUs[i]
		switch {
		case !c.Usable():
		case c.APICID == boot:
			sawBoot = true
		case numCPUs < amd64.MaxCPUs:
			apicIDs[numCPUs] = c.APICID
			numCPUs++
		}
	}
	if !sawBoot {
		fail("the boot CPU is not in the MADT")
	}
}

// secondary is each AP's entry point (KERNEL_ENTRY_SECONDARY), on its own boot stack.
func secondary(cpu uintptr) {
	amd64.InitLocalAPIC()
	if amd64.CPUIndex() != uint32(cpu) || amd64.LocalAPICID() != apicIDs[cpu] {
		fail("an AP's CPU index or APIC ID is not what StartAP was given")
	}
	lock()
	puts("cpu ")
	putd(uint64(cpu))
	puts(" online, APIC ID ")
	putd(uint64(amd64.LocalAPICID()))
	puts("\n")
	unlock()
	amd64.ArmTimer(amd64.Rdtsc()+amd64.TSCHz()/1000*timerDelayNS/1_000_000, amd64.VectorTimer)
	waitForInterrupts()
}

// trap is the trap entry point: a timer interrupt or the IPI on an AP; anything else fails.
func trap(f *amd64.Frame) {
	cpu := amd64.CPUIndex()
	switch {
	case cpu != 0 && f.Vector == amd64.VectorTimer:
		amd64.EOI()
		atomic.StoreUint32(&timerHits[cpu], 1)
		lock()
		puts("cpu ")
		putd(uint64(cpu))
		puts(": timer interrupt\n")
		unlock()
	case cpu != 0 && f.Vector == vectorIPI:
		amd64.EOI()
		atomic.StoreUint32(&ipiHits[cpu], 1)
		lock()
		puts("cpu ")
		putd(uint64(cpu))
		puts(": IPI from cpu 0\n")
		unlock()
		atomic.StoreUint32(&ipiDone[cpu], 1)
	case f.Vector == amd64.VectorSpurious:
	default:
		lock()
		puts("trap: vector ")
		putd(f.Vector)
		puts(" on cpu ")
		putd(uint64(cpu))
		puts(" at rip ")
		putx(f.RIP)
		fail("")
	}
}

// waitFor spins until *flag is set, or fails after waitSeconds.
func waitFor(flag *uint32, what string) {
	start := amd64.Rdtsc()
	for atomic.LoadUint32(flag) == 0 {
		if amd64.Rdtsc()-start > waitSeconds*amd64.TSCHz() {
			lock()
			puts("timed out waiting for ")
			fail(what)
		}
		amd64.Pause()
	}
}

// readPhys reads identity-mapped physical memory below 4 GiB (the boot page tables' reach).
func readPhys(pa uintptr, dst []byte) bool {
	if pa+uintptr(len(dst)) < pa || pa+uintptr(len(dst)) > 4<<30 {
		return false
	}
	for i := range dst {
		dst[i] = *(*byte)(physPointer(pa + uintptr(i)))
	}
	return true
}

// isRAM reports whether [pa, pa+n) lies in one RAM range of the memory map.
func isRAM(pa, n uint64) bool {
	m := &startInfo.Memory
	for i := 0; i < m.Len(); i++ {
		r := m.At(i)
		if r.Type == boot.MemoryRAM && r.Addr <= pa && pa+n <= r.End() {
			return true
		}
	}
	return false
}

func hasWord(s []byte, w string) bool {
	for i := 0; i+len(w) <= len(s); i++ {
		if string(s[i:i+len(w)]) == w && (i+len(w) == len(s) || s[i+len(w)] == ' ') && (i == 0 || s[i-1] == ' ') {
			return true
		}
	}
	return false
}

var dumpBuf [acpi.MaxTableSize]byte

// dumpTables prints the RSDP, the root table and the MADT as "acpi <address> <hex>" lines.
func dumpTables() {
	r := tables.RSDP
	rsdpLen := 20
	if r.Revision >= 2 {
		rsdpLen = 36
	}
	dumpAt(uintptr(startInfo.RSDP), rsdpLen)
	root := uint64(r.RSDT)
	if r.XSDT != 0 {
		root = r.XSDT
	}
	dumpTable(uintptr(root))
	// The root's entries: dump each table whose signature is APIC.
	if !readPhys(uintptr(root), dumpBuf[:36]) {
		return
	}
	n := int(le32(dumpBuf[4:]))
	width := 4
	if r.XSDT != 0 {
		width = 8
	}
	if n > len(dumpBuf) || !readPhys(uintptr(root), dumpBuf[:n]) {
		return
	}
	var entries [64]uint64
	k := 0
	for off := 36; off+width <= n && k < len(entries); off += width {
		entries[k] = uint64(le32(dumpBuf[off:]))
		if width == 8 {
			entries[k] |= uint64(le32(dumpBuf[off+4:])) << 32
		}
		k++
	}
	for i := 0; i < k; i++ {
		var sig [4]byte
		if readPhys(uintptr(entries[i]), sig[:]) && string(sig[:]) == "APIC" {
			dumpTable(uintptr(entries[i]))
		}
	}
}

func dumpTable(pa uintptr) {
	if !readPhys(pa, dumpBuf[:8]) {
		return
	}
	dumpAt(pa, int(le32(dumpBuf[4:])))
}

func dumpAt(pa uintptr, n int) {
	if n > len(dumpBuf) || !readPhys(pa, dumpBuf[:n]) {
		return
	}
	puts("acpi ")
	putx(uint64(pa))
	puts(" ")
	const hex = "0123456789abcdef"
	for _, c := range dumpBuf[:n] {
		line[0], line[1] = hex[c>>4], hex[c&15]
		amd64.ConsoleWrite(line[:2])
	}
	puts("\n")
}

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

func lock() {
	for !atomic.CompareAndSwapUint32(&printLock, 0, 1) {
		amd64.Pause()
	}
}

func unlock() { atomic.StoreUint32(&printLock, 0) }

// fail reports a failure (the caller holds the print lock or no AP runs) and exits.
func fail(msg string) {
	puts("FAIL: ")
	puts(msg)
	puts("\n")
	amd64.Exit(exitFail)
}

var line [64]byte

func puts(s string) {
	for len(s) > 0 {
		n := copy(line[:], s)
		amd64.ConsoleWrite(line[:n])
		s = s[n:]
	}
}

func putd(v uint64) {
	var d decimal.Digits
	amd64.ConsoleWrite(d.Uint(v))
}

func putx(v uint64) {
	const hex = "0123456789abcdef"
	i := len(line)
	for {
		i--
		line[i] = hex[v&15]
		v >>= 4
		if v == 0 {
			break
		}
	}
	i--
	line[i] = 'x'
	i--
	line[i] = '0'
	amd64.ConsoleWrite(line[i:])
}
