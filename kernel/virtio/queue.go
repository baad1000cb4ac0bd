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

	descFlagWrite = 2 // VIRTQ_DESC_F_WRITE: the device writes this buffer
)

func availOffset(size uint16) uintptr { return uintptr(size) * descSize }

func usedOffset(size uint16) uintptr {
	end := availOffset(size) + 6 + 2*uintptr(size) // flags, idx, ring, used_event
	return (end + queueAlign - 1) &^ (queueAlign - 1)
}

// queue is the driver's side of one split virtqueue. It never reads back what it wrote into
// shared memory: the address and length of every buffer are kept here, so a device that
// scribbles over the descriptor table or available ring cannot steer the driver. From shared
// memory it reads only the used ring, and it checks every entry.
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

	next   [MaxQueueSize]uint16 // free-list links
	inUse  [MaxQueueSize]bool
	gen    [MaxQueueSize]uint16 // bumped on each post, so tokens of reused descriptors differ
	addr   [MaxQueueSize]uintptr
	length [MaxQueueSize]uint32
}

// setup lays the queue out over the zeroed block at va/pa and frees every descriptor.
func (q *queue) setup(index, size uint16, va, pa uintptr) {
	q.index, q.size, q.va, q.pa = index, size, va, pa
	q.used = va + usedOffset(size)
	q.availIdx, q.lastUsed, q.broken = 0, 0, false
	zero(va, queueStride)
	for i := uint16(0); i < size; i++ {
		q.next[i] = i + 1
		q.inUse[i] = false
	}
	q.freeHead, q.numFree = 0, size
}

// inFlight is the number of buffers the device holds.
func (q *queue) inFlight() uint16 { return q.size - q.numFree }

// post hands one buffer to the device: pa/n is the buffer, write says the device fills it.
// It returns the descriptor and its generation.
func (q *queue) post(pa uintptr, n uint32, write bool) (id, gen uint16, ok bool) {
	if q.size == 0 || q.broken || q.numFree == 0 {
		return 0, 0, false
	}
	id = q.freeHead
	if id >= q.size {
		return 0, 0, false
	}
	q.freeHead = q.next[id]
	q.numFree--
	q.inUse[id] = true
	q.gen[id]++
	q.addr[id], q.length[id] = pa, n

	var flags uint16
	if write {
		flags = descFlagWrite
	}
	d := q.va + uintptr(id)*descSize
	store64(d, uint64(pa))
	store32(d+8, n)
	store16(d+12, flags)
	store16(d+14, 0)

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

// harvest returns the next buffer the device has finished with, or false when there is none.
// Entries naming a descriptor the device does not hold are skipped and counted; a used length
// beyond the buffer is clamped and counted; a used index that runs ahead of the buffers in
// flight breaks the queue for good.
func (q *queue) harvest(s *Stats) (used, bool) {
	for q.size != 0 && !q.broken {
		devIdx := uint16(loadAcquire32(q.used) >> 16)
		pending := devIdx - q.lastUsed
		if pending == 0 {
			return used{}, false
		}
		if pending > q.inFlight() {
			q.broken = true
			s.BrokenQueues++
			return used{}, false
		}
		e := q.used + 4 + 8*uintptr(q.lastUsed%q.size)
		id32, n := load32(e), load32(e+4)
		q.lastUsed++
		if id32 >= uint32(q.size) || !q.inUse[id32] {
			s.BadUsedID++
			continue
		}
		id := uint16(id32)
		if n > q.length[id] {
			s.BadUsedLen++
			n = q.length[id]
		}
		q.inUse[id] = false
		q.next[id] = q.freeHead
		q.freeHead = id
		q.numFree++
		return used{id: id, gen: q.gen[id], pa: q.addr[id], n: n}, true
	}
	return used{}, false
}

// pending reports whether descriptor id with generation gen is still held by the device.
func (q *queue) pending(id, gen uint16) bool {
	return id < q.size && q.inUse[id] && q.gen[id] == gen
}

// nextFree is the descriptor the next post will use, so a caller can place a buffer that
// belongs to that descriptor before posting it.
func (q *queue) nextFree() (uint16, bool) {
	if q.size == 0 || q.broken || q.numFree == 0 || q.freeHead >= q.size {
		return 0, false
	}
	return q.freeHead, true
}
