package fd

import "github.com/unitrace/unitrace/kernel/abi"

// OpenDevice opens the lowest free descriptor on kernel device dev (the kernel gives the trace
// ports fixed descriptors at boot this way).
func (t *Table) OpenDevice(dev uint32) (fd int, errno int) {
	fd = t.open(KindDevice, false, false)
	if fd < 0 {
		return -1, abi.EMFILE
	}
	t.files[fd].count = uint64(dev)
	return fd, 0
}

// Device returns the device number behind fd, if fd is a device.
func (t *Table) Device(fd int) (dev uint32, ok bool) {
	if t.Kind(fd) != KindDevice {
		return 0, false
	}
	return uint32(t.files[fd].count), true
}
