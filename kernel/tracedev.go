package kernel

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
	bounceSize   = 64 << 10 // the largest single write to a port
	devData      = 1        // fd device numbers
	devCtl       = 2
	// TraceDataFD and TraceCtlFD are the descriptors of the two ports.
	TraceDataFD = 3
	TraceCtlFD  = 4
)

var (
	vdev      virtio.Device
	vdevBase  uintptr // virtio-mmio window, 0 when there is no device
	vdevReady bool
	vdevMem   uintptr // physical block: virtio.MemSize, then one bounce buffer per port

	ports [3]portState // by device number
)

// portState serialises writers on one port: one buffer in flight at a time.
type portState struct {
	port   int
	busy   bool
	owner  int32 // thread slot whose write is in flight; -1 for the tracer's sends, which nobody waits for
	token  virtio.Token
	n      uint32
	bounce uintptr
}

// free reports whether the port's bounce buffer may be filled again. It collects a finished
// send of the tracer's (owner -1); a write(2)'s send is collected by its writer, which waits for
// it to learn the byte count.
func (ps *portState) free() bool {
	if !ps.busy {
		return true
	}
	if ps.owner < 0 && vdev.Done(ps.port, ps.token) {
		ps.busy = false
		return true
	}
	return false
}

// traceDeviceMemory probes for the device and returns how much contiguous memory it needs (0
// without a device). It runs at boot, before the frame allocator exists.
func traceDeviceMemory() uintptr {
	window, slots := machine.VirtioWindow()
	addr, _, err := virtio.FindConsole(&machine.Bus, window, slots)
	if err != virtio.OK {
		return 0
	}
	vdevBase = addr
	return core.PageUp(virtio.MemSize) + 2*bounceSize + netMemory()
}

// initTraceDevice brings the device up in the memory reserved for it and opens the ports.
func initTraceDevice(mem uintptr) {
	netPort.port = -1
	if vdevBase == 0 {
		return
	}
	vdevMem = mem
	cfg := virtio.Config{Base: vdevBase, MemPA: mem, MemSize: virtio.MemSize}
	if err := vdev.Init(&machine.Bus, cfg); err != virtio.OK {
		klog.Log().S("trace device at ").X(uint64(vdevBase)).S(": ").S(err.String()).NL()
		return
	}
	vdev.Poll(&machine.Bus) // take the port announcements already queued
	vdevReady = true
	bounce := mem + core.PageUp(virtio.MemSize)
	for i, name := range [2]string{dataPortName, ctlPortName} {
		dev := i + 1
		p := vdev.FindPort(name)
		ports[dev] = portState{port: p, bounce: bounce + uintptr(i)*bounceSize}
		if p >= 0 {
			vdev.Open(&machine.Bus, p)
		}
	}
	initNetPort(bounce + 2*bounceSize)
	if fdn, _ := core.FDs.OpenDevice(devData); fdn != TraceDataFD {
		klog.Log().S("trace device: data port got fd ").D(int64(fdn)).NL()
	}
	if fdn, _ := core.FDs.OpenDevice(devCtl); fdn != TraceCtlFD {
		klog.Log().S("trace device: ctl port got fd ").D(int64(fdn)).NL()
	}
}

// printTraceDevice prints the trace ports' state as the device last described it, for the
// watchdog's block: a thread blocked on a port waits for the host, whose connection the guest
// knows only from the device's PORT_OPEN messages.
func printTraceDevice() {
	if !vdevReady {
		return
	}
	l := klog.Log().S("trace device:")
	for dev, name := range [...]string{devData: "data", devCtl: "ctl"} {
		if dev == 0 {
			continue
		}
		l.S(" ").S(name)
		p := ports[dev].port
		if p < 0 {
			l.S(" port none;")
			continue
		}
		vp := vdev.Port(p)
		l.S(" port ").D(int64(p)).S(": host ").S(openWord(vp.HostConnected)).S(", guest ").S(openWord(vp.GuestOpen)).S(";")
	}
	st := &vdev.Stats
	l.S(" control messages: ").U(st.BadControl).S(" bad, ").U(st.UnknownControl).S(" unknown, ").U(st.ControlDropped).S(" not sent").NL()
}

func openWord(open bool) string {
	if open {
		return "open"
	}
	return "closed"
}

// traceDeviceInterrupt handles the trace device's part of a device interrupt.
func traceDeviceInterrupt() bool {
	if !vdevReady {
		return false
	}
	ev := vdev.Interrupt(&machine.Bus)
	raised := ev.Raised // ours, even if there is nothing new: see below
	for ev.More {
		more := vdev.Poll(&machine.Bus)
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
	for dev := uint32(1); dev < uint32(len(ports)); dev++ {
		core.FutexWake(core.PortKey(dev), core.MaxThreads)
	}
	netInterrupt(ev)
	return true
}

// deviceWrite serves write(2) on a port: it copies up to bounceSize bytes into the port's
// bounce buffer, queues them and blocks until the device has taken them. Called again by the
// wait completion after each wake-up.
func deviceWrite(slot int32, dev uint32, buf, count uintptr) (ret uint64, done bool) {
	ps := &ports[dev]
	if !vdevReady || ps.port < 0 {
		return abi.Neg(abi.EIO), true
	}
	if dev == devData && tracingReady {
		return abi.Neg(abi.EBUSY), true // the tracer owns the data port: a program's bytes would corrupt its frames
	}
	if ps.busy && ps.owner == slot {
		if !vdev.Done(ps.port, ps.token) {
			return 0, false // still in flight: keep waiting
		}
		ps.busy = false
		core.FutexWake(core.PortKey(dev), core.MaxThreads)
		return uint64(ps.n), true
	}
	if ps.busy {
		return 0, false // another thread's write is in flight: wait for the port
	}
	n := count
	if n > bounceSize {
		n = bounceSize
	}
	if n == 0 {
		return 0, true
	}
	src, ok := core.UserBytes(buf, n, false)
	if !ok {
		return abi.Neg(abi.EFAULT), true
	}
	copy(machine.BytesAt(ps.bounce, n), src)
	tok, err := vdev.Send(&machine.Bus, ps.port, ps.bounce, uint32(n))
	switch err {
	case virtio.OK:
		tp.VirtioNotify.Emit2(uint64(ps.port), uint64(n))
		ps.busy, ps.owner, ps.token, ps.n = true, slot, tok, uint32(n)
		return 0, false
	case virtio.ErrQueueFull, virtio.ErrHostClosed:
		return 0, false // wait for the host
	}
	return abi.Neg(abi.EIO), true
}

// deviceRead serves read(2) on a port: whatever the host has sent, or block until it sends.
func deviceRead(dev uint32, buf, count uintptr) (ret uint64, done bool) {
	ps := &ports[dev]
	if !vdevReady || ps.port < 0 {
		return abi.Neg(abi.EIO), true
	}
	if count == 0 {
		return 0, true
	}
	dst, ok := core.UserBytes(buf, count, true)
	if !ok {
		return abi.Neg(abi.EFAULT), true
	}
	n, err := vdev.Receive(&machine.Bus, ps.port, dst)
	if err != virtio.OK && err != virtio.ErrHostClosed {
		return abi.Neg(abi.EIO), true
	}
	if n == 0 {
		return 0, false
	}
	return uint64(n), true
}

// portOp is a port operation a thread may block in.
type portOp uint8

const (
	opRead       portOp = iota // read(2) on a port
	opWrite                    // write(2) on a port
	opTraceDrain               // the agent's drain of one ring (tracestream.go)
	opTraceSend                // the agent's send of one frame (tracestream.go)
)

// portOpDevice is the port an operation uses: the descriptor's for read and write, the data
// port for the agent's operations.
func portOpDevice(op portOp, n int) uint32 {
	if op == opTraceDrain || op == opTraceSend {
		return devData
	}
	dev, _ := core.FDs.Device(n)
	return dev
}

// portIO runs a port operation for the thread in slot and, if it cannot finish yet, records
// it in the thread so that completeDeviceWait can retry it when the device interrupts.
func portIO(slot int32, op portOp, n int, arg uint64, buf, count uintptr) (uint64, bool) {
	var ret uint64
	var done bool
	switch op {
	case opWrite:
		ret, done = deviceWrite(slot, portOpDevice(op, n), buf, count)
	case opRead:
		ret, done = deviceRead(portOpDevice(op, n), buf, count)
	case opTraceDrain:
		ret, done = agentDrain.Get()(int(arg))
	case opTraceSend:
		ret, done = agentSend.Get()(arg, buf, count)
	}
	if done {
		return ret, true
	}
	t := &core.Threads[slot]
	t.WaitFD, t.WaitAddr, t.WaitCount, t.Deadline = int32(n), buf, count, 0
	t.WaitOp, t.WaitArg = uint8(op), arg
	return 0, false
}

// blockOnPort parks the running thread until the trace device interrupts.
func blockOnPort(f *machine.Frame, dev uint32) {
	core.Waiters.Enqueue(core.PortKey(dev), core.CurSlot())
	core.Block(f, core.WaitDevice)
}

// completeDeviceWait retries a port operation after a wake-up.
func completeDeviceWait(f *machine.Frame, slot int32) {
	t := &core.Threads[slot]
	ret, done := portIO(slot, portOp(t.WaitOp), int(t.WaitFD), t.WaitArg, t.WaitAddr, t.WaitCount)
	if done {
		machine.SetSysRet(f, ret)
		return
	}
	t.Wait = core.WaitDevice
	core.Rearm(slot, core.PortKey(portOpDevice(portOp(t.WaitOp), int(t.WaitFD))))
}

// portWaitInterruptible: a signal ends only a port read's wait; a write's bytes may be with
// the device already.
func portWaitInterruptible(slot int32) bool { return portOp(core.Threads[slot].WaitOp) == opRead }

// The trace agent's operations on the data port (trace.SysDrain, trace.SysSend), the tracer's
// (tracestream.go), handed down at boot: done false means the port is busy and the caller waits.
var (
	agentDrain core.Hook[func(cpu int) (ret uint64, done bool)]
	agentSend  core.Hook[func(typeFlags uint64, src, count uintptr) (ret uint64, done bool)]
)

// tracingReady says the tracer runs: its rings stream over the data port (tracing.go sets it).
var tracingReady bool
