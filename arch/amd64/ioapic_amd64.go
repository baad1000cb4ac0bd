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

const (
	ioapicBases       = 2
	ioregsel          = 0x00
	iowin             = 0x10
	ioapicVersionReg  = 0x01
	ioapicRedirBase   = 0x10
	redirMasked       = 1 << 16
	redirLevel        = 1 << 15
	pinsPerIOAPIC     = 24
	firstSharedGSI    = 16 // GSIs below are ISA interrupts (timer, keyboard, serial, RTC): unused
	FirstDeviceVector = 64
	maxGSI            = 48
)

var ioapicAddr = [ioapicBases]uintptr{0xfec00000, 0xfec10000}

// ioapicPins[i] is the number of redirection entries of I/O APIC i, 0 if absent.
var ioapicPins [ioapicBases]uint32

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

// UnmaskSharedGSIs routes every GSI from 16 up, level-triggered and active high, to vector
// FirstDeviceVector+gsi on this CPU (APIC id 0), and unmasks it.
func UnmaskSharedGSIs() {
	for gsi := uint32(firstSharedGSI); gsi < maxGSI; gsi++ {
		base, pin, ok := gsiLocation(gsi)
		if !ok {
			continue
		}
		ioapicWrite(base, ioapicRedirBase+2*pin+1, 0) // destination APIC id 0
		ioapicWrite(base, ioapicRedirBase+2*pin, redirLevel|(FirstDeviceVector+gsi))
	}
}

// MaskGSI stops a line that no driver claims.
func MaskGSI(gsi uint32) {
	if base, pin, ok := gsiLocation(gsi); ok {
		ioapicWrite(base, ioapicRedirBase+2*pin, redirMasked)
	}
}

// DeviceGSI returns the GSI of a device interrupt vector, or false for other vectors.
func DeviceGSI(vector uint64) (uint32, bool) {
	if vector < FirstDeviceVector+firstSharedGSI || vector >= FirstDeviceVector+maxGSI {
		return 0, false
	}
	return uint32(vector - FirstDeviceVector), true
}
