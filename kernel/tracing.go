package kernel

import (
	"strings"

	"github.com/unitrace/unitrace/kernel/klog"
	"github.com/unitrace/unitrace/kernel/machine"
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
//
// The tracer (rings and the agent that drains them to the data port) runs only when one of these
// options but the last two is given and the machine has the trace device; otherwise the ports are
// left to the program, but for the control port under unitrace.ctl=1.

var (
	tpSyscallEnter = trace.Point{Name: "syscall_enter", Format: "nr=%d a0=%x a1=%x a2=%x",
		Args: trace.ArgKinds{N: 4, Kinds: [trace.MaxArgs]record.Kind{record.KU64, record.KHex, record.KHex, record.KHex}}}
	tpSyscallExit = trace.Point{Name: "syscall_exit", Format: "nr=%d ret=%d",
		Args: trace.ArgKinds{N: 2, Kinds: [trace.MaxArgs]record.Kind{record.KU64, record.KI64}}}
	// syscall_path: a path a system call was given, between its syscall_enter and syscall_exit
	// (two for the calls that take two); a long one is cut to "..." and its end (sys_path.go).
	tpSyscallPath = trace.Point{Name: "syscall_path", Format: "nr=%d path=%s",
		Args: trace.ArgKinds{N: 2, Kinds: [trace.MaxArgs]record.Kind{record.KU64, record.KStr}}}
	// syscall_addr: a socket call's address, as text: the one it sends to or binds (bind,
	// connect, sendto, sendmsg) or the one it learns (accept, recvfrom, recvmsg, getsockname,
	// getpeername).
	tpSyscallAddr = trace.Point{Name: "syscall_addr", Format: "nr=%d addr=%s",
		Args: trace.ArgKinds{N: 2, Kinds: [trace.MaxArgs]record.Kind{record.KU64, record.KStr}}}
	tpSchedSwitch = trace.Point{Name: "sched_switch", Format: "prev=%d next=%d",
		Args: trace.ArgKinds{N: 2, Kinds: [trace.MaxArgs]record.Kind{record.KU64, record.KU64}}}
	tpThreadCreate = trace.Point{Name: "thread_create", Format: "tid=%d",
		Args: trace.ArgKinds{N: 1, Kinds: [trace.MaxArgs]record.Kind{record.KU64}}}
	tpThreadExit = trace.Point{Name: "thread_exit", Format: "tid=%d code=%d",
		Args: trace.ArgKinds{N: 2, Kinds: [trace.MaxArgs]record.Kind{record.KU64, record.KI64}}}
	tpFutexWait = trace.Point{Name: "futex_wait", Format: "addr=%x val=%d",
		Args: trace.ArgKinds{N: 2, Kinds: [trace.MaxArgs]record.Kind{record.KHex, record.KU64}}}
	tpFutexWake = trace.Point{Name: "futex_wake", Format: "addr=%x woken=%d",
		Args: trace.ArgKinds{N: 2, Kinds: [trace.MaxArgs]record.Kind{record.KHex, record.KU64}}}
	tpPageFault = trace.Point{Name: "page_fault", Format: "addr=%x error=%x",
		Args: trace.ArgKinds{N: 2, Kinds: [trace.MaxArgs]record.Kind{record.KHex, record.KHex}}}
	tpIRQEntry = trace.Point{Name: "irq_entry", Format: "vector=%d",
		Args: trace.ArgKinds{N: 1, Kinds: [trace.MaxArgs]record.Kind{record.KU64}}}
	tpIRQExit = trace.Point{Name: "irq_exit", Format: "vector=%d",
		Args: trace.ArgKinds{N: 1, Kinds: [trace.MaxArgs]record.Kind{record.KU64}}}
	tpTimerTick = trace.Point{Name: "timer_tick", Format: "runnable=%d",
		Args: trace.ArgKinds{N: 1, Kinds: [trace.MaxArgs]record.Kind{record.KU64}}}
	tpVirtioNotify = trace.Point{Name: "virtio_notify", Format: "port=%d bytes=%d",
		Args: trace.ArgKinds{N: 2, Kinds: [trace.MaxArgs]record.Kind{record.KU64, record.KU64}}}
	// p9_rpc: one 9P round trip of a shared directory, when its reply is in: the share, the
	// request's message type (Tread is 116, Twrite 118, Twalk 110, Tgetattr 24), the time from
	// handing it to the device to the reply, and the reply's bytes.
	tpShareRPC = trace.Point{Name: "p9_rpc", Format: "share=%d type=%d latency_ns=%d bytes=%d",
		Args: trace.ArgKinds{N: 4, Kinds: [trace.MaxArgs]record.Kind{record.KU64, record.KU64, record.KU64, record.KU64}}}

	// net_rpc: one socket call's round trip to the launcher, when its reply is in: the call
	// (kernel/sockwire's Op: socket 1, bind 2, listen 3, accept 4, connect 5, send 10, recv 11),
	// the socket's handle, the time from queueing the request to the reply, and the result.
	tpNetRPC = trace.Point{Name: "net_rpc", Format: "op=%d handle=%x latency_ns=%d result=%d",
		Args: trace.ArgKinds{N: 4, Kinds: [trace.MaxArgs]record.Kind{record.KU64, record.KHex, record.KU64, record.KI64}}}
	// net_local: a socket call answered without asking the launcher (EAGAIN for a read of a
	// socket its events say has nothing), with the socket's handle and the result.
	tpNetLocal = trace.Point{Name: "net_local", Format: "handle=%x result=%d",
		Args: trace.ArgKinds{N: 2, Kinds: [trace.MaxArgs]record.Kind{record.KHex, record.KI64}}}
	// net_event: the launcher's word that a socket's readiness changed (EPOLL* bits).
	tpNetEvent = trace.Point{Name: "net_event", Format: "handle=%x ready=%x",
		Args: trace.ArgKinds{N: 2, Kinds: [trace.MaxArgs]record.Kind{record.KHex, record.KHex}}}

	// timer_fire: a timer's expiry sent its signal: the timer (a POSIX timer's id; an interval
	// timer's is ptimer.MaxTimers plus ITIMER_REAL, VIRTUAL or PROF), the signal and the thread
	// it went to.
	tpTimerFire = trace.Point{Name: "timer_fire", Format: "timer=%d sig=%d tid=%d",
		Args: trace.ArgKinds{N: 3, Kinds: [trace.MaxArgs]record.Kind{record.KU64, record.KU64, record.KU64}}}

	// signal_deliver: a signal's handler is entered: the signal, the pc the thread was at (the
	// one its frame saves, which a SIGPROF handler charges the sample to) and the thread.
	tpSignalDeliver = trace.Point{Name: "signal_deliver", Format: "sig=%d pc=%x tid=%d",
		Args: trace.ArgKinds{N: 3, Kinds: [trace.MaxArgs]record.Kind{record.KU64, record.KHex, record.KU64}}}

	kernelPoints = [...]*trace.Point{&tpSyscallEnter, &tpSyscallExit, &tpSyscallPath, &tpSyscallAddr, &tpSchedSwitch, &tpThreadCreate,
		&tpThreadExit, &tpFutexWait, &tpFutexWake, &tpPageFault, &tpIRQEntry, &tpIRQExit, &tpTimerTick,
		&tpVirtioNotify, &tpShareRPC, &tpNetRPC, &tpNetLocal, &tpNetEvent, &tpTimerFire, &tpSignalDeliver}
)

// traceOpts are the tracer's boot options.
type traceOpts struct {
	wanted    bool   // some tracer option was given
	enable    [8]int // command-line option indexes of the unitrace.trace= words (pointer-free)
	nenable   int
	backtrace bool
	ringSize  uint64
	mode      ring.Mode
	accel     trace.Accel
}

var topts = traceOpts{ringSize: ring.DefaultSize, mode: ring.Stream}

// traceOption reads kernel option word i (o); it reports whether the word was a tracer option.
func traceOption(i int, o string) bool {
	handled := true
	switch {
	case o == "unitrace.tracer=1":
	case strings.HasPrefix(o, "unitrace.trace="):
		if topts.nenable < len(topts.enable) {
			topts.enable[topts.nenable] = i
			topts.nenable++
		}
	case o == "unitrace.backtrace=1":
		topts.backtrace = true
	case o == "unitrace.mode=stream":
		topts.mode = ring.Stream
	case o == "unitrace.mode=flight":
		topts.mode = ring.Flight
	case o == "unitrace.accel=tcg": // the launcher's word on how QEMU runs us, for HELLO
		topts.accel = trace.AccelTCG
		return true // not a reason to run the tracer
	case o == "unitrace.accel=kvm":
		topts.accel = trace.AccelKVM
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
		topts.ringSize = size
	default:
		handled = false
	}
	topts.wanted = topts.wanted || handled
	return handled
}

// traceRingMemory is how much contiguous memory the tracer needs: one ring per CPU.
func traceRingMemory() uintptr {
	if vdevBase == 0 || !topts.wanted {
		return 0 // no trace device (nothing could read the rings), or no tracing asked for
	}
	return uintptr(topts.ringSize) * uintptr(numCPUs)
}

// initTracing registers the kernel's tracepoints, gives every CPU its ring and applies the boot
// options. Points registered here fire from now on; the agent drains the rings once the Go
// runtime runs.
func initTracing(mem uintptr) {
	for _, p := range kernelPoints {
		trace.Register(p)
	}
	trace.RegisterFixed(&tpSamplerTick, record.TPSample)
	if mem == 0 {
		return
	}
	traceRingMem = mem
	for cpu := 0; cpu < numCPUs; cpu++ {
		if !trace.SetupRing(cpu, traceRingBase(cpu), topts.ringSize, topts.mode) {
			klog.Log().S("tracer: cannot set up the rings").NL()
			return
		}
	}
	trace.SetGlobalBacktrace(topts.backtrace)
	for i := 0; i < topts.nenable; i++ {
		v := cmdline.Option(topts.enable[i])[len("unitrace.trace="):]
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
	tracingReady = true
	text, _ := machine.TextRange()
	trace.SetBootInfo(trace.BootInfo{
		NCPU: numCPUs, Arch: machine.TraceArch, TickSource: machine.TraceTickSource, Accel: topts.accel, TickHz: machine.TicksHz(), RefTicks: machine.Ticks(), RefNs: uint64(nanotime()),
		RefUnixNs: bootWallNanos + nanotime(), TextStart: uint64(text),
	})
}

// The trace agent (an ordinary goroutine) starts with the program's package initialisation, once
// the Go runtime runs; as a plain Linux process the kernel never booted and nothing starts.
func init() {
	switch {
	case tracingReady:
		stream.started = true
		agent.Start()
	case ctlWanted && vdevReady && ports[devCtl].port >= 0:
		agent.StartControl()
	}
}

var (
	tracingReady bool
	ctlWanted    bool    // unitrace.ctl=1: serve the control port even without the tracer
	traceRingMem uintptr // the rings' memory: CPU n's ring is the n-th block of the boot size
)

// traceRingBase returns the memory of CPU cpu's ring.
func traceRingBase(cpu int) uintptr { return traceRingMem + uintptr(cpu)*uintptr(topts.ringSize) }
