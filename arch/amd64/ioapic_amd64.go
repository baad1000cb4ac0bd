package amd64

// I/O APICs (Intel 82093AA datasheet): device interrupts. QEMU's microvm has one at 0xfec00000
// (GSIs 0-23) and, with ioapic2 (the default), a second at 0xfec10000 (GSIs 24-47) that carries
// the virtio-mmio transports; q35 and pc have the first only.
//
// The kernel does not know which GSI a virtio-mmio slot uses (it depends on the machine's ACPI
// and ioapic2 settings), so device interrupts are handled as shared lines: every GSI from 16 up
// is routed to vector FirstDeviceVector+gsi, level-triggered; the handler asks the drivers to
// look at their devices, and a line nobody claims is masked again (a level-triggered line that
// nobody acknowledges would interrupt forever).
//
// An ISA line below 16 is routed only when a driver asks (RouteLegacyGSI: the console's COM1),
// to the same vector range, and is then a device line like the others. The 8259 PICs, which
// see the same ISA lines, stay masked (InitCPU), so such a line is delivered once.

const (
	ioapicBases       = 2
	ioregsel          = 0x00
	iowin             = 0x10
	ioapicVersionReg  = 0x01
	ioapicRedirBase   = 0x10
	redirMasked       = 1 << 16
	redirLevel        = 1 << 15
	pinsPerIOAPIC     = 24
	firstSharedGSI    = 16 // GSIs below are ISA interrupts (timer, keyboard, serial, RTC): routed on request
	FirstDeviceVector = 64
	maxGSI            = 48
)

var ioapicAddr = [ioapicBases]uintptr{0xfec00000, 0xfec10000}

// ioapicPins[i] is the number of redirection entries of I/O APIC i, 0 if absent.
var ioapicPins [ioapicBases]uint32

// legacyRouted has bit g set for each GSI g below firstSharedGSI that RouteLegacyGSI routed.
var legacyRouted uint32

func ioapicRead(base uintptr, reg uint32) uint32 {
	mmioWrite32(base+ioregsel, reg)
	return mmioRead32(base + iowin)
}

func ioapicWrite(base uintptr, reg, v uint32) {
	mmioWrite32(base+ioregsel, reg)
	mmioWrite32(base+iowin, v)
}

// InitIOAPIC finds the I/O APICs and masks every line.
func InitIOAPIC() {
	for i, base := range ioapicAddr {
		v := ioapicRead(base, ioapicVersionReg)
		if v == 0xffffffff || v == 0 {
			continue // nothing there
		}
		pins := (v>>16)&0xff + 1
		if pins > pinsPerIOAPIC {
			pins = pinsPerIOAPIC
		}
		ioapicPins[i] = pins
		for pin := uint32(0); pin < pins; pin++ {
			ioapicWrite(base, ioapicRedirBase+2*pin, redirMasked)
			ioapicWrite(base, ioapicRedirBase+2*pin+1, 0)
		}
	}
}

// gsiLocation returns the I/O APIC and pin of a GSI.
func gsiLocation(gsi uint32) (base uintptr, pin uint32, ok bool) {
	i := gsi / pinsPerIOAPIC
	if i >= ioapicBases || gsi%pinsPerIOAPIC >= ioapicPins[i] {
		return 0, 0, false
	}
	return ioapicAddr[i], gsi % pinsPerIOAPIC, true
}

// routeGSI routes gsi, level-triggered and active high, to vector FirstDeviceVector+gsi on this
// CPU (APIC id 0), and unmasks it. It reports false for a GSI no I/O APIC has.
func routeGSI(gsi uint32) bool {
	base, pin, ok := gsiLocation(gsi)
	if !ok {
		return false
	}
	ioapicWrite(base, ioapicRedirBase+2*pin+1, 0) // destination APIC id 0
	ioapicWrite(base, ioapicRedirBase+2*pin, redirLevel|(FirstDeviceVector+gsi))
	return true
}

// RouteLegacyGSI routes ISA line gsi (below 16) as a device line, level-triggered and active
// high: right for a device that holds its line high while it wants service, as QEMU's 16550
// does (an ISA line's bus default is edge, but a level entry sees the same high line, and the
// device-line handling, which ends the interrupt after the handler and takes a line still high
// as a new one, is the same as for the shared lines). It reports false if the GSI is not there.
func RouteLegacyGSI(gsi uint32) bool {
	if gsi >= firstSharedGSI || !routeGSI(gsi) {
		return false
	}
	legacyRouted |= 1 << gsi
	return true
}

// UnmaskSharedGSIs routes every GSI from 16 up, level-triggered and active high, to vector
// FirstDeviceVector+gsi on this CPU (APIC id 0), and unmasks it.
func UnmaskSharedGSIs() {
	for gsi := uint32(firstSharedGSI); gsi < maxGSI; gsi++ {
		routeGSI(gsi)
	}
}

// MaskGSI stops a line that no driver claims.
func MaskGSI(gsi uint32) {
	if base, pin, ok := gsiLocation(gsi); ok {
		ioapicWrite(base, ioapicRedirBase+2*pin, redirMasked)
	}
}

// DeviceGSI returns the GSI of a device interrupt vector (a shared line's, or a legacy line's
// that RouteLegacyGSI routed), or false for other vectors.
//
//go:nosplit
func DeviceGSI(vector uint64) (uint32, bool) {
	return deviceGSI(vector, legacyRouted)
}

//go:nosplit
func deviceGSI(vector uint64, legacy uint32) (uint32, bool) {
	if vector < FirstDeviceVector || vector >= FirstDeviceVector+maxGSI {
		return 0, false
	}
	gsi := uint32(vector - FirstDeviceVector)
	if gsi < firstSharedGSI && legacy&(1<<gsi) == 0 {
		return 0, false
	}
	return gsi, true
}
