package virtio

// Token names one buffer handed to Send: its descriptor and that descriptor's generation.
// A generation is never 0, so neither is a Token: callers may use 0 for "no token".
type Token uint32

func makeToken(id, gen uint16) Token { return Token(uint32(gen)<<16 | uint32(id)) }

// Port returns a copy of port p's state; a port out of range reads as absent.
func (d *Device) Port(p int) Port {
	if p < 0 || p >= MaxPorts {
		return Port{}
	}
	return d.ports[p]
}

// Name returns the port's name as the device gave it. The result aliases p.
func (p *Port) Name() []byte { return p.name[:p.nameLen] }

// FindPort returns the number of the present port called name, or -1.
func (d *Device) FindPort(name string) int {
	for i := 0; i < d.maxPorts; i++ {
		p := &d.ports[i]
		if p.Present && int(p.nameLen) == len(name) && string(p.name[:p.nameLen]) == name {
			return i
		}
	}
	return -1
}

// usable is the check shared by the calls that move data on a port.
func (d *Device) usable(p int) Err {
	if !d.ready {
		return ErrNotReady
	}
	if p < 0 || p >= d.maxPorts || !d.ports[p].Present || !d.ports[p].hasQueues {
		return ErrBadPort
	}
	return OK
}

// Open tells the device that the guest side of port p is open (PORT_OPEN 1). QEMU passes that
// on to the chardev; data flows guest to host without it.
func (d *Device) Open(bus Bus, p int) Err {
	if err := d.usable(p); err != OK {
		return err
	}
	d.ports[p].GuestOpen = true
	d.sendControl(bus, uint32(p), ctlPortOpen, 1)
	return OK
}

// Close tells the device that the guest side of port p is closed (PORT_OPEN 0).
func (d *Device) Close(bus Bus, p int) Err {
	if err := d.usable(p); err != OK {
		return err
	}
	d.ports[p].GuestOpen = false
	d.sendControl(bus, uint32(p), ctlPortOpen, 0)
	return OK
}

// Send queues the n bytes at physical address pa for the host on port p and notifies the
// device. The buffer must stay untouched until Done(p, token) reports true; the kernel blocks
// the writing thread until then, so a host that does not read stalls the writer (QEMU holds a
// virtserialport's buffer until its chardev takes the bytes). It refuses with ErrHostClosed
// while the host is not connected, because QEMU would discard the data, and with ErrQueueFull
// when every descriptor is in flight.
func (d *Device) Send(bus Bus, p int, pa uintptr, n uint32) (Token, Err) {
	if err := d.usable(p); err != OK {
		return 0, err
	}
	if !d.ports[p].HostConnected {
		return 0, ErrHostClosed
	}
	if n == 0 || uint64(pa)+uint64(n) < uint64(pa) {
		return 0, ErrBadBuffer
	}
	q := &d.queues[txQueueOf(p)]
	if q.broken {
		return 0, ErrBroken
	}
	id, gen, ok := q.post(pa, n, false)
	if !ok {
		return 0, ErrQueueFull
	}
	d.notify(bus, q)
	return makeToken(id, gen), OK
}

// Done reports whether the buffer behind token is no longer held by the device. Tokens that
// name no buffer in flight report true, so a waiter can never block on a stale one.
func (d *Device) Done(p int, t Token) bool {
	if p < 0 || p >= MaxPorts {
		return true
	}
	return !d.queues[txQueueOf(p)].pending(uint16(t), uint16(t>>16))
}

// InFlight is the number of buffers of port p that the device still holds.
func (d *Device) InFlight(p int) int {
	if p < 0 || p >= MaxPorts {
		return 0
	}
	return int(d.queues[txQueueOf(p)].inFlight())
}
