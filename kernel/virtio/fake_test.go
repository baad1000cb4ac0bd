package virtio

import (
	"encoding/binary"
	"fmt"
	"reflect"
	"syscall"
	"testing"
)

// arena is fake physical memory: size bytes at physical [base, base+size), mmap'ed outside the
// Go heap and reached by the driver through the direct-map offset it returns.
type arena struct {
	mem  []byte
	base uintptr
}

func newArena(t testing.TB, base, size uintptr) *arena {
	t.Helper()
	mem, err := syscall.Mmap(-1, 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatalf("mmap arena: %v", err)
	}
	t.Cleanup(func() { syscall.Munmap(mem) })
	return &arena{mem: mem, base: base}
}

func (a *arena) directMap() uintptr { return reflect.ValueOf(a.mem).Pointer() - a.base }

// bytes returns physical [pa, pa+n), or nil if any of it lies outside the arena.
func (a *arena) bytes(pa uint64, n uint64) []byte {
	if pa < uint64(a.base) || n > uint64(len(a.mem)) || pa-uint64(a.base) > uint64(len(a.mem))-n {
		return nil
	}
	off := pa - uint64(a.base)
	return a.mem[off : off+n]
}

// fakeQueue is the device's view of one virtqueue.
type fakeQueue struct {
	num, align, pfn     uint32
	desc, driver, devic uint64
	ready               bool
	lastAvail, usedIdx  uint16
}

// elem is one buffer popped from an available ring.
type elem struct {
	id    uint16
	addr  uint64
	len   uint32
	write bool
}

type fakePort struct {
	id             uint32
	name           string
	console        bool
	hostConnected  bool
	guestConnected bool
	out            []byte // what the host read from the guest
	held           []elem // buffers held while the host does not read (throttled)
	in             []byte // host bytes waiting for guest receive buffers
}

// fakeDevice models QEMU's virtio-serial on virtio-mmio (hw/char/virtio-serial-bus.c as far
// as the guest can see it), in either interface version. Control messages it cannot place
// because the guest posted no buffer are dropped, as QEMU does.
type fakeDevice struct {
	t       testing.TB
	mem     *arena
	base    uintptr
	version uint32
	devID   uint32

	offered       uint64
	refuseFeatOK  bool
	maxPorts      uint32
	queueNumMax   uint32
	ctlQueueMax   uint32 // if nonzero, QueueNumMax of the control queues
	status        uint32
	statusLog     []uint32
	devSel        uint32
	drvSel        uint32
	driverFeat    uint64
	guestPageSize uint32
	sel           uint32
	queues        [64]fakeQueue
	intStatus     uint32

	nine *fake9p // non-nil: the device is a virtio-9p device instead of a console

	ports    []*fakePort
	throttle bool
	ctlRecv  [][3]uint32 // id, event, value from the guest
	dropped  int
	badMem   int
}

func newFake(t testing.TB, mem *arena, version uint32) *fakeDevice {
	f := &fakeDevice{t: t, mem: mem, base: MicrovmBase + 23*SlotSize, version: version, devID: DeviceIDConsole,
		offered: 1<<FeatureConsoleMultiport | 1<<FeatureVersion1, maxPorts: 31, queueNumMax: 128}
	return f
}

func (f *fakeDevice) addPort(id uint32, name string, hostConnected bool) *fakePort {
	p := &fakePort{id: id, name: name, hostConnected: hostConnected}
	f.ports = append(f.ports, p)
	return p
}

func (f *fakeDevice) port(id uint32) *fakePort {
	for _, p := range f.ports {
		if p.id == id {
			return p
		}
	}
	return nil
}

func (f *fakeDevice) Read32(addr uintptr) uint32 {
	if addr < f.base || addr >= f.base+SlotSize {
		return 0
	}
	q := &f.queues[f.sel%64]
	switch addr - f.base {
	case regMagic:
		return Magic
	case regVersion:
		return f.version
	case regDeviceID:
		return f.devID
	case regVendorID:
		return 0x554d4551
	case regDeviceFeatures:
		return uint32(f.offered >> (32 * (f.devSel & 1)))
	case regQueueNumMax:
		if f.nine != nil {
			if f.sel != 0 {
				return 0
			}
			return f.queueNumMax
		}
		if f.ctlQueueMax != 0 && (f.sel == 2 || f.sel == 3) {
			return f.ctlQueueMax
		}
		if f.sel >= 2+2*f.maxPorts {
			return 0
		}
		return f.queueNumMax
	case regQueueReady:
		return b2u(q.ready)
	case regQueuePFN:
		return q.pfn
	case regInterruptStatus:
		return f.intStatus
	case regStatus:
		return f.status
	case regConfigGeneration:
		return f.configGeneration()
	}
	if f.nine != nil && addr-f.base >= regConfig {
		return f.nine.configRead(addr-f.base-regConfig, 4)
	}
	if addr-f.base == regConfigMaxPorts {
		return f.maxPorts
	}
	return 0
}

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

func (f *fakeDevice) Write32(addr uintptr, v uint32) {
	if addr < f.base || addr >= f.base+SlotSize {
		f.t.Errorf("write %#x outside the device window", addr)
		return
	}
	q := &f.queues[f.sel%64]
	switch addr - f.base {
	case regDeviceFeaturesSel:
		f.devSel = v
	case regDriverFeaturesSel:
		f.drvSel = v
	case regDriverFeatures:
		shift := 32 * (f.drvSel & 1)
		f.driverFeat = f.driverFeat&^(0xffffffff<<shift) | uint64(v)<<shift
	case regGuestPageSize:
		f.guestPageSize = v
	case regQueueSel:
		f.sel = v
	case regQueueNum:
		q.num = v
	case regQueueAlign:
		q.align = v
	case regQueuePFN:
		q.pfn = v
		q.ready = v != 0
	case regQueueReady:
		q.ready = v != 0
	case regQueueDescLow:
		q.desc = q.desc&^0xffffffff | uint64(v)
	case regQueueDescHigh:
		q.desc = q.desc&0xffffffff | uint64(v)<<32
	case regQueueDriverLow:
		q.driver = q.driver&^0xffffffff | uint64(v)
	case regQueueDriverHigh:
		q.driver = q.driver&0xffffffff | uint64(v)<<32
	case regQueueDeviceLow:
		q.devic = q.devic&^0xffffffff | uint64(v)
	case regQueueDeviceHigh:
		q.devic = q.devic&0xffffffff | uint64(v)<<32
	case regQueueNotify:
		if f.nine != nil {
			f.nine.notify(f, v)
			return
		}
		f.notify(v)
	case regInterruptACK:
		f.intStatus &^= v
	case regStatus:
		if v == 0 {
			f.reset()
			return
		}
		if v&statusFeaturesOK != 0 && f.status&statusFeaturesOK == 0 &&
			(f.refuseFeatOK || f.driverFeat&^f.offered != 0) {
			v &^= statusFeaturesOK
		}
		f.status = v
		f.statusLog = append(f.statusLog, v)
	default:
		f.t.Errorf("write %#x to unknown register %#x", v, addr-f.base)
	}
}

func (f *fakeDevice) reset() {
	f.status, f.driverFeat, f.intStatus = 0, 0, 0
	f.queues = [64]fakeQueue{}
	f.statusLog = append(f.statusLog, 0)
}

// rings returns the physical addresses of queue n's descriptor table, available and used rings.
func (f *fakeDevice) rings(n uint32) (desc, avail, used uint64, num uint32, ok bool) {
	q := &f.queues[n%64]
	if !q.ready || q.num == 0 || f.status&statusDriverOK == 0 {
		return 0, 0, 0, 0, false
	}
	num = q.num
	if f.version == VersionLegacy {
		desc = uint64(q.pfn) * uint64(f.guestPageSize)
		avail = desc + 16*uint64(num)
		align := uint64(q.align)
		used = (avail + 6 + 2*uint64(num) + align - 1) &^ (align - 1)
		return desc, avail, used, num, true
	}
	return q.desc, q.driver, q.devic, num, true
}

func (f *fakeDevice) le16(pa uint64) uint16 {
	b := f.mem.bytes(pa, 2)
	if b == nil {
		f.badMem++
		return 0
	}
	return binary.LittleEndian.Uint16(b)
}

// pop takes the next available buffer of queue n.
func (f *fakeDevice) pop(n uint32) (elem, bool) {
	desc, avail, _, num, ok := f.rings(n)
	if !ok {
		return elem{}, false
	}
	q := &f.queues[n%64]
	if f.le16(avail+2) == q.lastAvail {
		return elem{}, false
	}
	id := f.le16(avail + 4 + 2*uint64(q.lastAvail%uint16(num)))
	q.lastAvail++
	d := f.mem.bytes(desc+16*uint64(id), 16)
	if id >= uint16(num) || d == nil {
		f.t.Errorf("queue %d: driver posted bad descriptor %d", n, id)
		return elem{}, false
	}
	flags := binary.LittleEndian.Uint16(d[12:])
	if flags&1 != 0 {
		f.t.Errorf("queue %d: unexpected descriptor chain", n)
	}
	return elem{id: id, addr: binary.LittleEndian.Uint64(d), len: binary.LittleEndian.Uint32(d[8:]), write: flags&2 != 0}, true
}

// push returns buffer id of queue n to the driver with n bytes written, and raises the interrupt.
func (f *fakeDevice) push(n uint32, id uint16, written uint32) {
	_, _, used, num, ok := f.rings(n)
	if !ok {
		return
	}
	q := &f.queues[n%64]
	e := f.mem.bytes(used+4+8*uint64(q.usedIdx%uint16(num)), 8)
	idx := f.mem.bytes(used+2, 2)
	if e == nil || idx == nil {
		f.badMem++
		return
	}
	binary.LittleEndian.PutUint32(e, uint32(id))
	binary.LittleEndian.PutUint32(e[4:], written)
	q.usedIdx++
	binary.LittleEndian.PutUint16(idx, q.usedIdx)
	f.intStatus |= interruptUsedRing
}

// buf returns the guest memory of an element.
func (f *fakeDevice) buf(e elem) []byte {
	b := f.mem.bytes(e.addr, uint64(e.len))
	if b == nil {
		f.t.Errorf("buffer %#x+%d outside guest memory", e.addr, e.len)
		f.badMem++
	}
	return b
}

// sendCtl puts a control message (and an optional name) into the next control receive buffer.
func (f *fakeDevice) sendCtl(id uint32, event, value uint16, extra []byte) {
	e, ok := f.pop(ctlRxQueue)
	if !ok {
		f.dropped++
		return
	}
	msg := binary.LittleEndian.AppendUint32(nil, id)
	msg = binary.LittleEndian.AppendUint16(msg, event)
	msg = binary.LittleEndian.AppendUint16(msg, value)
	msg = append(msg, extra...)
	n := copy(f.buf(e), msg)
	f.push(ctlRxQueue, e.id, uint32(n))
}

func (f *fakeDevice) notify(n uint32) {
	switch {
	case n == ctlTxQueue:
		for e, ok := f.pop(n); ok; e, ok = f.pop(n) {
			b := f.buf(e)
			f.push(n, e.id, 0)
			if len(b) < 8 {
				f.t.Errorf("short control message %x", b)
				continue
			}
			id, ev, val := binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint16(b[4:]), binary.LittleEndian.Uint16(b[6:])
			f.ctlRecv = append(f.ctlRecv, [3]uint32{id, uint32(ev), uint32(val)})
			f.control(id, ev, val)
		}
	case n == ctlRxQueue:
	case n%2 == 1: // a transmit queue
		f.flushTx(n)
	default: // a receive queue: more room for host bytes
		if p := f.portOfQueue(n); p != nil {
			f.deliver(p)
		}
	}
}

func (f *fakeDevice) portOfQueue(n uint32) *fakePort {
	id := uint32(0)
	if n >= 4 {
		id = (n - 2) / 2
	}
	return f.port(id)
}

func (f *fakeDevice) control(id uint32, ev, val uint16) {
	switch ev {
	case ctlDeviceReady:
		for _, p := range f.ports {
			f.sendCtl(p.id, ctlDeviceAdd, 1, nil)
		}
	case ctlPortReady:
		p := f.port(id)
		if p == nil || val == 0 {
			return
		}
		if p.console {
			f.sendCtl(id, ctlConsolePort, 1, nil)
		}
		if p.name != "" {
			f.sendCtl(id, ctlPortName, 1, append([]byte(p.name), 0))
		}
		if p.hostConnected {
			f.sendCtl(id, ctlPortOpen, 1, nil)
		}
	case ctlPortOpen:
		if p := f.port(id); p != nil {
			p.guestConnected = val != 0
		}
	}
}

// flushTx consumes the transmit queue n: discarded when the host is not connected, held while
// throttled, else read by the host.
func (f *fakeDevice) flushTx(n uint32) {
	p := f.portOfQueue(n)
	for e, ok := f.pop(n); ok; e, ok = f.pop(n) {
		switch {
		case p == nil || !p.hostConnected:
			f.push(n, e.id, 0)
		case f.throttle || len(p.held) > 0:
			p.held = append(p.held, e)
		default:
			p.out = append(p.out, f.buf(e)...)
			f.push(n, e.id, 0)
		}
	}
}

// drain lets the host read everything held on port id.
func (f *fakeDevice) drain(id uint32) {
	p := f.port(id)
	for _, e := range p.held {
		p.out = append(p.out, f.buf(e)...)
		f.push(2*id+3, e.id, 0)
	}
	p.held = nil
}

// hostWrite queues bytes from the host to the guest on port id and delivers what fits.
func (f *fakeDevice) hostWrite(id uint32, data []byte) {
	p := f.port(id)
	p.in = append(p.in, data...)
	f.deliver(p)
}

func (f *fakeDevice) deliver(p *fakePort) {
	n := 2*p.id + 2
	for len(p.in) > 0 {
		e, ok := f.pop(n)
		if !ok {
			return
		}
		c := copy(f.buf(e), p.in)
		p.in = p.in[c:]
		f.push(n, e.id, uint32(c))
	}
}

// setHost opens or closes the host side of port id and tells the guest.
func (f *fakeDevice) setHost(id uint32, open bool) {
	p := f.port(id)
	p.hostConnected = open
	f.sendCtl(id, ctlPortOpen, uint16(b2u(open)), nil)
}

// rig is a driver wired to a fake device over guarded fake memory.
type rig struct {
	mem  *arena
	dev  *fakeDevice
	d    *Device
	cfg  Config
	bufs uint64 // physical address of a scratch area for send buffers
}

const (
	arenaBase = 0x40000
	guardSize = pageSize
	guardByte = 0xa5
	scratch   = 64 << 10
)

func newRig(t testing.TB, version uint32) *rig {
	t.Helper()
	size := uintptr(guardSize + MemSize + guardSize + scratch)
	mem := newArena(t, arenaBase, size)
	for i := range mem.mem {
		mem.mem[i] = guardByte
	}
	r := &rig{mem: mem, dev: newFake(t, mem, version), d: new(Device)}
	r.cfg = Config{Base: r.dev.base, MemPA: arenaBase + guardSize, MemSize: MemSize, DirectMap: mem.directMap()}
	r.bufs = uint64(arenaBase + guardSize + MemSize + guardSize)
	return r
}

// twoPorts configures the ports unitrace uses: data (host connected) and ctl (not yet).
func (r *rig) twoPorts() {
	r.dev.addPort(1, "org.unitrace.data", true)
	r.dev.addPort(2, "org.unitrace.ctl", false)
}

func (r *rig) init(t testing.TB) {
	t.Helper()
	if err := r.d.Init(r.dev, r.cfg); err != OK {
		t.Fatalf("Init: %v", err)
	}
}

// guardsIntact reports whether the bytes around the driver's memory are untouched.
func (r *rig) guardsIntact() error {
	for i, b := range r.mem.mem[:guardSize] {
		if b != guardByte {
			return fmt.Errorf("guard below the driver's memory changed at %d", i)
		}
	}
	for i, b := range r.mem.mem[guardSize+MemSize : 2*guardSize+MemSize] {
		if b != guardByte {
			return fmt.Errorf("guard above the driver's memory changed at %d", i)
		}
	}
	return nil
}

// put writes data into the scratch area at offset off and returns its physical address.
func (r *rig) put(off int, data []byte) uintptr {
	copy(r.mem.bytes(r.bufs+uint64(off), uint64(len(data))), data)
	return uintptr(r.bufs) + uintptr(off)
}
