package serial

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/klog"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/tp"
	"github.com/unitrace/unitrace/kernel/virtio"
)

// The trace device: a virtio-serial device (QEMU's virtio-serial-device on a virtio-mmio
// transport) with the named ports org.unitrace.data and org.unitrace.ctl, and the sockets'
// org.unitrace.net (netport.go). The kernel opens them
// as descriptors 3 and 4 before the program starts; the guest's trace agent writes frames to 3
// and reads commands from 4 with ordinary write and read system calls. A write blocks until the
// device has taken the bytes, so a host that does not read stalls the writer and nothing else.

const (
	dataPortName = "org.unitrace.data"
	ctlPortName  = "org.unitrace.ctl"
	BounceSize   = 64 << 10 // the largest single write to a port
	DevData      = 1        // fd device numbers
	DevCtl       = 2
	// TraceDataFD and TraceCtlFD are the descriptors of the two ports.
	TraceDataFD = 3
	TraceCtlFD  = 4
)

var (
	Device      virtio.Device
	DeviceBase  uintptr // virtio-mmio window, 0 when there is no device
	DeviceReady bool
	vdevMem     uintptr // physical block: virtio.MemSize, then one bounce buffer per port

	Ports [3]portState // by device number
)

// portState serialises writers on one port: one buffer in flight at a time.
type portState struct {
	Port   int
	Busy   bool
	Owner  int32 // thread slot whose write is in flight; -1 for the tracer's sends, which nobody waits for
	Token  virtio.Token
	N      uint32
	Bounce uintptr
}

// Free reports whether the port's bounce buffer may be filled again. It collects a finished
// send of the tracer's (owner -1); a write(2)'s send is collected by its writer, which waits for
// it to learn the byte count.
func (ps *portState) Free() bool {
	if !ps.Busy {
		return true
	}
	if ps.Owner < 0 && Device.Done(ps.Port, ps.Token) {
		ps.Busy = false
		return true
	}
	return false
}

// TraceDeviceMemory probes for the device and returns how much contiguous memory it needs (0
// without a device). It runs at boot, before the frame allocator exists.
func TraceDeviceMemory() uintptr {
	window, slots := machine.VirtioWindow()
	addr, _, err := virtio.FindConsole(&machine.Bus, window, slots)
	if err != virtio.OK {
		return 0
	}
	DeviceBase = addr
	return core.PageUp(virtio.MemSize) + 2*BounceSize + netMemory()
}

// InitTraceDevice brings the device up in the memory reserved for it and opens the ports.
func InitTraceDevice(mem uintptr) {
	netPort.port = -1
	if DeviceBase == 0 {
		return
	}
	vdevMem = mem
	cfg := virtio.Config{Base: DeviceBase, MemPA: mem, MemSize: virtio.MemSize}
	if err := Device.Init(&machine.Bus, cfg); err != virtio.OK {
		klog.Log().S("trace device at ").X(uint64(DeviceBase)).S(": ").S(err.String()).NL()
		return
	}
	Device.Poll(&machine.Bus) // take the port announcements already queued
	DeviceReady = true
	bounce := mem + core.PageUp(virtio.MemSize)
	for i, name := range [2]string{dataPortName, ctlPortName} {
		dev := i + 1
		p := Device.FindPort(name)
		Ports[dev] = portState{Port: p, Bounce: bounce + uintptr(i)*BounceSize}
		if p >= 0 {
			Device.Open(&machine.Bus, p)
		}
	}
	initNetPort(bounce + 2*BounceSize)
	if fdn, _ := core.FDs.OpenDevice(DevData); fdn != TraceDataFD {
		klog.Log().S("trace device: data port got fd ").D(int64(fdn)).NL()
	}
	if fdn, _ := core.FDs.OpenDevice(DevCtl); fdn != TraceCtlFD {
		klog.Log().S("trace device: ctl port got fd ").D(int64(fdn)).NL()
	}
}

// PrintTraceDevice prints the trace ports' state as the device last described it, for the
// watchdog's block: a thread blocked on a port waits for the host, whose connection the guest
// knows only from the device's PORT_OPEN messages.
func PrintTraceDevice() {
	if !DeviceReady {
		return
	}
	l := klog.Log().S("trace device:")
	for dev, name := range [...]string{DevData: "data", DevCtl: "ctl"} {
		if dev == 0 {
			continue
		}
		l.S(" ").S(name)
		p := Ports[dev].Port
		if p < 0 {
			l.S(" port none;")
			continue
		}
		vp := Device.Port(p)
		l.S(" port ").D(int64(p)).S(": host ").S(openWord(vp.HostConnected)).S(", guest ").S(openWord(vp.GuestOpen)).S(";")
	}
	st := &Device.Stats
	l.S(" control messages: ").U(st.BadControl).S(" bad, ").U(st.UnknownControl).S(" unknown, ").U(st.ControlDropped).S(" not sent").NL()
}

func openWord(open bool) string {
	if open {
		return "open"
	}
	return "closed"
}

// TraceDeviceInterrupt handles the trace device's part of a device interrupt.
func TraceDeviceInterrupt() bool {
	if !DeviceReady {
		return false
	}
	ev := Device.Interrupt(&machine.Bus)
	raised := ev.Raised // ours, even if there is nothing new: see below
	for ev.More {
		more := Device.Poll(&machine.Bus)
		ev.Ports |= more.Ports
		ev.TxDone |= more.TxDone
		ev.RxData |= more.RxData
		ev.More = more.More
	}
	if !ev.Any() {
		// A completion can land between the status acknowledge and the Poll of the previous
		// interrupt: that Poll takes it, and its status bit raises this interrupt with nothing
		// new. The line is still ours; calling it someone else's would mask it for good.
		return raised
	}
	for dev := uint32(1); dev < uint32(len(Ports)); dev++ {
		core.FutexWake(core.PortKey(dev), core.MaxThreads)
	}
	netInterrupt(ev)
	return true
}

// deviceWrite serves write(2) on a port: it copies up to bounceSize bytes into the port's
// bounce buffer, queues them and blocks until the device has taken them. Called again by the
// wait completion after each wake-up.
func deviceWrite(slot int32, dev uint32, buf, count uintptr) (ret uint64, done bool) {
	ps := &Ports[dev]
	if !DeviceReady || ps.Port < 0 {
		return abi.Neg(abi.EIO), true
	}
	if dev == DevData && TracingReady {
		return abi.Neg(abi.EBUSY), true // the tracer owns the data port: a program's bytes would corrupt its frames
	}
	if ps.Busy && ps.Owner == slot {
		if !Device.Done(ps.Port, ps.Token) {
			return 0, false // still in flight: keep waiting
		}
		ps.Busy = false
		core.FutexWake(core.PortKey(dev), core.MaxThreads)
		return uint64(ps.N), true
	}
	if ps.Busy {
		return 0, false // another thread's write is in flight: wait for the port
	}
	n := count
	if n > BounceSize {
		n = BounceSize
	}
	if n == 0 {
		return 0, true
	}
	src, ok := core.UserBytes(buf, n, false)
	if !ok {
		return abi.Neg(abi.EFAULT), true
	}
	copy(machine.BytesAt(ps.Bounce, n), src)
	tok, err := Device.Send(&machine.Bus, ps.Port, ps.Bounce, uint32(n))
	switch err {
	case virtio.OK:
		tp.VirtioNotify.Emit2(uint64(ps.Port), uint64(n))
		ps.Busy, ps.Owner, ps.Token, ps.N = true, slot, tok, uint32(n)
		return 0, false
	case virtio.ErrQueueFull, virtio.ErrHostClosed:
		return 0, false // wait for the host
	}
	return abi.Neg(abi.EIO), true
}

// deviceRead serves read(2) on a port: whatever the host has sent, or block until it sends.
func deviceRead(dev uint32, buf, count uintptr) (ret uint64, done bool) {
	ps := &Ports[dev]
	if !DeviceReady || ps.Port < 0 {
		return abi.Neg(abi.EIO), true
	}
	if count == 0 {
		return 0, true
	}
	dst, ok := core.UserBytes(buf, count, true)
	if !ok {
		return abi.Neg(abi.EFAULT), true
	}
	n, err := Device.Receive(&machine.Bus, ps.Port, dst)
	if err != virtio.OK && err != virtio.ErrHostClosed {
		return abi.Neg(abi.EIO), true
	}
	if n == 0 {
		return 0, false
	}
	return uint64(n), true
}

// PortOp is a port operation a thread may block in.
type PortOp uint8

const (
	OpRead       PortOp = iota // read(2) on a port
	OpWrite                    // write(2) on a port
	OpTraceDrain               // the agent's drain of one ring (the kernel's tracestream.go)
	OpTraceSend                // the agent's send of one frame (the kernel's tracestream.go)
)

// PortOpDevice is the port an operation uses: the descriptor's for read and write, the data
// port for the agent's operations.
func PortOpDevice(op PortOp, n int) uint32 {
	if op == OpTraceDrain || op == OpTraceSend {
		return DevData
	}
	dev, _ := core.FDs.Device(n)
	return dev
}

// PortIO runs a port operation for the thread in slot and, if it cannot finish yet, records
// it in the thread so that CompleteDeviceWait can retry it when the device interrupts.
func PortIO(slot int32, op PortOp, n int, arg uint64, buf, count uintptr) (uint64, bool) {
	var ret uint64
	var done bool
	switch op {
	case OpWrite:
		ret, done = deviceWrite(slot, PortOpDevice(op, n), buf, count)
	case OpRead:
		ret, done = deviceRead(PortOpDevice(op, n), buf, count)
	case OpTraceDrain:
		ret, done = AgentDrain.Get()(int(arg))
	case OpTraceSend:
		ret, done = AgentSend.Get()(arg, buf, count)
	}
	if done {
		return ret, true
	}
	t := &core.Threads[slot]
	t.WaitFD, t.WaitAddr, t.WaitCount, t.Deadline = int32(n), buf, count, 0
	t.WaitOp, t.WaitArg = uint8(op), arg
	return 0, false
}

// BlockOnPort parks the running thread until the trace device interrupts.
func BlockOnPort(f *machine.Frame, dev uint32) {
	core.Waiters.Enqueue(core.PortKey(dev), core.CurSlot())
	core.Block(f, core.WaitDevice)
}

// CompleteDeviceWait retries a port operation after a wake-up.
func CompleteDeviceWait(f *machine.Frame, slot int32) {
	t := &core.Threads[slot]
	ret, done := PortIO(slot, PortOp(t.WaitOp), int(t.WaitFD), t.WaitArg, t.WaitAddr, t.WaitCount)
	if done {
		machine.SetSysRet(f, ret)
		return
	}
	t.Wait = core.WaitDevice
	core.Rearm(slot, core.PortKey(PortOpDevice(PortOp(t.WaitOp), int(t.WaitFD))))
}

// PortWaitInterruptible: a signal ends only a port read's wait; a write's bytes may be with
// the device already.
func PortWaitInterruptible(slot int32) bool { return PortOp(core.Threads[slot].WaitOp) == OpRead }

// The trace agent's operations on the data port (trace.SysDrain, trace.SysSend), the tracer's
// (the kernel's tracestream.go), handed down at boot: done false means the port is busy and the caller waits.
var (
	AgentDrain core.Hook[func(cpu int) (ret uint64, done bool)]
	AgentSend  core.Hook[func(typeFlags uint64, src, count uintptr) (ret uint64, done bool)]
)

// TracingReady says the tracer runs: its rings stream over the data port (the kernel's tracing.go sets it).
var TracingReady bool
