package virtio

// rxFIFO holds a port's filled receive buffers, oldest first, until Receive has copied them
// out. At most portRxBufs buffers are ever posted per port, so it cannot overflow.
type rxFIFO struct {
	head, count int
	off         int // bytes of the head buffer already copied out
	pa          [portRxBufs]uintptr
	n           [portRxBufs]uint32
}

func (f *rxFIFO) push(pa uintptr, n uint32) bool {
	if f.count >= portRxBufs {
		return false
	}
	i := (f.head + f.count) % portRxBufs
	f.pa[i], f.n[i] = pa, n
	f.count++
	return true
}

// Buffered is the number of received bytes of port p not yet taken by Receive.
func (d *Device) Buffered(p int) int {
	if p < 0 || p >= MaxPorts {
		return 0
	}
	f := &d.rx[p]
	total := -f.off
	for i := 0; i < f.count; i++ {
		total += int(f.n[(f.head+i)%portRxBufs])
	}
	return total
}

// Receive copies bytes the host sent on port p into dst and returns how many. Each buffer it
// empties goes straight back to the device, which lets QEMU read more from the chardev; a port
// nobody reads keeps its buffers and so throttles the host.
func (d *Device) Receive(bus Bus, p int, dst []byte) (int, Err) {
	if err := d.usable(p); err != OK {
		return 0, err
	}
	f := &d.rx[p]
	q := &d.queues[rxQueueOf(p)]
	copied, reposted := 0, false
	for f.count > 0 && copied < len(dst) {
		h := f.head
		n := int(f.n[h])
		if f.off < n {
			c := copy(dst[copied:], bytesAt(d.va(f.pa[h])+uintptr(f.off), n-f.off))
			copied += c
			f.off += c
		}
		if f.off < n {
			break
		}
		q.post(f.pa[h], portRxBufSize, true)
		reposted = true
		f.head = (h + 1) % portRxBufs
		f.count--
		f.off = 0
	}
	if reposted {
		d.notify(bus, q)
	}
	return copied, OK
}
