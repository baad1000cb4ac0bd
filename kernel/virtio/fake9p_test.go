package virtio

import (
	"encoding/binary"
	"testing"
)

// fake9p is the 9P side of a fakeDevice: QEMU's virtio-9p-device (hw/9pfs/virtio-9p-device.c)
// as far as the guest sees it. It pops two-descriptor chains from queue 0, checks their
// shape, hands the request to the test's server and publishes the reply.
type fake9p struct {
	t      testing.TB
	config []byte // the configuration space: le16 tag_len, then the tag

	// serve answers one request: it reads req and writes the reply into resp, returning the
	// used length to publish. nil answers nothing (the request is held).
	serve func(req, resp []byte) uint32
	hold  bool // keep popped requests in held instead of answering them
	held  []chain

	generation uint32
	swapAfter  int    // after this many configuration reads (if > 0), the config becomes swapTo
	swapTo     []byte // and the generation changes
	byteReads  int
	wordReads  int
	badChains  int
}

// chain is one request as the device popped it.
type chain struct {
	head      uint16
	req, resp elem
}

// newFake9p makes a fakeDevice of either interface version that is a virtio-9p device with
// mount tag tag.
func newFake9p(t testing.TB, mem *arena, version uint32, tag string) *fakeDevice {
	f := newFake(t, mem, version)
	f.devID = DeviceID9P
	// What QEMU 7.2 offers: MOUNT_TAG, NOTIFY_ON_EMPTY, ANY_LAYOUT, INDIRECT_DESC, EVENT_IDX,
	// VERSION_1 on the modern interface (read with qtest).
	f.offered = 1<<Feature9PMountTag | 1<<24 | 1<<27 | 1<<28 | 1<<29 | 1<<FeatureVersion1
	f.nine = &fake9p{t: t, config: tagConfig(tag)}
	return f
}

// tagConfig is struct virtio_9p_config for tag, as QEMU sizes it: 2 + len(tag) bytes.
func tagConfig(tag string) []byte {
	return append(binary.LittleEndian.AppendUint16(nil, uint16(len(tag))), tag...)
}

func (f *fakeDevice) configGeneration() uint32 {
	if f.nine == nil {
		return 0
	}
	return f.nine.generation
}

// configRead is QEMU's virtio_config_read{b,l}: an access reaching past the configuration
// size reads all ones.
func (n *fake9p) configRead(off uintptr, size int) uint32 {
	if size == 1 {
		n.byteReads++
	} else {
		n.wordReads++
	}
	if n.swapAfter > 0 && n.byteReads+n.wordReads == n.swapAfter {
		n.config = n.swapTo
		n.generation++
	}
	if off+uintptr(size) > uintptr(len(n.config)) {
		return 1<<(8*size) - 1
	}
	var v uint32
	for i := size - 1; i >= 0; i-- {
		v = v<<8 | uint32(n.config[off+uintptr(i)])
	}
	return v
}

// Read8 serves byte reads of the configuration space; QEMU refuses them on registers.
func (f *fakeDevice) Read8(addr uintptr) uint8 {
	if addr < f.base+regConfig || addr >= f.base+SlotSize {
		f.t.Errorf("byte read of register %#x", addr-f.base)
		return 0
	}
	if f.nine == nil {
		return 0
	}
	return uint8(f.nine.configRead(addr-f.base-regConfig, 1))
}

// desc reads descriptor id of a queue's table.
func (f *fakeDevice) desc(table uint64, id uint16) (e elem, flags, next uint16, ok bool) {
	d := f.mem.bytes(table+16*uint64(id), 16)
	if d == nil {
		return elem{}, 0, 0, false
	}
	flags = binary.LittleEndian.Uint16(d[12:])
	e = elem{id: id, addr: binary.LittleEndian.Uint64(d), len: binary.LittleEndian.Uint32(d[8:]), write: flags&descFlagWrite != 0}
	return e, flags, binary.LittleEndian.Uint16(d[14:]), true
}

// popChain takes the next request from queue 0 and checks that it is what virtio-9p expects
// from this driver: a device-readable request chained to a device-writable reply.
func (f *fakeDevice) popChain() (chain, bool) {
	desc, avail, _, num, ok := f.rings(nineRequestQueue)
	if !ok {
		return chain{}, false
	}
	q := &f.queues[nineRequestQueue]
	if f.le16(avail+2) == q.lastAvail {
		return chain{}, false
	}
	head := f.le16(avail + 4 + 2*uint64(q.lastAvail%uint16(num)))
	q.lastAvail++
	bad := func(format string, args ...any) (chain, bool) {
		f.nine.badChains++
		f.t.Errorf("request chain at %d: "+format, append([]any{head}, args...)...)
		return chain{}, false
	}
	if head >= uint16(num) {
		return bad("head out of range")
	}
	req, flags, next, ok := f.desc(desc, head)
	if !ok {
		return bad("descriptor outside memory")
	}
	if flags != descFlagNext || next >= uint16(num) || next == head || req.len == 0 {
		return bad("request descriptor flags %#x next %d len %d", flags, next, req.len)
	}
	resp, flags, _, ok := f.desc(desc, next)
	if !ok {
		return bad("descriptor outside memory")
	}
	if flags != descFlagWrite || resp.len == 0 {
		return bad("reply descriptor flags %#x len %d", flags, resp.len)
	}
	return chain{head: head, req: req, resp: resp}, true
}

// answer runs the server on one request and publishes its reply.
func (f *fakeDevice) answer(c chain) {
	n := f.nine.serve(f.buf(c.req), f.buf(c.resp))
	f.push(nineRequestQueue, c.head, n)
}

func (n *fake9p) notify(f *fakeDevice, q uint32) {
	if q != nineRequestQueue {
		f.t.Errorf("notify of queue %d", q)
		return
	}
	for c, ok := f.popChain(); ok; c, ok = f.popChain() {
		if n.hold || n.serve == nil {
			n.held = append(n.held, c)
			continue
		}
		f.answer(c)
	}
}

// release answers the held request i.
func (f *fakeDevice) release(i int) {
	c := f.nine.held[i]
	f.nine.held = append(f.nine.held[:i], f.nine.held[i+1:]...)
	f.answer(c)
}

// nineRig is a NinePDevice wired to a fake virtio-9p device over guarded fake memory, with a
// scratch area for request and reply buffers.
type nineRig struct {
	mem  *arena
	dev  *fakeDevice
	d    *NinePDevice
	cfg  NinePConfig
	bufs uint64
}

func newNineRig(t testing.TB, version uint32, tag string) *nineRig {
	t.Helper()
	size := uintptr(guardSize + NinePMemSize + guardSize + scratch)
	mem := newArena(t, arenaBase, size)
	for i := range mem.mem {
		mem.mem[i] = guardByte
	}
	r := &nineRig{mem: mem, dev: newFake9p(t, mem, version, tag), d: new(NinePDevice)}
	r.cfg = NinePConfig{Base: r.dev.base, MemPA: arenaBase + guardSize, MemSize: NinePMemSize, DirectMap: mem.directMap()}
	r.bufs = uint64(arenaBase + guardSize + NinePMemSize + guardSize)
	return r
}

func (r *nineRig) init(t testing.TB) {
	t.Helper()
	if err := r.d.Init(r.dev, r.dev, r.cfg); err != OK {
		t.Fatalf("Init: %v", err)
	}
}

// guardsIntact reports whether the bytes around the driver's memory are untouched.
func (r *nineRig) guardsIntact(t testing.TB) {
	t.Helper()
	for i, b := range r.mem.mem[:guardSize] {
		if b != guardByte {
			t.Fatalf("guard below the driver's memory changed at %d", i)
		}
	}
	for i, b := range r.mem.mem[guardSize+NinePMemSize : 2*guardSize+NinePMemSize] {
		if b != guardByte {
			t.Fatalf("guard above the driver's memory changed at %d", i)
		}
	}
}

// slot is the physical address of the scratch area's i-th buffer of size bytes.
func (r *nineRig) slot(i, size int) uintptr { return uintptr(r.bufs) + uintptr(i*size) }

// put writes data at physical pa of the scratch area.
func (r *nineRig) put(pa uintptr, data []byte) {
	copy(r.mem.bytes(uint64(pa), uint64(len(data))), data)
}

// get reads n bytes at physical pa.
func (r *nineRig) get(pa uintptr, n uint32) []byte { return r.mem.bytes(uint64(pa), uint64(n)) }
