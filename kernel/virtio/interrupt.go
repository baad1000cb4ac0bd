package virtio

// Events says what an Interrupt or Poll changed, as bit masks over port numbers (bit p is
// port p), so the kernel can wake exactly the threads waiting on those ports.
type Events struct {
	Ports  uint32 // ports added, removed, named, or opened or closed by the host
	TxDone uint32 // ports whose transmit buffers completed: check Done for their tokens
	RxData uint32 // ports with received bytes for Receive
	Config bool   // the device signalled a configuration change
	More   bool   // a used ring still had entries after the per-call budget: Poll again
	// Raised says the device's InterruptStatus was set (Interrupt only): the line was the
	// device's even when a Poll before this interrupt already took everything it announced.
	Raised bool
}

// Any reports whether anything changed.
func (e Events) Any() bool { return e.Ports|e.TxDone|e.RxData != 0 || e.Config || e.More }

// Interrupt is the device's interrupt handler: it reads InterruptStatus, acknowledges it and
// processes every used ring (Poll). Each ring is processed for at most its size entries per
// call, so the handler's time is bounded; Events.More asks for another Poll. It never blocks, allocates or panics, whatever the device
// wrote into shared memory.
func (d *Device) Interrupt(bus Bus) Events {
	if !d.ready {
		return Events{}
	}
	st := d.ackInterrupt(bus)
	ev := d.Poll(bus)
	ev.Config = st&interruptConfig != 0
	ev.Raised = st != 0
	return ev
}

// Poll processes the used rings without touching the interrupt registers, for callers that
// poll (early boot) or that want to catch up after masking the interrupt.
func (d *Device) Poll(bus Bus) Events {
	var ev Events
	if !d.ready {
		return ev
	}
	d.pollControl(bus, &ev)
	ctlTx := &d.queues[ctlTxQueue]
	for budget := ctlTx.size; ; budget-- {
		if budget == 0 {
			ev.More = true
			break
		}
		if _, ok := ctlTx.harvest(&d.Stats); !ok { // control messages are fire and forget
			break
		}
	}
	for p := 0; p < d.maxPorts; p++ {
		if !d.ports[p].hasQueues {
			continue
		}
		tx := &d.queues[txQueueOf(p)]
		for budget := tx.size; ; budget-- {
			if budget == 0 {
				ev.More = true
				break
			}
			if _, ok := tx.harvest(&d.Stats); !ok {
				break
			}
			ev.TxDone |= 1 << p
		}
		rx := &d.queues[rxQueueOf(p)]
		for budget := rx.size; ; budget-- {
			if budget == 0 {
				ev.More = true
				break
			}
			u, ok := rx.harvest(&d.Stats)
			if !ok {
				break
			}
			if u.n == 0 {
				// Nothing in it: give it straight back.
				rx.post(u.pa, portRxBufSize, true)
				continue
			}
			d.rx[p].push(u.pa, u.n)
			ev.RxData |= 1 << p
		}
	}
	return ev
}

// pollControl handles every control message the device has sent and reposts its buffers.
func (d *Device) pollControl(bus Bus, ev *Events) {
	q := &d.queues[ctlRxQueue]
	reposted := false
	// The budget bounds the handler even against a device that answers every message with
	// another one.
	for budget := q.size; ; budget-- {
		if budget == 0 {
			ev.More = true
			break
		}
		u, ok := q.harvest(&d.Stats)
		if !ok {
			break
		}
		if p := d.control(bus, bytesAt(d.va(u.pa), int(u.n))); p >= 0 {
			ev.Ports |= 1 << p
		}
		q.post(u.pa, ctlRxBufSize, true)
		reposted = true
	}
	if reposted {
		d.notify(bus, q)
	}
}
