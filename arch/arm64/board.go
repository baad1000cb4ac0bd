package arm64

// Where QEMU -M virt puts things (hw/arm/virt.c's memory map).
// The device tree says the same; these are the defaults for code that runs before it is read,
// or without it.
const (
	// DefaultDTBAddr is where QEMU puts the device tree for an ELF image: the start of RAM,
	// left free by the link address.
	DefaultDTBAddr = 0x4000_0000

	// ImageStart is the address of the image's first byte: the ELF header page, linked with
	// -T 0x40201000 -R 0x1000 so that QEMU loads it 2 MiB above the DTB (its blob can take
	// 1 MiB).
	ImageStart = 0x4020_0000

	DefaultGICDBase = 0x0800_0000 // GIC distributor
	DefaultGICCBase = 0x0801_0000 // GICv2 CPU interface
	DefaultGICRBase = 0x080a_0000 // GICv3 redistributors (gic-version=3)
	DefaultUARTBase = 0x0900_0000 // PL011
	DefaultRTCBase  = 0x0901_0000 // PL031

	// IntidUART is the PL011's interrupt: SPI 1 (VIRT_UART in hw/arm/virt.c's irqmap),
	// level-triggered, for code without the device tree's. TestVirtConstants checks it and
	// the addresses above against QEMU's device trees.
	IntidUART = IntidFirstSPI + 1
)
