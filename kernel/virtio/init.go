package virtio

// Init resets the device at cfg.Base and brings it up: status ACKNOWLEDGE and DRIVER, feature
// negotiation (MULTIPORT, plus VERSION_1 and FEATURES_OK on the modern interface), every
// queue of the control channel and of ports 0..MaxPorts-1 that the device offers, receive
// buffers posted, DRIVER_OK, and finally DEVICE_READY on the control queue. The device then
// announces its ports through control messages that Interrupt (or Poll) processes.
//
// On failure the device is left with FAILED set (when it was reached at all) and the Err says
// why; the Device stays unusable.
func (d *Device) Init(bus Bus, cfg Config) Err {
	*d = Device{}
	if cfg.MemSize < MemSize || cfg.MemPA%pageSize != 0 || cfg.MemPA+MemSize < cfg.MemPA {
		return ErrMemory
	}
	d.base, d.directMap, d.memPA = cfg.Base, cfg.DirectMap, cfg.MemPA

	if d.read(bus, regMagic) != Magic {
		return ErrBadMagic
	}
	d.version = d.read(bus, regVersion)
	if d.version != VersionLegacy && d.version != VersionModern {
		return ErrVersion
	}
	if d.read(bus, regDeviceID) != DeviceIDConsole {
		return ErrNotConsole
	}
	// The legacy QueuePFN register holds a 32-bit page number.
	if d.version == VersionLegacy && uint64(cfg.MemPA+MemSize-1)>>12 > 0xffffffff {
		return ErrMemory
	}

	d.write(bus, regStatus, 0) // reset
	status := uint32(statusAcknowledge)
	d.write(bus, regStatus, status)
	status |= statusDriver
	d.write(bus, regStatus, status)

	if err := d.negotiate(bus, &status); err != OK {
		d.write(bus, regStatus, status|statusFailed)
		return err
	}

	max := d.read(bus, regConfigMaxPorts)
	d.maxPorts = MaxPorts
	if max < MaxPorts {
		d.maxPorts = int(max)
	}

	if !d.setupQueue(bus, ctlRxQueue) || !d.setupQueue(bus, ctlTxQueue) {
		d.write(bus, regStatus, status|statusFailed)
		return ErrQueueUnavailable
	}
	for p := 0; p < d.maxPorts; p++ {
		d.ports[p].hasQueues = d.setupQueue(bus, rxQueueOf(p)) && d.setupQueue(bus, txQueueOf(p))
	}

	d.postControlBuffers()
	for p := 0; p < d.maxPorts; p++ {
		if d.ports[p].hasQueues {
			d.postPortBuffers(p)
		}
	}

	status |= statusDriverOK
	d.write(bus, regStatus, status)
	d.ready = true
	d.notify(bus, &d.queues[ctlRxQueue])
	for p := 0; p < d.maxPorts; p++ {
		if d.ports[p].hasQueues {
			d.notify(bus, &d.queues[rxQueueOf(p)])
		}
	}
	d.sendControl(bus, 0, ctlDeviceReady, 1)
	return OK
}

// negotiate reads the device's features and accepts exactly the ones this driver needs.
func (d *Device) negotiate(bus Bus, status *uint32) Err {
	d.write(bus, regDeviceFeaturesSel, 0)
	low := d.read(bus, regDeviceFeatures)
	var high uint32
	if d.version == VersionModern {
		d.write(bus, regDeviceFeaturesSel, 1)
		high = d.read(bus, regDeviceFeatures)
	}
	if low&(1<<FeatureConsoleMultiport) == 0 {
		return ErrNoMultiport
	}
	if d.version == VersionModern && high&(1<<(FeatureVersion1-32)) == 0 {
		return ErrNoVersion1
	}

	d.write(bus, regDriverFeaturesSel, 0)
	d.write(bus, regDriverFeatures, 1<<FeatureConsoleMultiport)
	if d.version == VersionLegacy {
		// Legacy has no FEATURES_OK; it needs the page size for QueuePFN instead.
		d.write(bus, regGuestPageSize, pageSize)
		return OK
	}
	d.write(bus, regDriverFeaturesSel, 1)
	d.write(bus, regDriverFeatures, 1<<(FeatureVersion1-32))
	*status |= statusFeaturesOK
	d.write(bus, regStatus, *status)
	if d.read(bus, regStatus)&statusFeaturesOK == 0 {
		return ErrFeaturesRefused
	}
	return OK
}

// setupQueue gives queue n its ring block and tells the device where it is. It returns false
// if the device does not offer the queue.
func (d *Device) setupQueue(bus Bus, n int) bool {
	if n < 0 || n >= numQueues {
		return false
	}
	d.write(bus, regQueueSel, uint32(n))
	if d.version == VersionModern && d.read(bus, regQueueReady) != 0 {
		return false
	}
	max := d.read(bus, regQueueNumMax)
	if max == 0 {
		return false
	}
	// The largest power of two within both limits (split rings need a power of two).
	size := uint32(MaxQueueSize)
	for size > max {
		size >>= 1
	}
	pa := d.memPA + uintptr(n)*queueStride
	q := &d.queues[n]
	q.setup(uint16(n), uint16(size), d.va(pa), pa)
	d.write(bus, regQueueNum, size)
	if d.version == VersionLegacy {
		d.write(bus, regQueueAlign, queueAlign)
		d.write(bus, regQueuePFN, uint32(pa>>12))
		return true
	}
	desc, avail, used := uint64(pa), uint64(pa+availOffset(q.size)), uint64(pa+usedOffset(q.size))
	d.write(bus, regQueueDescLow, uint32(desc))
	d.write(bus, regQueueDescHigh, uint32(desc>>32))
	d.write(bus, regQueueDriverLow, uint32(avail))
	d.write(bus, regQueueDriverHigh, uint32(avail>>32))
	d.write(bus, regQueueDeviceLow, uint32(used))
	d.write(bus, regQueueDeviceHigh, uint32(used>>32))
	d.write(bus, regQueueReady, 1)
	return true
}

// postControlBuffers fills the control receive queue. QEMU drops a control message when it
// finds no buffer, so every buffer goes back as soon as its message is handled.
func (d *Device) postControlBuffers() {
	q := &d.queues[ctlRxQueue]
	for i := 0; i < ctlRxBufs; i++ {
		q.post(d.memPA+ctlRxOffset+uintptr(i)*ctlRxBufSize, ctlRxBufSize, true)
	}
}

// postPortBuffers gives port p its receive buffers.
func (d *Device) postPortBuffers(p int) {
	q := &d.queues[rxQueueOf(p)]
	for i := 0; i < portRxBufs; i++ {
		q.post(d.memPA+portRxOffset+uintptr(p*portRxBufs+i)*portRxBufSize, portRxBufSize, true)
	}
}
