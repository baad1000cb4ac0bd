// Package tp declares the kernel's static tracepoints: one trace.Point each, in static data, so
// that any kernel package can emit into the per-CPU rings without reaching the code that
// registers them (the kernel's tracing.go registers Kernel at boot, and SamplerTick under its
// fixed id).
package tp

import (
	"github.com/unitrace/unitrace/trace"
	"github.com/unitrace/unitrace/trace/record"
)

var (
	SyscallEnter = trace.Point{Name: "syscall_enter", Format: "nr=%d a0=%x a1=%x a2=%x",
		Args: trace.ArgKinds{N: 4, Kinds: [trace.MaxArgs]record.Kind{record.KU64, record.KHex, record.KHex, record.KHex}}}
	SyscallExit = trace.Point{Name: "syscall_exit", Format: "nr=%d ret=%d",
		Args: trace.ArgKinds{N: 2, Kinds: [trace.MaxArgs]record.Kind{record.KU64, record.KI64}}}
	// syscall_path: a path a system call was given, between its syscall_enter and syscall_exit
	// (two for the calls that take two); a long one is cut to "..." and its end (the kernel's sys_path.go).
	SyscallPath = trace.Point{Name: "syscall_path", Format: "nr=%d path=%s",
		Args: trace.ArgKinds{N: 2, Kinds: [trace.MaxArgs]record.Kind{record.KU64, record.KStr}}}
	// syscall_addr: a socket call's address, as text: the one it sends to or binds (bind,
	// connect, sendto, sendmsg) or the one it learns (accept, recvfrom, recvmsg, getsockname,
	// getpeername).
	SyscallAddr = trace.Point{Name: "syscall_addr", Format: "nr=%d addr=%s",
		Args: trace.ArgKinds{N: 2, Kinds: [trace.MaxArgs]record.Kind{record.KU64, record.KStr}}}
	SchedSwitch = trace.Point{Name: "sched_switch", Format: "prev=%d next=%d",
		Args: trace.ArgKinds{N: 2, Kinds: [trace.MaxArgs]record.Kind{record.KU64, record.KU64}}}
	ThreadCreate = trace.Point{Name: "thread_create", Format: "tid=%d",
		Args: trace.ArgKinds{N: 1, Kinds: [trace.MaxArgs]record.Kind{record.KU64}}}
	ThreadExit = trace.Point{Name: "thread_exit", Format: "tid=%d code=%d",
		Args: trace.ArgKinds{N: 2, Kinds: [trace.MaxArgs]record.Kind{record.KU64, record.KI64}}}
	FutexWait = trace.Point{Name: "futex_wait", Format: "addr=%x val=%d",
		Args: trace.ArgKinds{N: 2, Kinds: [trace.MaxArgs]record.Kind{record.KHex, record.KU64}}}
	FutexWake = trace.Point{Name: "futex_wake", Format: "addr=%x woken=%d",
		Args: trace.ArgKinds{N: 2, Kinds: [trace.MaxArgs]record.Kind{record.KHex, record.KU64}}}
	PageFault = trace.Point{Name: "page_fault", Format: "addr=%x error=%x",
		Args: trace.ArgKinds{N: 2, Kinds: [trace.MaxArgs]record.Kind{record.KHex, record.KHex}}}
	IRQEntry = trace.Point{Name: "irq_entry", Format: "vector=%d",
		Args: trace.ArgKinds{N: 1, Kinds: [trace.MaxArgs]record.Kind{record.KU64}}}
	IRQExit = trace.Point{Name: "irq_exit", Format: "vector=%d",
		Args: trace.ArgKinds{N: 1, Kinds: [trace.MaxArgs]record.Kind{record.KU64}}}
	TimerTick = trace.Point{Name: "timer_tick", Format: "runnable=%d",
		Args: trace.ArgKinds{N: 1, Kinds: [trace.MaxArgs]record.Kind{record.KU64}}}
	VirtioNotify = trace.Point{Name: "virtio_notify", Format: "port=%d bytes=%d",
		Args: trace.ArgKinds{N: 2, Kinds: [trace.MaxArgs]record.Kind{record.KU64, record.KU64}}}
	// p9_rpc: one 9P round trip of a shared directory, when its reply is in: the share, the
	// request's message type (Tread is 116, Twrite 118, Twalk 110, Tgetattr 24), the time from
	// handing it to the device to the reply, and the reply's bytes.
	ShareRPC = trace.Point{Name: "p9_rpc", Format: "share=%d type=%d latency_ns=%d bytes=%d",
		Args: trace.ArgKinds{N: 4, Kinds: [trace.MaxArgs]record.Kind{record.KU64, record.KU64, record.KU64, record.KU64}}}

	// net_rpc: one socket call's round trip to the launcher, when its reply is in: the call
	// (kernel/sockwire's Op: socket 1, bind 2, listen 3, accept 4, connect 5, send 10, recv 11),
	// the socket's handle, the time from queueing the request to the reply, and the result.
	NetRPC = trace.Point{Name: "net_rpc", Format: "op=%d handle=%x latency_ns=%d result=%d",
		Args: trace.ArgKinds{N: 4, Kinds: [trace.MaxArgs]record.Kind{record.KU64, record.KHex, record.KU64, record.KI64}}}
	// net_local: a socket call answered without asking the launcher (EAGAIN for a read of a
	// socket its events say has nothing), with the socket's handle and the result.
	NetLocal = trace.Point{Name: "net_local", Format: "handle=%x result=%d",
		Args: trace.ArgKinds{N: 2, Kinds: [trace.MaxArgs]record.Kind{record.KHex, record.KI64}}}
	// net_event: the launcher's word that a socket's readiness changed (EPOLL* bits).
	NetEvent = trace.Point{Name: "net_event", Format: "handle=%x ready=%x",
		Args: trace.ArgKinds{N: 2, Kinds: [trace.MaxArgs]record.Kind{record.KHex, record.KHex}}}

	// timer_fire: a timer's expiry sent its signal: the timer (a POSIX timer's id; an interval
	// timer's is ptimer.MaxTimers plus ITIMER_REAL, VIRTUAL or PROF), the signal and the thread
	// it went to.
	TimerFire = trace.Point{Name: "timer_fire", Format: "timer=%d sig=%d tid=%d",
		Args: trace.ArgKinds{N: 3, Kinds: [trace.MaxArgs]record.Kind{record.KU64, record.KU64, record.KU64}}}

	// signal_deliver: a signal's handler is entered: the signal, the pc the thread was at (the
	// one its frame saves, which a SIGPROF handler charges the sample to) and the thread.
	SignalDeliver = trace.Point{Name: "signal_deliver", Format: "sig=%d pc=%x tid=%d",
		Args: trace.ArgKinds{N: 3, Kinds: [trace.MaxArgs]record.Kind{record.KU64, record.KHex, record.KU64}}}

	// Kernel lists the points registered by name at boot.
	Kernel = [...]*trace.Point{&SyscallEnter, &SyscallExit, &SyscallPath, &SyscallAddr, &SchedSwitch, &ThreadCreate,
		&ThreadExit, &FutexWait, &FutexWake, &PageFault, &IRQEntry, &IRQExit, &TimerTick,
		&VirtioNotify, &ShareRPC, &NetRPC, &NetLocal, &NetEvent, &TimerFire, &SignalDeliver}
)

// SamplerTick is the sampler's record (the kernel's sampling.go): registered under its fixed id,
// record.TPSample, which the host's readers know it by.
var SamplerTick = trace.Point{Name: "sampler_tick",
	Format: "sp=%x fp=%x lr=%x w0=%x w1=%x tid=%d late_ns=%d state=%x",
	Args: trace.ArgKinds{N: 8, Kinds: [trace.MaxArgs]record.Kind{record.KHex, record.KHex, record.KHex,
		record.KHex, record.KHex, record.KU64, record.KU64, record.KHex}}}
