package observe

import (
	"strings"

	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/dev/serial"
	"github.com/unitrace/unitrace/kernel/klog"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/options"
	"github.com/unitrace/unitrace/kernel/tp"
	"github.com/unitrace/unitrace/trace"
	"github.com/unitrace/unitrace/trace/agent"
	"github.com/unitrace/unitrace/trace/record"
	"github.com/unitrace/unitrace/trace/ring"
)

// The kernel's tracepoints, and the tracer's boot options:
//
//	unitrace.trace=GLOB[,GLOB...]  tracepoints enabled at boot
//	unitrace.backtrace=1           the global log-backtrace option (Backtrace on every enabled point)
//	unitrace.ring=SIZE             per-CPU ring size: a power of two, 16K..1G, K/M/G suffixes
//	unitrace.mode=stream|flight    drop new records when full (default), or overwrite old ones
//	unitrace.tracer=1              run the tracer with nothing enabled at boot (the host enables
//	                               tracepoints later over the control port)
//	unitrace.accel=tcg|kvm         how QEMU runs the guest, reported in HELLO (set by the launcher)
//	unitrace.ctl=1                 without the tracer, still serve the control port's signal
//	                               command (the launcher passes it on every run: ^C, unitrace signal)
//	unitrace.hold=1                the program's own initialisation waits until the host says
//	                               "resume" on the control port (the launcher's -probe: its probes
//	                               are in before the program's first call)
//
// The tracer (rings and the agent that drains them to the data port) runs only when one of these
// options but the last two is given and the machine has the trace device; otherwise the ports are
// left to the program, but for the control port under unitrace.ctl=1.

// traceOpts are the tracer's boot options.
type traceOpts struct {
	Wanted    bool   // some tracer option was given
	enable    [8]int // command-line option indexes of the unitrace.trace= words (pointer-free)
	nenable   int
	backtrace bool
	ringSize  uint64
	mode      ring.Mode
	accel     trace.Accel
	hold      bool // unitrace.hold=1
}

var TraceOpts = traceOpts{ringSize: ring.DefaultSize, mode: ring.Stream}

// TraceOption reads kernel option word i (o); it reports whether the word was a tracer option.
func TraceOption(i int, o string) bool {
	handled := true
	switch {
	case o == "unitrace.tracer=1":
	case o == "unitrace.hold=1":
		TraceOpts.hold = true
	case strings.HasPrefix(o, "unitrace.trace="):
		if TraceOpts.nenable < len(TraceOpts.enable) {
			TraceOpts.enable[TraceOpts.nenable] = i
			TraceOpts.nenable++
		}
	case o == "unitrace.backtrace=1":
		TraceOpts.backtrace = true
	case o == "unitrace.mode=stream":
		TraceOpts.mode = ring.Stream
	case o == "unitrace.mode=flight":
		TraceOpts.mode = ring.Flight
	case o == "unitrace.accel=tcg": // the launcher's word on how QEMU runs us, for HELLO
		TraceOpts.accel = trace.AccelTCG
		return true // not a reason to run the tracer
	case o == "unitrace.accel=kvm":
		TraceOpts.accel = trace.AccelKVM
		return true
	case o == "unitrace.ctl=1": // the control port alone: no rings
		ctlWanted = true
		return true
	case strings.HasPrefix(o, "unitrace.ring="):
		size, ok := ring.ParseSize(o[len("unitrace.ring="):])
		if !ok {
			klog.Log().S("unitrace.ring: want a power of two from 16K to 1G, got ").S(o[len("unitrace.ring="):]).NL()
			break
		}
		TraceOpts.ringSize = size
	default:
		handled = false
	}
	TraceOpts.Wanted = TraceOpts.Wanted || handled
	return handled
}

// TraceRingMemory is how much contiguous memory the tracer needs: one ring per CPU.
func TraceRingMemory() uintptr {
	if serial.DeviceBase == 0 || !TraceOpts.Wanted {
		return 0 // no trace device (nothing could read the rings), or no tracing asked for
	}
	return uintptr(TraceOpts.ringSize) * uintptr(core.NumCPUs)
}

// InitTracing registers the kernel's tracepoints, gives every CPU its ring and applies the boot
// options. Points registered here fire from now on; the agent drains the rings once the Go
// runtime runs.
func InitTracing(mem uintptr) {
	for _, p := range tp.Kernel {
		trace.Register(p)
	}
	trace.RegisterFixed(&tp.SamplerTick, record.TPSample)
	if mem == 0 {
		return
	}
	traceRingMem = mem
	for cpu := 0; cpu < core.NumCPUs; cpu++ {
		if !trace.SetupRing(cpu, traceRingBase(cpu), TraceOpts.ringSize, TraceOpts.mode) {
			klog.Log().S("tracer: cannot set up the rings").NL()
			return
		}
	}
	trace.SetGlobalBacktrace(TraceOpts.backtrace)
	for i := 0; i < TraceOpts.nenable; i++ {
		v := options.Cmdline.Option(TraceOpts.enable[i])[len("unitrace.trace="):]
		for len(v) > 0 {
			j := 0
			for j < len(v) && v[j] != ',' {
				j++
			}
			if j > 0 && trace.EnableString(v[:j], trace.Enabled) == 0 {
				klog.Log().S("unitrace.trace: no tracepoint matches ").S(v[:j]).NL()
			}
			if j == len(v) {
				break
			}
			v = v[j+1:]
		}
	}
	serial.TracingReady = true
	text, _ := machine.TextRange()
	trace.SetBootInfo(trace.BootInfo{
		NCPU: core.NumCPUs, Arch: machine.TraceArch, TickSource: machine.TraceTickSource, Accel: TraceOpts.accel, TickHz: machine.TicksHz(), RefTicks: machine.Ticks(), RefNs: uint64(machine.Nanotime()),
		RefUnixNs: core.BootWallNanos + machine.Nanotime(), TextStart: uint64(text),
	})
}

// The trace agent (an ordinary goroutine) starts with the program's package initialisation, once
// the Go runtime runs; as a plain Linux process the kernel never booted and nothing starts.
func init() {
	switch {
	case serial.TracingReady:
		stream.started = true
		agent.Start()
		if TraceOpts.hold {
			// This init function runs before the program's packages': holding it here holds
			// them, while the agent's goroutines take the host's commands.
			agent.WaitResume()
		}
	case ctlWanted && serial.DeviceReady && serial.Ports[serial.DevCtl].Port >= 0:
		agent.StartControl()
	}
}

var (
	ctlWanted    bool    // unitrace.ctl=1: serve the control port even without the tracer
	traceRingMem uintptr // the rings' memory: CPU n's ring is the n-th block of the boot size
)

// traceRingBase returns the memory of CPU cpu's ring.
func traceRingBase(cpu int) uintptr { return traceRingMem + uintptr(cpu)*uintptr(TraceOpts.ringSize) }
