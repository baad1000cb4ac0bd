package observe

import (
	"github.com/unitrace/unitrace/kernel/dev/serial"
	"github.com/unitrace/unitrace/kernel/klog"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/virtio"
	"github.com/unitrace/unitrace/trace"
	"github.com/unitrace/unitrace/trace/wire"
)

// finishPatience is how long the final flush waits for the host to take one frame before it
// gives the rest up: a host that stopped reading must not keep the guest from exiting forever.
const finishPatience = 10_000_000_000 // ns

var finishing bool // TraceFinish is running: a fault inside it must not start it again

// TraceFinish is the tracer's last act, when the program exits or the kernel faults. The agent
// will not run again, so the kernel sends the rest itself, polling the device with interrupts
// masked: it waits for the frame in flight, drains every ring (a flight ring: every record not
// sent yet), then sends STATS with the final counters and END with the reason, and waits until
// the host has taken END, so nothing is cut off when the machine stops.
func TraceFinish(reason wire.EndReason, status int32) {
	if !serial.TracingReady || !stream.started || serial.Ports[serial.DevData].Port < 0 || stream.finished || finishing {
		return
	}
	finishing = true
	trace.Stop()
	ncpu := trace.Boot().NCPU
	for cpu := 0; cpu < ncpu; cpu++ {
		// Drain, publish the drops no record carried (a full ring only has room for that LOST
		// record once drained), drain that too.
		if !finishRing(cpu) {
			return
		}
		if r := trace.Ring(cpu); r != nil && r.FlushLost(machine.Ticks()) && !finishRing(cpu) {
			return
		}
	}
	buf, ok := awaitFrameBuffer()
	if !ok {
		return
	}
	p := buf[wire.HeaderSize:]
	n := wire.PutStatsHeader(p, machine.Ticks(), ncpu)
	for cpu := 0; cpu < ncpu; cpu++ {
		st := trace.CPUStats(cpu)
		n += wire.PutCPUStats(p[n:], &st)
	}
	if err := sendFrame(buf, wire.TypeStats, 0, n); err != virtio.OK {
		finishRefused(err)
		return
	}
	if buf, ok = awaitFrameBuffer(); !ok {
		return
	}
	n = wire.PutEnd(buf[wire.HeaderSize:], reason, status, machine.Ticks())
	if err := sendFrame(buf, wire.TypeEnd, 0, n); err != virtio.OK {
		finishRefused(err)
		return
	}
	stream.finished = true
	awaitFrameBuffer() // END is out before the machine stops
}

// finishRing sends what cpu's ring holds; false if the flush had to give up.
func finishRing(cpu int) bool {
	for {
		buf, ok := awaitFrameBuffer()
		if !ok {
			return false
		}
		n := fillData(buf, cpu)
		if n == 0 {
			return true
		}
		if err := sendFrame(buf, wire.TypeData, 0, n); err != virtio.OK {
			finishRefused(err)
			return false
		}
	}
}

// awaitFrameBuffer polls the device until the data port's buffer is free. It gives up (and
// says so) after finishPatience without progress.
func awaitFrameBuffer() ([]byte, bool) {
	if !hostListening() {
		finishFailed("no host has the data port open")
		return nil, false
	}
	deadline := machine.Nanotime() + finishPatience
	for {
		if buf, ok := frameBuffer(); ok {
			return buf, true
		}
		if machine.Nanotime() > deadline {
			finishFailed("the host stopped reading the data port")
			return nil, false
		}
		serial.Device.Poll(&machine.Bus)
	}
}

func finishRefused(err virtio.Err) {
	if err == virtio.ErrHostClosed {
		finishFailed("no host has the data port open")
		return
	}
	finishFailed(err.String())
}

func finishFailed(why string) {
	stream.finished = true
	klog.Log().S("tracer: final flush given up: ").S(why).S("; the rest of the trace is lost").NL()
}
