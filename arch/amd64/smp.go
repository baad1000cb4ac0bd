package amd64

// Application-processor start-up (Intel SDM vol. 3A §9.4 "Multiple-processor (MP)
// initialization", §11.6 "Issuing interprocessor interrupts"). Pure values, tested on the host.

// trampolineAddr is the page the AP start-up trampoline (testdata/trampoline.S) is copied to.
// A STARTUP IPI starts the AP in real mode at vector<<12, so the page must lie below 1 MiB and
// be page aligned. 0x10000 is the first page above the kernel's 64 KiB null guard, so it stays
// identity-mapped in the kernel's own page tables as well as in the boot tables (the trampoline
// turns paging on while running from it); it is conventional memory that the PVH memory map of
// microvm, q35 and pc marks as RAM and that neither the firmware's start_info, memory map and
// command line nor the ACPI tables occupy (they live in the option-ROM area and the top of
// RAM). The physical frame allocator must keep it (it keeps everything below the image).
const trampolineAddr = 0x10000

// trampolineData is the offset of the trampoline's data words (testdata/trampoline.S .org):
// CR3, the 64-bit entry address, the CPU area of the AP being started.
const (
	trampolineData  = 0xc0
	trampolineCR3   = trampolineData
	trampolineEntry = trampolineData + 8
	trampolineCPU   = trampolineData + 16
)

// Interrupt command register (ICR) encodings, xAPIC mode: the low word starts the send.
const (
	lapicID         = 0x20
	lapicICRLow     = 0x300
	lapicICRHigh    = 0x310
	icrFixed        = 0 << 8
	icrNMI          = 4 << 8
	icrINIT         = 5 << 8
	icrStartup      = 6 << 8
	icrDeliveryBusy = 1 << 12 // delivery status: the previous IPI is still pending
	icrAssert       = 1 << 14
	icrSelf         = 1 << 18 // destination shorthand 01: the sending CPU itself
	maxXAPICID      = 0xff    // the ICR's destination field is 8 bits in xAPIC mode
)

// The MP initialization delays (SDM vol. 3A §9.4.4.1): 10 ms after INIT, 200 µs after each
// STARTUP. apStartTimeout is how long StartAP waits for the AP to report in; TCG on a loaded
// host can take a while.
const (
	initDelayNS    = 10_000_000
	startupDelayNS = 200_000
	apStartTimeout = 2_000_000_000
)

// icrINITWord and icrStartupWord are the ICR low words of the INIT and STARTUP IPIs; the
// STARTUP vector is the trampoline's page number.
func icrINITWord() uint32 { return icrINIT | icrAssert }
func icrStartupWord(page uintptr) uint32 {
	return icrStartup | icrAssert | uint32(page>>12&0xff)
}

// icrNMIWord is the ICR low word of an NMI (the vector field is ignored).
func icrNMIWord() uint32 { return icrNMI | icrAssert }

// icrFixedWord is the ICR low word of a fixed interrupt on vector.
func icrFixedWord(vector uint8) uint32 { return icrFixed | icrAssert | uint32(vector) }

// icrDest is the ICR high word that addresses the local APIC apicID (physical destination).
func icrDest(apicID uint32) uint32 { return apicID << 24 }
