package virtio

// QEMU fills a virtio-mmio window from the top: the first -device on the command line is at
// the highest slot. Empty slots read the magic with device id 0. The scans here go from the
// highest slot down, so devices come out in command-line order.

// slotHolds reports whether the window at a holds device id.
func slotHolds(bus Bus, a uintptr, id uint32) bool {
	return bus.Read32(a+regMagic) == Magic && bus.Read32(a+regDeviceID) == id
}

// FindDevices scans a virtio-mmio window of slots (SlotSize apart from base) for every device
// with virtio device id (DeviceID9P, DeviceIDConsole, ...), stores their base addresses in out
// in command-line order and returns how many it stored (at most len(out)). It does not check
// the interface version; Init does.
func FindDevices(bus Bus, base uintptr, slots int, id uint32, out []uintptr) int {
	n := 0
	for i := slots - 1; i >= 0 && n < len(out); i-- {
		a := base + uintptr(i)*SlotSize
		if slotHolds(bus, a, id) {
			out[n] = a
			n++
		}
	}
	return n
}

// FindConsole scans a virtio-mmio window of slots (SlotSize apart from base) for a
// virtio-console and returns its base address and interface version: the first
// virtio-serial-device on the command line with an interface version this driver speaks.
func FindConsole(bus Bus, base uintptr, slots int) (addr uintptr, version uint32, err Err) {
	err = ErrNoDevice
	for i := slots - 1; i >= 0; i-- {
		a := base + uintptr(i)*SlotSize
		if !slotHolds(bus, a, DeviceIDConsole) {
			continue
		}
		v := bus.Read32(a + regVersion)
		if v != VersionLegacy && v != VersionModern {
			err = ErrVersion
			continue
		}
		return a, v, OK
	}
	return 0, 0, err
}
