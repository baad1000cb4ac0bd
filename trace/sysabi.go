package trace

// The trace agent's private system calls. The agent is an ordinary goroutine; these calls are
// how it has the kernel move records from a ring to the data port, so that taking records out of
// a ring and queueing them on the wire happen in one step, with the producers paused: no record
// is ever out of its ring but not yet on its way to the host, and the kernel's final flush at exit
// can carry on exactly where the agent stopped. The numbers are far above any Linux system call.
const (
	// SysDrain (cpu) queues one DATA frame with the oldest records of the CPU's ring (stream
	// mode), or the records not sent yet (flight mode); it returns the record bytes sent, 0
	// when there was nothing to send. It blocks while the port's buffer is busy.
	SysDrain = 0x1001
	// SysSend (type | flags<<8, buf, len) queues one frame of the given type with that payload;
	// it returns len. Payloads longer than MaxSendPayload fail with EMSGSIZE: split them into
	// fragments with the wire's more flag.
	SysSend = 0x1002
	// SysCtl (op, a, b) runs a tracer operation that needs the producers paused (Ctl*).
	SysCtl = 0x1003
)

// MaxSendPayload is the largest payload of one SysSend.
const MaxSendPayload = 64<<10 - 24

// SysCtl operations.
const (
	// CtlMode (mode, size) re-initialises every ring in mode (ring.Stream or ring.Flight) with
	// size bytes (0: keep the size; at most the size set at boot, whose memory is all there is).
	// Unread records are discarded and counted.
	CtlMode = 1
	// CtlStop stops tracing for good: every tracepoint is disabled, enables are refused from
	// now on, and pending drops are written out as LOST records, ready for the last drain.
	CtlStop = 2
	// CtlFlushLost writes pending drops out as LOST records (before a flush or snapshot).
	CtlFlushLost = 3
	// CtlSamplerStart (hz, force) starts or restarts the sampler at hz (force: up to 100 kHz)
	// and returns the rate in force; EINVAL for a rate the sampler refuses.
	CtlSamplerStart = 4
	// CtlSamplerStop stops the sampler and returns the tick count after it stopped: when it
	// returns, no further sample is taken, and none has a younger timestamp.
	CtlSamplerStop = 5
	// CtlStacks (buf, len) writes the stacks snapshot into buf: one entry (StackEntrySize bytes,
	// threadsnap.go) per online CPU, then one per live thread; it returns the number of entries.
	// Threads running on other CPUs are captured there by an IPI. ENOSPC if len is too small
	// for every entry.
	CtlStacks = 6
	// CtlUnanswered returns the mask of CPUs that did not acknowledge the last cross-CPU request
	// (sampler start or stop, stacks capture) in time: 0 when every online CPU answered.
	CtlUnanswered = 7
	// CtlCPUs returns the number of CPUs online.
	CtlCPUs = 8
	// CtlConsoleOpen returns 0 when the console takes input (its UART's receive interrupt is on),
	// so that the launcher may start feeding the serial line: the UART was set up long before the
	// agent runs, and no byte the launcher sends is lost to that set-up. ENODEV when the console
	// takes none (unitrace.stdin=null, or no interrupt for the UART).
	CtlConsoleOpen = 9
	// CtlConsoleEnd (total) says that the console's input holds total bytes in all: once the
	// program has read that many, a read of the console is at end of file. EINVAL when total is
	// below the bytes already received or differs from an end given before; ENODEV as for
	// CtlConsoleOpen. Unlike the tracer's operations, both work without the tracer.
	CtlConsoleEnd = 10
	// CtlGoroutines (buf, len) writes the goroutines snapshot into buf: one entry
	// (GoroutineEntrySize bytes, goroutinesnap.go) per goroutine the runtime's list holds, as
	// many as fit; it returns how many goroutines there were (more than fit: the rest are left
	// out). ENODEV when the image has no runtime layout (package goroutines).
	CtlGoroutines = 11
	// CtlProbeSite (probe, buf) stages the site in the probe.SiteSize bytes at buf for dynamic
	// probe number probe (one CtlProbeNew gave), not yet armed. It fails with EINVAL for a
	// malformed site or number, ESRCH for a number not taken, EBUSY when the probe is armed, ENOENT when no function of the running
	// image holds the site, EPERM when that function is on the deny list (probe.Denied),
	// EEXIST when the address has a site already, EIO when the code there is not the site's
	// (another image, or a site off an instruction boundary), ENOSPC when the kernel's site
	// table is full.
	CtlProbeSite = 12
	// CtlProbeArm (probe, backtrace) writes the breakpoints of the probe's staged sites (its
	// returns first) and returns how many; backtrace 1 records the stack with each hit. ESRCH
	// for a probe with no site, EBUSY for one armed already.
	CtlProbeArm = 13
	// CtlProbeDel (probe) removes the probe's breakpoints, waits until no CPU can be in their
	// handler, frees its sites and returns the hits they counted. ESRCH for an unused probe.
	CtlProbeDel = 14
	// CtlProbeNew takes an unused probe number (1..MaxProbes) and returns it; ENOSPC when every
	// number is taken.
	CtlProbeNew = 15
	// CtlProbeList (buf, len) writes one ProbeListEntrySize-byte entry per probe site into buf
	// (probe u16, kind u8 (probe.Kind), armed u8, 4 zero bytes, pc u64, hits u64, little-endian)
	// and returns how many sites there are; those past len are left out.
	CtlProbeList = 16
)

// ProbeListEntrySize is one CtlProbeList entry's bytes.
const ProbeListEntrySize = 24

// MaxProbes is the highest dynamic probe number the kernel takes.
const MaxProbes = 64

// MaxStackEntries bounds a CtlStacks reply: every CPU and every thread slot.
const MaxStackEntries = MaxCPUs + 256
