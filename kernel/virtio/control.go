package virtio

// Control events (virtio 1.2 §5.3.6.2, struct virtio_console_control: le32 id, le16 event,
// le16 value).
const (
	ctlDeviceReady  = 0 // driver → device: value 1, ready for DEVICE_ADD
	ctlDeviceAdd    = 1 // device → driver: port id exists
	ctlDeviceRemove = 2 // device → driver: port id is gone
	ctlPortReady    = 3 // driver → device: value 1 if port id was set up, 0 if not
	ctlConsolePort  = 4 // device → driver: port id is a console
	ctlResize       = 5 // device → driver: console size; unused here
	ctlPortOpen     = 6 // both ways: value says the sender's side is open
	ctlPortName     = 7 // device → driver: the port's name follows the header
)

// sendControl queues one control message on the control transmit queue and notifies it. A
// full queue (a device that stopped consuming control messages) drops the message and counts it.
func (d *Device) sendControl(bus Bus, id uint32, event, value uint16) {
	q := &d.queues[ctlTxQueue]
	desc, ok := q.nextFree()
	if !ok {
		d.Stats.ControlDropped++
		return
	}
	pa := d.memPA + ctlTxOffset + uintptr(desc)*ctlMsgSize
	va := d.va(pa)
	store32(va, id)
	store16(va+4, event)
	store16(va+6, value)
	q.post(pa, ctlMsgSize, false)
	d.notify(bus, q)
}

func le16(b []byte) uint16 { return uint16(b[0]) | uint16(b[1])<<8 }
func le32(b []byte) uint32 { return uint32(le16(b)) | uint32(le16(b[2:]))<<16 }

// control acts on one message from the device; msg is what the device wrote (already clamped
// to the buffer). It reports which port changed, or -1.
func (d *Device) control(bus Bus, msg []byte) int {
	if len(msg) < ctlMsgSize {
		d.Stats.BadControl++
		return -1
	}
	id, event, value := le32(msg), le16(msg[4:]), le16(msg[6:])
	if id >= uint32(d.maxPorts) {
		if event == ctlDeviceAdd {
			d.sendControl(bus, id, ctlPortReady, 0) // tell the device we cannot use it
		}
		d.Stats.BadControl++
		return -1
	}
	p := &d.ports[id]
	switch event {
	case ctlDeviceAdd:
		*p = Port{Present: true, hasQueues: p.hasQueues}
		var ok uint16
		if p.hasQueues {
			ok = 1
		}
		d.sendControl(bus, id, ctlPortReady, ok)
	case ctlDeviceRemove:
		*p = Port{hasQueues: p.hasQueues}
	case ctlConsolePort:
		if !p.Present {
			d.Stats.BadControl++
			return -1
		}
		p.Console = true
	case ctlPortOpen:
		if !p.Present {
			d.Stats.BadControl++
			return -1
		}
		p.HostConnected = value != 0
	case ctlPortName:
		if !p.Present {
			d.Stats.BadControl++
			return -1
		}
		d.setName(p, msg[ctlMsgSize:])
	case ctlResize:
		return -1
	default:
		d.Stats.UnknownControl++
		return -1
	}
	return int(id)
}

// setName stores the name up to its NUL terminator (QEMU sends one; the buffer's end also
// ends it).
func (d *Device) setName(p *Port, name []byte) {
	n := 0
	for n < len(name) && name[n] != 0 {
		n++
	}
	if n > MaxNameLen {
		d.Stats.LongNames++
		p.nameLen = 0
		return
	}
	copy(p.name[:], name[:n])
	p.nameLen = uint8(n)
}
