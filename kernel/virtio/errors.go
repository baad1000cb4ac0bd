package virtio

// Err is why a driver call failed. The zero value means success. It is a small integer so that
// kernel-mode callers can return it, compare it and print it without allocating.
type Err uint8

const (
	OK                  Err = iota
	ErrNoDevice             // no virtio-console in the probed window
	ErrBadMagic             // the MagicValue register does not read "virt"
	ErrVersion              // an mmio interface version other than 1 or 2
	ErrNotConsole           // the device at the base is not a virtio-console
	ErrNoMultiport          // the device does not offer VIRTIO_CONSOLE_F_MULTIPORT
	ErrNoVersion1           // a modern device that does not offer VIRTIO_F_VERSION_1
	ErrFeaturesRefused      // the device cleared FEATURES_OK after we set it
	ErrQueueUnavailable     // a required queue has QueueNumMax 0 or is already live
	ErrMemory               // the memory handed to Init is too small, misaligned or out of reach
	ErrNotReady             // Init has not succeeded
	ErrBadPort              // no such port, or the port has no queues
	ErrHostClosed           // the host side of the port is not connected (QEMU would discard data)
	ErrQueueFull            // no free descriptor: wait for a completion and retry
	ErrBadBuffer            // an empty or oversized buffer
	ErrBroken               // the device broke the ring protocol; the queue is no longer used
	ErrNotNineP             // the device at the base is not a virtio-9p device
	ErrNoMountTag           // the device does not offer VIRTIO_9P_MOUNT_TAG
)

// String returns a constant description; it never allocates.
func (e Err) String() string {
	switch e {
	case OK:
		return "ok"
	case ErrNoDevice:
		return "no virtio-console device found"
	case ErrBadMagic:
		return "bad virtio-mmio magic"
	case ErrVersion:
		return "unsupported virtio-mmio version"
	case ErrNotConsole:
		return "device is not a virtio-console"
	case ErrNoMultiport:
		return "device lacks VIRTIO_CONSOLE_F_MULTIPORT"
	case ErrNoVersion1:
		return "modern device lacks VIRTIO_F_VERSION_1"
	case ErrFeaturesRefused:
		return "device refused FEATURES_OK"
	case ErrQueueUnavailable:
		return "required virtqueue unavailable"
	case ErrMemory:
		return "driver memory too small, misaligned or unreachable"
	case ErrNotReady:
		return "driver not initialised"
	case ErrBadPort:
		return "no such port"
	case ErrHostClosed:
		return "host side of the port is closed"
	case ErrQueueFull:
		return "virtqueue full"
	case ErrBadBuffer:
		return "bad buffer"
	case ErrBroken:
		return "device broke the virtqueue protocol"
	case ErrNotNineP:
		return "device is not a virtio-9p device"
	case ErrNoMountTag:
		return "device lacks VIRTIO_9P_MOUNT_TAG"
	}
	return "unknown virtio error"
}
