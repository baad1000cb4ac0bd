package fdt

// Capacities of a Machine. Exceeding one is an error, never a truncation:
// they cover QEMU virt's maxima (512 CPUs with GICv3, 32 virtio-mmio
// transports) with room to spare.
const (
	MaxMemory   = 32
	MaxReserved = MaxReservations + 32 // the reservation map plus /reserved-memory
	MaxVirtio   = 64
	MaxCPUs     = 512
	MaxRedist   = 4
)

// Device is a memory-mapped device: its node, its first reg entry and the
// GIC interrupt ID of its first interrupt (an SPI n is INTID 32+n; 0 when
// it has no interrupt or one that is not a GIC specifier).
type Device struct {
	Node  Node
	Reg   Region
	INTID uint32
}

// Present reports whether the device was found.
func (d Device) Present() bool { return d.Node.Valid() }

// GIC is the interrupt controller's register frames.
type GIC struct {
	Node      Node
	Version   int    // 2 or 3; 0 when no GIC was found
	Dist      Region // distributor (GICD)
	CPU       Region // GICv2 CPU interface (GICC); zero for GICv3
	Redist    [MaxRedist]Region
	NumRedist int // GICv3 redistributor regions (GICR), from #redistributor-regions
}

// Timer holds the architected timer's GIC interrupt IDs, in the binding's
// order (arm,arch_timer.yaml). QEMU virt: 29, 30, 27, 26.
type Timer struct {
	Node       Node
	SecurePhys uint32 // EL3 physical timer
	Phys       uint32 // non-secure EL1 physical timer (CNTP)
	Virt       uint32 // virtual timer (CNTV)
	Hyp        uint32 // EL2 physical timer
}

// PSCI conduits: the instruction that calls the firmware.
const (
	PSCINone = 0
	PSCIHVC  = 1
	PSCISMC  = 2
)

// PSCIInfo says how to call PSCI firmware.
type PSCIInfo struct {
	Node   Node
	Method int    // PSCINone, PSCIHVC or PSCISMC
	CPUOn  uint32 // function ID of CPU_ON
}

// PSCICPUOn64 is PSCI 0.2's CPU_ON for 64-bit callers, which PSCI 0.2 and
// later fix, so it applies when the node has no cpu_on property.
const PSCICPUOn64 = 0xc4000003

// Machine is what the arm64 kernel needs from QEMU virt's device tree. It
// holds no pointers (spans and nodes are offsets into the blob), so it can
// live in a global; at about 8 KiB it should, rather than on a boot stack.
// Absent devices leave their fields zero.
type Machine struct {
	BootCPU uint32 // the header's boot_cpuid_phys

	Memory      [MaxMemory]Region // reg of enabled device_type "memory" nodes, in document order, empty entries dropped
	NumMemory   int
	Reserved    [MaxReserved]Region // the memory reservation map, then /reserved-memory children's reg
	NumReserved int

	Bootargs Span // /chosen/bootargs without its NUL; empty when absent
	RNGSeed  Span // /chosen/rng-seed, random bytes (QEMU gives 32)

	UART  Device // the PL011 that /chosen/stdout-path names, else the first enabled one
	RTC   Device // the first enabled PL031
	GIC   GIC
	Timer Timer

	Virtio    [MaxVirtio]Device // enabled virtio,mmio transports in document order (QEMU virt: 32 from 0x0a000000, stride 0x200, SPI 16 up)
	NumVirtio int

	PSCI PSCIInfo

	CPUs    [MaxCPUs]uint64 // reg (MPIDR affinity bits) of each /cpus/cpu node, in document order
	NumCPUs int
}
