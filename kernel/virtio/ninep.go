package virtio

// NinePMemSize is the size of the block NinePDevice.Init needs: the rings of the one request
// queue. Request and reply buffers are the caller's.
const NinePMemSize = queueStride

// MaxMountTagLen is the longest mount tag a virtio-mmio device can expose: its configuration
// space is the window's last 0x100 bytes, and le16 tag_len comes first. QEMU itself refuses
// tags longer than 31 bytes.
const MaxMountTagLen = SlotSize - regConfig - 2

// nineRequestQueue is the virtio-9p device's only queue (virtio 1.2 §5.11.2).
const nineRequestQueue = 0

// configRetries bounds how often a configuration read is repeated while the modern
// interface's ConfigGeneration says the device changed it underneath.
const configRetries = 4

// NinePConfig says where the device and the driver's memory are.
type NinePConfig struct {
	Base      uintptr // the device's virtio-mmio window (from FindDevices)
	MemPA     uintptr // physical address of NinePMemSize bytes, page-aligned, for the rings
	MemSize   uintptr
	DirectMap uintptr // memory at physical pa is reached at virtual pa+DirectMap
}

// NineCompletion is one finished request: its Token and the used length, the bytes of reply
// the device wrote (never more than the reply buffer).
type NineCompletion struct {
	Token Token
	Len   uint32
}

// NinePDevice is a virtio-9p device driven over virtio-mmio: the transport of a 9P2000.L
// session. It carries bytes only: each request is a buffer the device reads and a buffer it
// writes the reply into. It is pointer-free and its zero value is an uninitialised driver. It
// does no locking: the caller serialises all calls.
type NinePDevice struct {
	transport
	ready  bool
	tagLen uint8
	tag    [MaxMountTagLen]byte
	q      queue

	Stats Stats
}

// Version is the mmio interface version Init found (1 legacy, 2 modern).
func (d *NinePDevice) Version() uint32 { return d.version }

// Ready reports whether Init succeeded.
func (d *NinePDevice) Ready() bool { return d.ready }

// Init resets the virtio-9p device at cfg.Base and brings it up: status ACKNOWLEDGE and
// DRIVER, feature negotiation (VIRTIO_9P_MOUNT_TAG, plus VERSION_1 and FEATURES_OK on the
// modern interface), the mount tag read from the configuration space, the request queue set
// up, DRIVER_OK.
//
// On failure the device is left with FAILED set (when it was reached at all) and the Err says
// why; the NinePDevice stays unusable.
func (d *NinePDevice) Init(bus Bus, config ConfigReader, cfg NinePConfig) Err {
	*d = NinePDevice{}
	if !memoryOK(cfg.MemPA, cfg.MemSize, NinePMemSize) {
		return ErrMemory
	}
	status, err := d.start(bus, cfg.Base, cfg.MemPA, NinePMemSize, cfg.DirectMap, DeviceID9P, ErrNotNineP)
	if err != OK {
		return err
	}
	if err := d.negotiate(bus, &status, 1<<Feature9PMountTag, ErrNoMountTag); err != OK {
		d.fail(bus, status)
		return err
	}
	d.readTag(bus, config)
	if !d.setupQueue(bus, &d.q, nineRequestQueue, d.memPA) {
		d.fail(bus, status)
		return ErrQueueUnavailable
	}
	status |= statusDriverOK
	d.write(bus, regStatus, status)
	d.ready = true
	return OK
}

// readTag reads struct virtio_9p_config { le16 tag_len; u8 tag[tag_len]; } (virtio 1.2
// §5.11.4) byte by byte (see ConfigReader). tag_len is little-endian: the modern interface says
// so, and on the legacy one it is the guest's byte order, little-endian on amd64 and arm64.
// A tag_len beyond the configuration window is clamped and counted in Stats.BadConfig.
func (d *NinePDevice) readTag(bus Bus, config ConfigReader) {
	for try := 0; try < configRetries; try++ {
		var gen uint32
		if d.version == VersionModern {
			gen = d.read(bus, regConfigGeneration)
		}
		cfg := d.base + regConfig
		n := int(config.Read8(cfg)) | int(config.Read8(cfg+1))<<8
		if n > MaxMountTagLen {
			n = MaxMountTagLen
			if try == 0 {
				d.Stats.BadConfig++
			}
		}
		for i := 0; i < n; i++ {
			d.tag[i] = config.Read8(cfg + 2 + uintptr(i))
		}
		d.tagLen = uint8(n)
		if d.version != VersionModern || d.read(bus, regConfigGeneration) == gen {
			return
		}
	}
}

// MountTag copies the device's mount tag (the mount_tag QEMU was given, no terminator) into
// dst and returns how many bytes it copied; a dst of MaxMountTagLen bytes always holds it all.
// MountTagLen is the whole tag's length.
func (d *NinePDevice) MountTag(dst []byte) int { return copy(dst, d.tag[:d.tagLen]) }

// MountTagLen is the length of the device's mount tag.
func (d *NinePDevice) MountTagLen() int { return int(d.tagLen) }

// Send queues one request and notifies the device: the reqLen bytes at physical reqPA for the
// device to read, then respLen bytes at respPA for its reply (a two-descriptor chain). Both
// buffers must be physically contiguous and stay untouched until the request's completion
// comes out of Interrupt or Poll (or Done reports true). It returns ErrQueueFull when the
// queue has no two free descriptors (MaxQueueSize/2 requests in flight): wait for a
// completion and retry.
func (d *NinePDevice) Send(bus Bus, reqPA uintptr, reqLen uint32, respPA uintptr, respLen uint32) (Token, Err) {
	if !d.ready {
		return 0, ErrNotReady
	}
	if reqLen == 0 || respLen == 0 ||
		uint64(reqPA)+uint64(reqLen) < uint64(reqPA) || uint64(respPA)+uint64(respLen) < uint64(respPA) {
		return 0, ErrBadBuffer
	}
	q := &d.q
	if q.broken {
		return 0, ErrBroken
	}
	id, gen, ok := q.postChain([]segment{{reqPA, reqLen, false}, {respPA, respLen, true}})
	if !ok {
		return 0, ErrQueueFull
	}
	d.notify(bus, q)
	return makeToken(id, gen), OK
}

// Interrupt is the device's interrupt handler: it reads InterruptStatus, acknowledges it and
// harvests finished requests into out (Poll). raised says the device's InterruptStatus was
// set: the line was this device's even when an earlier Poll already took what it announced.
// It never blocks, allocates or panics, whatever the device wrote into shared memory.
func (d *NinePDevice) Interrupt(bus Bus, out []NineCompletion) (n int, more, raised bool) {
	if !d.ready {
		return 0, false, false
	}
	st := d.ackInterrupt(bus)
	n, more = d.Poll(bus, out)
	return n, more, st != 0
}

// Poll harvests finished requests into out without touching the interrupt registers and
// returns how many it stored; more says the device has published further entries (out was
// full): call Poll again. Each call handles at most len(out) requests and the bad entries
// before them, so its time is bounded.
func (d *NinePDevice) Poll(bus Bus, out []NineCompletion) (n int, more bool) {
	if !d.ready {
		return 0, false
	}
	q := &d.q
	for n < len(out) {
		u, ok := q.harvest(&d.Stats)
		if !ok {
			return n, false
		}
		out[n] = NineCompletion{Token: makeToken(u.id, u.gen), Len: u.n}
		n++
	}
	return n, q.hasUsed()
}

// Done reports whether the request behind t is no longer held by the device. Tokens that name
// no request in flight report true, so a waiter can never block on a stale one.
func (d *NinePDevice) Done(t Token) bool { return !d.q.pending(uint16(t), uint16(t>>16)) }

// InFlight is the number of requests the device holds.
func (d *NinePDevice) InFlight() int { return int(d.q.chains) }

// Broken reports whether the device broke the ring protocol: the requests in flight will
// never complete and Send refuses with ErrBroken, so their waiters must be failed.
func (d *NinePDevice) Broken() bool { return d.q.broken }
