package virtio

// Bus reads and writes the 32-bit registers of a virtio-mmio window. The kernel implements it
// with volatile loads and stores (plus whatever barrier its architecture needs around device
// memory); host tests implement it with a device model. A Bus is passed to every call that
// touches the device and is never stored, so the driver's state stays pointer-free.
type Bus interface {
	Read32(addr uintptr) uint32
	Write32(addr uintptr, v uint32)
}

// ConfigReader reads one byte, which device configuration space needs: QEMU answers a
// configuration read that reaches past the device's configuration size with all ones, so a
// 32-bit read cannot fetch the last bytes of a field whose end is not word-aligned (virtio-9p's
// mount tag). QEMU serves 8-bit reads at every configuration offset on both interface versions.
// The kernel implements Read8 with a single byte load, on the same value as its Bus.
//
// It is an interface of its own, not a Bus with one more method: a driver handed the wider
// interface would convert it to a Bus for the shared transport code, and an interface-to-
// interface conversion looks its method table up in the runtime, under a lock, which kernel
// code before the runtime must not do (kernelcheck refuses it).
type ConfigReader interface {
	Read8(addr uintptr) uint8
}

// virtio-mmio register offsets (virtio 1.2 §4.2.2 and, for the legacy v1 interface, §4.2.4).
const (
	regMagic             = 0x000
	regVersion           = 0x004
	regDeviceID          = 0x008
	regVendorID          = 0x00c
	regDeviceFeatures    = 0x010
	regDeviceFeaturesSel = 0x014
	regDriverFeatures    = 0x020
	regDriverFeaturesSel = 0x024
	regGuestPageSize     = 0x028 // legacy only
	regQueueSel          = 0x030
	regQueueNumMax       = 0x034
	regQueueNum          = 0x038
	regQueueAlign        = 0x03c // legacy only
	regQueuePFN          = 0x040 // legacy only
	regQueueReady        = 0x044 // modern only
	regQueueNotify       = 0x050
	regInterruptStatus   = 0x060
	regInterruptACK      = 0x064
	regStatus            = 0x070
	regQueueDescLow      = 0x080 // modern only, from here down
	regQueueDescHigh     = 0x084
	regQueueDriverLow    = 0x090
	regQueueDriverHigh   = 0x094
	regQueueDeviceLow    = 0x0a0
	regQueueDeviceHigh   = 0x0a4
	regConfigGeneration  = 0x0fc // modern only
	regConfig            = 0x100

	// regConfigMaxPorts is struct virtio_console_config.max_nr_ports (after cols and rows).
	regConfigMaxPorts = regConfig + 4
)

// Magic is "virt" read as a little-endian word from the MagicValue register.
const Magic = 0x74726976

// Versions of the virtio-mmio register interface. QEMU 7.2 defaults to legacy; the
// virtio-mmio.force-legacy=false global gives modern.
const (
	VersionLegacy = 1
	VersionModern = 2
)

// Virtio device ids (virtio 1.2 §5).
const (
	DeviceIDConsole = 3 // virtio-console (virtio-serial in QEMU)
	DeviceID9P      = 9 // 9P transport (virtio-9p-device in QEMU)
)

// Device status bits (virtio 1.2 §2.1).
const (
	statusAcknowledge = 1
	statusDriver      = 2
	statusDriverOK    = 4
	statusFeaturesOK  = 8
	statusFailed      = 0x80
)

// Feature bits this driver knows.
const (
	FeatureConsoleMultiport = 1  // VIRTIO_CONSOLE_F_MULTIPORT: ports and the control queues
	Feature9PMountTag       = 0  // VIRTIO_9P_MOUNT_TAG: the config space holds the mount tag
	FeatureVersion1         = 32 // VIRTIO_F_VERSION_1: required on the modern interface
)

// Interrupt status bits.
const (
	interruptUsedRing = 1
	interruptConfig   = 2
)

// Where QEMU puts virtio-mmio windows. Devices fill the highest slot first, so the first
// -device on the command line is at the top of the window.
const (
	SlotSize     = 0x200
	MicrovmBase  = 0xfeb00000 // amd64 -M microvm
	MicrovmSlots = 24
	VirtBase     = 0x0a000000 // arm64 -M virt
	VirtSlots    = 32
)
