package virtio

// MaxPorts is how many ports (0..MaxPorts-1) get queues; unitrace uses ports 1, 2 and 3. Port 0
// is the console port QEMU reserves for a virtconsole.
const MaxPorts = 4

// MaxNameLen is the longest port name kept; longer names are dropped (and so never match).
const MaxNameLen = 64

// Queue numbers of the multiport layout (virtio 1.2 §5.3.2): port 0 uses 0/1, the control
// queues are 2/3, port N ≥ 1 uses 2N+2 (receive) and 2N+3 (transmit).
const (
	ctlRxQueue = 2
	ctlTxQueue = 3
	numQueues  = 2 + 2*MaxPorts
)

func rxQueueOf(port int) int {
	if port == 0 {
		return 0
	}
	return 2*port + 2
}

func txQueueOf(port int) int { return rxQueueOf(port) + 1 }

// The driver's memory, one physically contiguous, page-aligned block handed to Init: the
// rings of every queue, then the control receive buffers, the control transmit buffers (one
// 8-byte message per control-tx descriptor) and the ports' receive buffers.
const (
	ctlRxBufs     = 32
	ctlRxBufSize  = 128 // an 8-byte header plus a port name
	ctlMsgSize    = 8
	portRxBufs    = 16 // 64 KiB a port in flight: the net port's replies carry a socket's bytes
	portRxBufSize = 4096

	ctlRxOffset  = numQueues * queueStride
	ctlTxOffset  = ctlRxOffset + ctlRxBufs*ctlRxBufSize
	portRxOffset = ctlTxOffset + pageSize
	// MemSize is the size of the block Init needs.
	MemSize = portRxOffset + MaxPorts*portRxBufs*portRxBufSize
)

// Config says where the device and the driver's memory are.
type Config struct {
	Base      uintptr // the device's virtio-mmio window (from FindConsole)
	MemPA     uintptr // physical address of MemSize bytes, page-aligned, for rings and buffers
	MemSize   uintptr
	DirectMap uintptr // memory at physical pa is reached at virtual pa+DirectMap
}

// Stats counts what went wrong on the device's side; the driver never stops on these except
// for BrokenQueues.
type Stats struct {
	BadUsedID      uint64 // used entries naming a descriptor the device did not hold
	BadUsedLen     uint64 // used lengths larger than the buffer (clamped)
	BrokenQueues   uint64 // queues abandoned because the used index ran ahead
	BadControl     uint64 // short or out-of-range control messages
	UnknownControl uint64 // control events the driver does not know
	LongNames      uint64 // port names longer than MaxNameLen
	ControlDropped uint64 // control messages not sent because the control-tx queue was full
	BadConfig      uint64 // configuration fields out of range (clamped)
}

// Port is one virtio-serial port as the device described it.
type Port struct {
	Present       bool // the device sent DEVICE_ADD and no DEVICE_REMOVE since
	Console       bool // the device sent CONSOLE_PORT
	HostConnected bool // the last PORT_OPEN from the device said the host side is open
	GuestOpen     bool // we sent PORT_OPEN(1)
	hasQueues     bool
	nameLen       uint8
	name          [MaxNameLen]byte
}

// Device is a virtio-console driven over virtio-mmio. It is pointer-free and its zero value is
// an uninitialised driver; the kernel keeps one in a global. It does no locking: the caller
// serialises all calls (interrupts masked on one CPU, or one lock).
type Device struct {
	transport
	ready    bool
	maxPorts int

	queues [numQueues]queue
	ports  [MaxPorts]Port
	rx     [MaxPorts]rxFIFO

	Stats Stats
}

// Version is the mmio interface version Init found (1 legacy, 2 modern).
func (d *Device) Version() uint32 { return d.version }

// Ready reports whether Init succeeded.
func (d *Device) Ready() bool { return d.ready }
