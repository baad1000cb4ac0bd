package observe

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/dev/console"
	"github.com/unitrace/unitrace/kernel/dev/serial"
	"github.com/unitrace/unitrace/kernel/dprobe"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/tp"
	"github.com/unitrace/unitrace/kernel/virtio"
	"github.com/unitrace/unitrace/sampler"
	"github.com/unitrace/unitrace/trace"
	"github.com/unitrace/unitrace/trace/record"
	"github.com/unitrace/unitrace/trace/ring"
	"github.com/unitrace/unitrace/trace/wire"
)

// The data port's frames. The kernel frames everything the tracer sends: the agent asks for a
// ring's records to be drained (trace.SysDrain) and for its own messages to be sent
// (trace.SysSend), and the final flush at exit goes on from there. So one sequence counter
// numbers every frame on the port, and records leave their ring in the same step (the producers
// paused: this runs with interrupts masked) that queues them on the wire.

var stream struct {
	seq      uint32                // the next frame's sequence number on the data port
	flightAt [trace.MaxCPUs]uint64 // flight mode: ring position of the first record not yet sent
	finished bool                  // END is sent (or could not be): nothing more goes out
	// started is set once package initialisation ran (the agent's start): the frame encoders'
	// tables exist from then on, and the host has had HELLO before anything else.
	started bool
}

// frameBuffer returns the data port's bounce buffer once it is free and a host has the port
// open, or ok false if a send is still in flight or nobody listens (QEMU would discard the
// frame: the records wait in their ring instead, and drop, counted, when it fills).
func frameBuffer() (buf []byte, ok bool) {
	ps := &serial.Ports[serial.DevData]
	if !ps.Free() || !hostListening() {
		return nil, false
	}
	return machine.BytesAt(ps.Bounce, serial.BounceSize), true
}

// hostListening reports whether a host has the data port open.
func hostListening() bool {
	p := serial.Device.Port(serial.Ports[serial.DevData].Port)
	return p.HostConnected
}

// sendFrame puts the header before the payload already in buf[HeaderSize:HeaderSize+n] and
// queues the frame. It returns the device's refusal, if any (the frame then stays unsent).
func sendFrame(buf []byte, typ wire.Type, flags uint16, n int) virtio.Err {
	ps := &serial.Ports[serial.DevData]
	wire.PutHeader(buf, typ, flags, stream.seq, buf[wire.HeaderSize:wire.HeaderSize+n])
	total := uint32(wire.HeaderSize + n)
	tok, err := serial.Device.Send(&machine.Bus, ps.Port, ps.Bounce, total)
	if err != virtio.OK {
		return err
	}
	stream.seq++
	ps.Busy, ps.Owner, ps.Token, ps.N = true, -1, tok, total
	tp.VirtioNotify.Emit2(uint64(ps.Port), uint64(total))
	return virtio.OK
}

// fillData copies records of cpu's ring into a DATA payload at buf[HeaderSize:] and returns
// the payload length, 0 when there is nothing to send.
func fillData(buf []byte, cpu int) int {
	r := trace.Ring(cpu)
	if r == nil || r.Size() == 0 {
		return 0
	}
	recs := buf[wire.HeaderSize+wire.DataHeaderSize:]
	var n int
	switch r.Mode() {
	case ring.Stream:
		var consumed uint64
		n, consumed = r.CopyOut(recs)
		r.Release(consumed) // the records are in the buffer, which goes out before anything else
	case ring.Flight:
		var next uint64
		var ok bool
		n, next, ok = r.CopyFrom(recs, stream.flightAt[cpu])
		if !ok {
			return 0
		}
		stream.flightAt[cpu] = next
	}
	if n == 0 {
		return 0
	}
	first := uint32(recs[record.OffSeq]) | uint32(recs[record.OffSeq+1])<<8 |
		uint32(recs[record.OffSeq+2])<<16 | uint32(recs[record.OffSeq+3])<<24
	wire.PutDataHeader(buf[wire.HeaderSize:], uint16(cpu), first)
	return wire.DataHeaderSize + n
}

// TraceDrain serves trace.SysDrain: done false means the port is busy and the caller waits.
func TraceDrain(cpu int) (ret uint64, done bool) {
	if !serial.TracingReady || serial.Ports[serial.DevData].Port < 0 || stream.finished {
		return abi.Neg(abi.ENODEV), true
	}
	if cpu < 0 || cpu >= trace.MaxCPUs {
		return abi.Neg(abi.EINVAL), true
	}
	buf, ok := frameBuffer()
	if !ok {
		return 0, false
	}
	n := fillData(buf, cpu)
	if n == 0 {
		return 0, true
	}
	switch sendFrame(buf, wire.TypeData, 0, n) {
	case virtio.OK:
	case virtio.ErrHostClosed:
		return abi.Neg(abi.EPIPE), true // no host: the records are gone, and the host sees the seq gap if one attaches
	default:
		return abi.Neg(abi.EIO), true
	}
	return uint64(n - wire.DataHeaderSize), true
}

// TraceSend serves trace.SysSend.
func TraceSend(typeFlags uint64, src, count uintptr) (ret uint64, done bool) {
	if !serial.TracingReady || serial.Ports[serial.DevData].Port < 0 || stream.finished {
		return abi.Neg(abi.ENODEV), true
	}
	if count > trace.MaxSendPayload {
		return abi.Neg(abi.EMSGSIZE), true
	}
	typ, flags := wire.Type(typeFlags), uint16(typeFlags>>8)
	if typ == wire.TypeData {
		return abi.Neg(abi.EINVAL), true // DATA frames come from SysDrain only
	}
	payload, ok := core.UserBytes(src, count, false)
	if !ok && count > 0 {
		return abi.Neg(abi.EFAULT), true
	}
	buf, free := frameBuffer()
	if !free {
		return 0, false
	}
	copy(buf[wire.HeaderSize:], payload)
	switch sendFrame(buf, typ, flags, int(count)) {
	case virtio.OK:
	case virtio.ErrHostClosed:
		return abi.Neg(abi.EPIPE), true
	default:
		return abi.Neg(abi.EIO), true
	}
	if typ == wire.TypeEnd {
		stream.finished = true
	}
	return uint64(count), true
}

// TraceCtl serves trace.SysCtl.
func TraceCtl(op, a, b uint64) uint64 {
	switch op { // the console's, for the control loop that runs without the tracer too
	case trace.CtlConsoleOpen:
		return console.Open()
	case trace.CtlConsoleEnd:
		return console.SetEnd(a)
	}
	if !serial.TracingReady {
		return abi.Neg(abi.ENODEV)
	}
	ncpu := trace.Boot().NCPU
	switch op {
	case trace.CtlMode:
		mode, size := ring.Mode(a), b
		if mode != ring.Stream && mode != ring.Flight {
			return abi.Neg(abi.EINVAL)
		}
		if size == 0 {
			size = TraceOpts.ringSize
		}
		if size > TraceOpts.ringSize {
			return abi.Neg(abi.ENOMEM) // the boot option sized the memory there is
		}
		// Each CPU re-initialises its own ring: the producer must not be mid-record.
		core.CrossCall(core.XcallRingMode, uint64(mode)<<56|size)
		for cpu := 0; cpu < ncpu; cpu++ {
			if r := trace.Ring(cpu); r == nil || r.Size() != size || r.Mode() != mode {
				return abi.Neg(abi.EINVAL)
			}
		}
		return 0
	case trace.CtlStop:
		trace.Stop()
		core.CrossCall(core.XcallFlushLost, 0)
		return 0
	case trace.CtlFlushLost:
		core.CrossCall(core.XcallFlushLost, 0)
		return 0
	case trace.CtlSamplerStart:
		if e := sampler.CheckHz(a, b != 0); e != sampler.OK {
			return abi.Neg(abi.EINVAL)
		}
		return startSampler(a)
	case trace.CtlSamplerStop:
		StopSampler()
		return machine.Ticks() // no sample is younger
	case trace.CtlStacks:
		return captureStacks(uintptr(a), uintptr(b))
	case trace.CtlGoroutines:
		return captureGoroutines(uintptr(a), uintptr(b))
	case trace.CtlUnanswered:
		return core.Xcall.Unanswered.Load()
	case trace.CtlCPUs:
		return uint64(core.OnlineCPUs())
	case trace.CtlProbeSite:
		return dprobe.Stage(a, b)
	case trace.CtlProbeArm:
		return dprobe.Arm(a, b != 0)
	case trace.CtlProbeDel:
		return dprobe.Remove(a)
	case trace.CtlProbeNew:
		return dprobe.New()
	case trace.CtlProbeList:
		return dprobe.List(a, b)
	}
	return abi.Neg(abi.EINVAL)
}

// FlushLocalLost publishes this CPU's pending drops as a LOST record (a cross-CPU request: only
// the ring's own CPU may produce into it).
func FlushLocalLost() {
	if r := trace.Ring(machine.CPUIndex()); r != nil {
		r.FlushLost(machine.Ticks())
	}
}

// SetLocalRingMode re-initialises this CPU's ring (a cross-CPU request): arg is mode<<56|size.
func SetLocalRingMode(arg uint64) {
	cpu := machine.CPUIndex()
	mode, size := ring.Mode(arg>>56), arg&(1<<56-1)
	if trace.SetupRing(cpu, traceRingBase(cpu), size, mode) {
		stream.flightAt[cpu] = 0
	}
}

// TracePortCall runs the agent's drain or send, blocking the thread while the port is busy.
func TracePortCall(f *machine.Frame, op serial.PortOp, arg uint64, buf, count uintptr) (uint64, bool) {
	ret, done := serial.PortIO(core.CurSlot(), op, -1, arg, buf, count)
	if !done {
		serial.BlockOnPort(f, serial.DevData)
	}
	return ret, done
}
