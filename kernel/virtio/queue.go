package virtio

// MaxQueueSize caps every virtqueue; QEMU's virtio-serial offers 128 on every queue.
const MaxQueueSize = 128

// Split virtqueue layout (virtio 1.2 §2.7): descriptor table, available ring, then the used
// ring on the next page. The legacy interface dictates this one contiguous block (QueuePFN plus
// QueueAlign); the modern interface is handed the same three addresses, so one layout serves
// both.
const (
	pageSize    = 4096
	queueAlign  = pageSize
	descSize    = 16
	queueStride = 2 * pageSize // room for one queue of MaxQueueSize

	descFlagNext  = 1 // VIRTQ_DESC_F_NEXT: the chain continues at the descriptor's next field
	descFlagWrite = 2 // VIRTQ_DESC_F_WRITE: the device writes this buffer

	noLink = 0xffff // link of a chain's last descriptor
)

func availOffset(size uint16) uintptr { return uintptr(size) * descSize }

func usedOffset(size uint16) uintptr {
	end := availOffset(size) + 6 + 2*uintptr(size) // flags, idx, ring, used_event
	return (end + queueAlign - 1) &^ (queueAlign - 1)
}

// queue is the driver's side of one split virtqueue. It never reads back what it wrote into
// shared memory: the address and length of every buffer, and the links of every descriptor
// chain, are kept here, so a device that scribbles over the descriptor table or available ring
// cannot steer the driver. From shared memory it reads only the used ring, and it checks every
// entry.
//
// A buffer is a chain of one or more descriptors (virtio 1.2 §2.7.5); the used ring names a
// chain by its head, the descriptor the available ring carried.
type queue struct {
	index    uint16  // the queue's number on the device
	size     uint16  // 0: not set up
	va       uintptr // virtual address of the ring block
	pa       uintptr // physical address of the ring block
	used     uintptr // virtual address of the used ring
	freeHead uint16
	numFree  uint16
	availIdx uint16 // next available-ring index we publish
	lastUsed uint16 // next used-ring index we harvest
	broken   bool   // the device broke the protocol; nothing more is queued or harvested
	chains   uint16 // chains in flight: the most used entries the device may publish

	next   [MaxQueueSize]uint16 // free-list links
	inUse  [MaxQueueSize]bool   // held by the device, as a chain's head or a later part
	head   [MaxQueueSize]bool   // the descriptor heads a chain in flight
	link   [MaxQueueSize]uint16 // the chain's next descriptor, or noLink
	gen    [MaxQueueSize]uint16 // bumped on each post (never 0), so tokens of reused descriptors differ
	addr   [MaxQueueSize]uintptr
	length [MaxQueueSize]uint32
	limit  [MaxQueueSize]uint32 // of a head: the largest used length the chain allows
}

// setup lays the queue out over the zeroed block at va/pa and frees every descriptor.
func (q *queue) setup(index, size uint16, va, pa uintptr) {
	q.index, q.size, q.va, q.pa = index, size, va, pa
	q.used = va + usedOffset(size)
	q.availIdx, q.lastUsed, q.broken, q.chains = 0, 0, false, 0
	zero(va, queueStride)
	for i := uint16(0); i < size; i++ {
		q.next[i] = i + 1
		q.inUse[i], q.head[i] = false, false
	}
	q.freeHead, q.numFree = 0, size
}

// inFlight is the number of buffers the device holds.
func (q *queue) inFlight() uint16 { return q.size - q.numFree }

// segment is one descriptor's worth of a buffer: pa/n, written by the device if write.
type segment struct {
	pa    uintptr
	n     uint32
	write bool
}

// post hands one buffer to the device: pa/n is the buffer, write says the device fills it.
// It returns the descriptor and its generation.
func (q *queue) post(pa uintptr, n uint32, write bool) (id, gen uint16, ok bool) {
	return q.postChain([]segment{{pa, n, write}})
}

// postChain hands the device one buffer made of segs, chained in order: device-readable
// segments first, then device-writable ones (virtio 1.2 §2.7.4.2). It takes all the
// descriptors or none, and returns the head and its generation.
func (q *queue) postChain(segs []segment) (id, gen uint16, ok bool) {
	if q.size == 0 || q.broken || len(segs) == 0 || len(segs) > int(q.numFree) {
		return 0, 0, false
	}
	var writable, total uint64
	for i, s := range segs {
		if i > 0 && segs[i-1].write && !s.write {
			return 0, 0, false
		}
		total += uint64(s.n)
		if s.write {
			writable += uint64(s.n)
		}
	}
	// The used length counts the bytes written into the writable part; a chain without one
	// (the console's transmit buffers) keeps the old rule, its own length.
	limit := writable
	if writable == 0 {
		limit = total
	}
	if limit > 0xffffffff {
		limit = 0xffffffff
	}

	id = q.freeHead
	for i, s := range segs {
		d := q.freeHead
		if d >= q.size {
			// The free list always holds numFree valid entries; never trust otherwise.
			q.broken = true
			return 0, 0, false
		}
		q.freeHead = q.next[d]
		q.numFree--
		q.inUse[d], q.head[d] = true, i == 0
		q.gen[d]++
		if q.gen[d] == 0 {
			q.gen[d] = 1 // skip 0 on wrap-around, so that no token is ever 0
		}
		q.addr[d], q.length[d] = s.pa, s.n
		q.link[d] = noLink

		var flags uint16
		if s.write {
			flags = descFlagWrite
		}
		var next uint16
		if i < len(segs)-1 {
			// The next segment takes the next free descriptor.
			flags |= descFlagNext
			next = q.freeHead
			q.link[d] = next
		}
		va := q.va + uintptr(d)*descSize
		store64(va, uint64(s.pa))
		store32(va+8, s.n)
		store16(va+12, flags)
		store16(va+14, next)
	}
	q.limit[id] = uint32(limit)
	q.chains++

	avail := q.va + availOffset(q.size)
	store16(avail+4+2*uintptr(q.availIdx%q.size), id)
	q.availIdx++
	// flags (0: we want interrupts) and idx share one aligned word; publish both at once.
	storeRelease32(avail, uint32(q.availIdx)<<16)
	return id, q.gen[id], true
}

// used is one harvested buffer.
type used struct {
	id  uint16
	gen uint16
	pa  uintptr
	n   uint32 // bytes the device wrote, clamped to the buffer
}

// harvest returns the next buffer the device has finished with, or false when there is none,
// and frees every descriptor of its chain. Entries naming a descriptor that heads no chain in
// flight (one the device does not hold, or a later part of a chain) are skipped and counted; a
// used length beyond what the chain lets the device write is clamped and counted; a used
// index that runs ahead of the chains in flight breaks the queue for good.
func (q *queue) harvest(s *Stats) (used, bool) {
	for q.size != 0 && !q.broken {
		devIdx := uint16(loadAcquire32(q.used) >> 16)
		pending := devIdx - q.lastUsed
		if pending == 0 {
			return used{}, false
		}
		if pending > q.chains {
			q.broken = true
			s.BrokenQueues++
			return used{}, false
		}
		e := q.used + 4 + 8*uintptr(q.lastUsed%q.size)
		id32, n := load32(e), load32(e+4)
		q.lastUsed++
		if id32 >= uint32(q.size) || !q.inUse[id32] || !q.head[id32] {
			s.BadUsedID++
			continue
		}
		id := uint16(id32)
		if n > q.limit[id] {
			s.BadUsedLen++
			n = q.limit[id]
		}
		u := used{id: id, gen: q.gen[id], pa: q.addr[id], n: n}
		q.free(id)
		return u, true
	}
	return used{}, false
}

// free returns the chain headed by id to the free list, following the links kept here.
func (q *queue) free(id uint16) {
	q.chains--
	d := id
	for i := uint16(0); i < q.size && d < q.size && q.inUse[d]; i++ {
		next := q.link[d]
		q.inUse[d], q.head[d] = false, false
		q.next[d] = q.freeHead
		q.freeHead = d
		q.numFree++
		d = next
	}
}

// hasUsed reports whether the device has published used entries not yet harvested.
func (q *queue) hasUsed() bool {
	return q.size != 0 && !q.broken && uint16(loadAcquire32(q.used)>>16) != q.lastUsed
}

// pending reports whether descriptor id with generation gen is still held by the device.
func (q *queue) pending(id, gen uint16) bool {
	return id < q.size && q.inUse[id] && q.head[id] && q.gen[id] == gen
}

// nextFree is the descriptor the next post will use, so a caller can place a buffer that
// belongs to that descriptor before posting it.
func (q *queue) nextFree() (uint16, bool) {
	if q.size == 0 || q.broken || q.numFree == 0 || q.freeHead >= q.size {
		return 0, false
	}
	return q.freeHead, true
}
