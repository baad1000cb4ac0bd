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
	if !memoryOK(cfg.MemPA, cfg.MemSize, MemSize) {
		return ErrMemory
	}
	status, err := d.start(bus, cfg.Base, cfg.MemPA, MemSize, cfg.DirectMap, DeviceIDConsole, ErrNotConsole)
	if err != OK {
		return err
	}
	if err := d.negotiate(bus, &status, 1<<FeatureConsoleMultiport, ErrNoMultiport); err != OK {
		d.fail(bus, status)
		return err
	}

	max := d.read(bus, regConfigMaxPorts)
	d.maxPorts = MaxPorts
	if max < MaxPorts {
		d.maxPorts = int(max)
	}

	if !d.setupQueue(bus, ctlRxQueue) || !d.setupQueue(bus, ctlTxQueue) {
		d.fail(bus, status)
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

// setupQueue gives queue n its ring block in the driver's memory. It returns false if the
// device does not offer the queue.
func (d *Device) setupQueue(bus Bus, n int) bool {
	if n < 0 || n >= numQueues {
		return false
	}
	return d.transport.setupQueue(bus, &d.queues[n], uint16(n), d.memPA+uintptr(n)*queueStride)
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
