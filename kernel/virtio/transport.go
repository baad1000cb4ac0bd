package virtio

// transport is the virtio-mmio side every driver here shares: where the device's registers
// and the driver's memory are, which interface version the device speaks, and the bring-up
// steps of virtio 1.2 §3.1.1 that do not depend on the device type. It is pointer-free and
// embedded in each driver.
type transport struct {
	base      uintptr
	version   uint32
	directMap uintptr
	memPA     uintptr
}

func (t *transport) va(pa uintptr) uintptr { return pa + t.directMap }

func (t *transport) read(bus Bus, reg uintptr) uint32     { return bus.Read32(t.base + reg) }
func (t *transport) write(bus Bus, reg uintptr, v uint32) { bus.Write32(t.base+reg, v) }

func (t *transport) notify(bus Bus, q *queue) { t.write(bus, regQueueNotify, uint32(q.index)) }

// memoryOK checks a driver's memory block: at least need bytes, page-aligned, not wrapping.
func memoryOK(pa, size, need uintptr) bool {
	return size >= need && pa%pageSize == 0 && pa+need >= pa
}

// start identifies the device at base as deviceID (wrong is the Err when it is another
// device), records where memPA's need bytes are, then resets it and sets ACKNOWLEDGE and
// DRIVER. It returns the status written so far.
func (t *transport) start(bus Bus, base, memPA, need, directMap uintptr, deviceID uint32, wrong Err) (uint32, Err) {
	t.base, t.directMap, t.memPA = base, directMap, memPA
	if t.read(bus, regMagic) != Magic {
		return 0, ErrBadMagic
	}
	t.version = t.read(bus, regVersion)
	if t.version != VersionLegacy && t.version != VersionModern {
		return 0, ErrVersion
	}
	if t.read(bus, regDeviceID) != deviceID {
		return 0, wrong
	}
	// The legacy QueuePFN register holds a 32-bit page number.
	if t.version == VersionLegacy && uint64(memPA+need-1)>>12 > 0xffffffff {
		return 0, ErrMemory
	}

	t.write(bus, regStatus, 0) // reset
	status := uint32(statusAcknowledge)
	t.write(bus, regStatus, status)
	status |= statusDriver
	t.write(bus, regStatus, status)
	return status, OK
}

// fail sets FAILED on top of status, telling the device the driver gave up.
func (t *transport) fail(bus Bus, status uint32) { t.write(bus, regStatus, status|statusFailed) }

// negotiate reads the device's features and accepts exactly want, a set of bits below 32
// that the driver requires (missing is the Err when the device lacks one), plus VERSION_1 and
// FEATURES_OK on the modern interface.
func (t *transport) negotiate(bus Bus, status *uint32, want uint32, missing Err) Err {
	t.write(bus, regDeviceFeaturesSel, 0)
	low := t.read(bus, regDeviceFeatures)
	var high uint32
	if t.version == VersionModern {
		t.write(bus, regDeviceFeaturesSel, 1)
		high = t.read(bus, regDeviceFeatures)
	}
	if low&want != want {
		return missing
	}
	if t.version == VersionModern && high&(1<<(FeatureVersion1-32)) == 0 {
		return ErrNoVersion1
	}

	t.write(bus, regDriverFeaturesSel, 0)
	t.write(bus, regDriverFeatures, want)
	if t.version == VersionLegacy {
		// Legacy has no FEATURES_OK; it needs the page size for QueuePFN instead.
		t.write(bus, regGuestPageSize, pageSize)
		return OK
	}
	t.write(bus, regDriverFeaturesSel, 1)
	t.write(bus, regDriverFeatures, 1<<(FeatureVersion1-32))
	*status |= statusFeaturesOK
	t.write(bus, regStatus, *status)
	if t.read(bus, regStatus)&statusFeaturesOK == 0 {
		return ErrFeaturesRefused
	}
	return OK
}

// setupQueue lays queue n out over the queueStride bytes at physical pa and tells the device
// where it is. It returns false if the device does not offer the queue (or it is already live).
func (t *transport) setupQueue(bus Bus, q *queue, n uint16, pa uintptr) bool {
	t.write(bus, regQueueSel, uint32(n))
	if t.version == VersionModern && t.read(bus, regQueueReady) != 0 {
		return false
	}
	max := t.read(bus, regQueueNumMax)
	if max == 0 {
		return false
	}
	// The largest power of two within both limits (split rings need a power of two).
	size := uint32(MaxQueueSize)
	for size > max {
		size >>= 1
	}
	q.setup(n, uint16(size), t.va(pa), pa)
	t.write(bus, regQueueNum, size)
	if t.version == VersionLegacy {
		t.write(bus, regQueueAlign, queueAlign)
		t.write(bus, regQueuePFN, uint32(pa>>12))
		return true
	}
	desc, avail, used := uint64(pa), uint64(pa+availOffset(q.size)), uint64(pa+usedOffset(q.size))
	t.write(bus, regQueueDescLow, uint32(desc))
	t.write(bus, regQueueDescHigh, uint32(desc>>32))
	t.write(bus, regQueueDriverLow, uint32(avail))
	t.write(bus, regQueueDriverHigh, uint32(avail>>32))
	t.write(bus, regQueueDeviceLow, uint32(used))
	t.write(bus, regQueueDeviceHigh, uint32(used>>32))
	t.write(bus, regQueueReady, 1)
	return true
}

// ackInterrupt reads InterruptStatus and acknowledges what it reports; the kernel shares
// device lines, so the status also says whether the interrupt was this device's.
func (t *transport) ackInterrupt(bus Bus) uint32 {
	st := t.read(bus, regInterruptStatus)
	if st != 0 {
		t.write(bus, regInterruptACK, st&(interruptUsedRing|interruptConfig))
	}
	return st
}
