package virtio

// FindConsole scans a virtio-mmio window of slots (SlotSize apart from base) for a
// virtio-console and returns its base address and interface version. It scans from the highest
// slot down, because QEMU fills the window from the top: the first virtio-serial-device on the
// command line is the one found. Empty slots read device id 0 and are skipped.
func FindConsole(bus Bus, base uintptr, slots int) (addr uintptr, version uint32, err Err) {
	err = ErrNoDevice
	for i := slots - 1; i >= 0; i-- {
		a := base + uintptr(i)*SlotSize
		if bus.Read32(a+regMagic) != Magic || bus.Read32(a+regDeviceID) != DeviceIDConsole {
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
