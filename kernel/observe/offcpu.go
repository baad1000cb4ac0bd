package observe

import (
	"strings"

	"github.com/unitrace/unitrace/goroutines"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/dev/serial"
	"github.com/unitrace/unitrace/kernel/klog"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/options"
	"github.com/unitrace/unitrace/kernel/sched"
	"github.com/unitrace/unitrace/trace"
	"github.com/unitrace/unitrace/trace/record"
	"github.com/unitrace/unitrace/unwind"
)

// The off-CPU sweep: at a fixed rate the boot CPU's timer interrupt reads the runtime's
// goroutine list (package goroutines) and samples every goroutine that is not running on a
// CPU, weighted by the sweep's period in nanoseconds: where the program waits, and on what. A
// goroutine new or changed since the last sweep gets a GOROUTINE record with its stack; one
// unchanged only adds its weight, which a GOROUTINE_SAME record carries once a second. A
// goroutine whose thread is on a CPU is the CPU sampler's. Boot options:
//
//	unitrace.offcpu=1          sweep from boot
//	unitrace.offcpu.hz=HZ      at HZ (1..1000, default 100)
//	unitrace.offcpu.max=N      look at most at N goroutines a sweep (default 2000): with more, each
//	                           sweep goes on where the last stopped, and each goroutine it looks at
//	                           weighs the sweeps it takes to go round (counted as "over the cap")
//
// The sweep reads without the kernel lock and without stopping anything: every word of the
// runtime's it reads is checked, and every thread state it reads of the kernel's is read again
// after it has used it. It runs in the tick's interrupt, which never interrupts kernel code,
// and the sampler's interrupt can interrupt it (so its cost is in the CPU profile).

// goLayout receives the runtime's layout from the image builder (package goroutines).
var goLayout = goroutines.Slot{Marker: [16]byte{'u', 'n', 'i', 't', 'r', 'a', 'c', 'e', ':', 'g', 'o', 'l', 'a', 'y', ':', '-'}}

const (
	offcpuDefaultHz = 100
	offcpuMaxHz     = 1000
	// offcpuDefaultMax bounds a sweep's cost: about a microsecond a goroutine under TCG, so
	// 2.5 ms a sweep, a quarter of one CPU at 100 Hz (a tenth of that on hardware).
	offcpuDefaultMax = 2000
	// offcpuTracked is how many goroutines the sweep remembers from one sweep to the next (the
	// first of the list; the rest get a full record every sweep), to record only the weight of
	// one that has not changed, and to say how long it has been so.
	offcpuTracked = 1 << 14
)

var OffCPUOpts struct {
	on            bool
	HzWord, NWord int // command-line option indices, -1 for none
}

// OffCPUOption reads kernel option word i (o); it reports whether it was an off-CPU option.
func OffCPUOption(i int, o string) bool {
	switch {
	case o == "unitrace.offcpu=1":
		OffCPUOpts.on = true
	case strings.HasPrefix(o, "unitrace.offcpu.hz="):
		OffCPUOpts.HzWord = i
	case strings.HasPrefix(o, "unitrace.offcpu.max="):
		OffCPUOpts.NWord = i
	default:
		return false
	}
	return true
}

// optionNumber is the value of option word i after prefix, if it is a number in [lo, hi].
func optionNumber(i int, prefix string, lo, hi int) (int, bool) {
	if i < 0 {
		return 0, false
	}
	v := options.Cmdline.Option(i)[len(prefix):]
	n, ok := ParseSmallUint(v)
	if !ok || n < lo || n > hi {
		klog.Log().S(prefix).S(v).S(": not a number in ").D(int64(lo)).S("..").D(int64(hi)).NL()
		return 0, false
	}
	return n, true
}

// sweeper is the off-CPU sweep's state. Only the boot CPU's timer interrupt touches it once it
// runs.
type sweeper struct {
	On       bool
	reader   goroutines.Reader
	period   uint64 // ticks between sweeps
	periodNs uint64
	seq      uint64
	max      int
	resume   int // the list entry the next sweep starts at, when the cap leaves some out

	// Counters since boot.
	sweeps, recorded, onCPU, gone, busy, bad, raced, capped, dropped, unwalked uint64
	repeated, sameRecords                                                      uint64
	costTicks, costMax, looked                                                 uint64
}

// sweepTracked remembers, by list index, what each goroutine was at the last sweep and since
// when (apart from sweep, whose static initializer would put it in the image's data).
var sweepTracked [offcpuTracked]trackedG

type trackedG struct {
	id      uint64
	key     uint64 // what it is (sweepKey): the same key, the same record
	since   int64  // ns: when the sweep first saw it so
	pending uint64 // the weight (ns) of the sweeps since its last record, not recorded yet
	sweeps  uint64 // how many sweeps that is
	flushed int64  // ns: when the last record of it was written
}

// offcpuFlushNs is how long the sweep lets a goroutine's unchanged sweeps add up before it
// records them (GOROUTINE_SAME): a live view sees a parked goroutine's weight grow every second.
const offcpuFlushNs = 1_000_000_000

// Sweep is the kernel's sweeper. Its reader's Readable is set statically: a pointer stored at
// run time into a global would need a write barrier.
var Sweep = sweeper{reader: goroutines.Reader{Readable: unwind.Readable}}

// InitGoLayout hands the image's goroutine layout to the unwinder, so that the CPU sampler's
// samples say which goroutine their thread ran; without a layout they say nothing of it.
func InitGoLayout() {
	if l, ok := goLayout.Read(); ok && l.Valid() {
		unwind.SetGoidOffset(uintptr(l[goroutines.WGGoid]))
	}
}

// StartBootOffCPU starts the sweep if the command line asked for it and the image's layout
// allows it; the tracer must be up.
func StartBootOffCPU() {
	if !OffCPUOpts.on {
		return
	}
	hz, ok := optionNumber(OffCPUOpts.HzWord, "unitrace.offcpu.hz=", 1, offcpuMaxHz)
	if !ok {
		hz = offcpuDefaultHz
	}
	n, ok := optionNumber(OffCPUOpts.NWord, "unitrace.offcpu.max=", 1, 1<<24)
	if !ok {
		n = offcpuDefaultMax
	}
	if !serial.TracingReady {
		klog.Log().S("unitrace.offcpu: no trace device, so no off-CPU sweep").NL()
		return
	}
	l, ok := goLayout.Read()
	switch {
	case goLayout.State() == goroutines.SlotRefused:
		klog.Log().S("unitrace.offcpu: the image builder could not read the runtime's layout (").
			BS(goLayout.RefusalReason()).S("); the off-CPU sweep stays off").NL()
		return
	case !ok:
		klog.Log().S("unitrace.offcpu: the image has no runtime layout from the image builder (build it with unitrace); the off-CPU sweep stays off").NL()
		return
	case !l.Valid():
		klog.Log().S("unitrace.offcpu: the runtime layout in the image fails its checks; the off-CPU sweep stays off").NL()
		return
	}
	s := &Sweep
	s.reader.L = *l
	s.reader.TextLo, s.reader.TextHi = unwind.TextRange()
	s.max = n
	s.period = max(machine.TicksHz()/uint64(hz), 1)
	s.periodNs = 1_000_000_000 / uint64(hz)
	core.SweepAt = machine.Ticks() + s.period
	s.On = true
	core.ArmNext()
}

// StopSweep stops the sweep for good (the program's exit).
func StopSweep() {
	Sweep.On = false
	core.SweepAt = 0
}

// SweepIfDue runs the sweep on the boot CPU when it is due (the timer's interrupt, now in ticks).
func SweepIfDue(now uint64) {
	s := &Sweep
	if !s.On || machine.CPUIndex() != 0 || now < core.SweepAt {
		return
	}
	missed := (now - core.SweepAt) / s.period
	core.SweepAt += (missed + 1) * s.period
	s.run(now, (missed+1)*s.periodNs)
}

// run sweeps the goroutine list once; each goroutine's record weighs weightNs.
func (s *sweeper) run(now, weightNs uint64) {
	s.sweeps++
	s.seq++
	nowNs := machine.Nanotime()
	n := s.reader.Start()
	if n < 0 {
		s.bad++
		return
	}
	// More goroutines than the cap: this sweep looks at the next max of them, in the list's
	// order from where the last one stopped, and each stands for as many sweeps as it takes to
	// go round the list once (stride), so every goroutine keeps its weight.
	visit := min(n, s.max)
	if visit == 0 {
		return
	}
	stride := uint64((n + visit - 1) / visit)
	s.capped += uint64(n - visit)
	start := s.resume % n
	s.resume = (start + visit) % n
	weightNs *= stride
	var g goroutines.G
	s.reader.Seek(start)
	for k := 0; k < visit; k++ {
		i := start + k
		if i == n {
			s.reader.Seek(0)
		}
		i %= n
		switch s.reader.Next(&g) {
		case goroutines.Live:
			s.one(i, &g, nowNs, weightNs)
		case goroutines.Gone:
			s.gone++
			if i < offcpuTracked && sweepTracked[i].id != 0 {
				s.flush(&sweepTracked[i], nowNs) // it exited: what it had not recorded yet
				sweepTracked[i].id = 0
			}
		case goroutines.Busy:
			s.busy++
		case goroutines.Bad:
			s.bad++
		case goroutines.End:
			k = visit
		}
	}
	s.looked += uint64(visit)
	cost := machine.Ticks() - now
	s.costTicks += cost
	s.costMax = max(s.costMax, cost)
}

// goroutineStack holds one record's stack: the kernel's path, a mark, the thread's exact pc
// and its chain.
type goroutineStack struct {
	words [core.KernelPathMax + 2 + trace.MaxDepth]uint64
	n     int
	// The thread context's registers, when the stack is a thread's.
	sp, fp, lr, w0, w1 uint64
}

// goroutineView is what the sweep saw of one goroutine: its stack, and its thread's part.
type goroutineView struct {
	st          goroutineStack
	flags       record.Flags
	tid         uint32
	sysNr       uint64 // the system call its thread is in, plus one; 0 for none
	wait        trace.StackWait
	threadState trace.StackState // 0: no thread
}

// look fills v with goroutine g's stack and what its thread is doing. onCPU: its thread runs
// on a CPU, and v has no stack (the CPU sampler sees where that thread is). ok is false when
// the goroutine or its thread changed while it was read.
func look(r *goroutines.Reader, g *goroutines.G, v *goroutineView) (onCPU, ok bool) {
	slot := int32(-1)
	gen := uint32(0)
	if g.Thread != 0 && g.Thread < 1<<31 {
		slot = core.SlotOfTID(int32(g.Thread))
	}
	if slot >= 0 {
		t := &core.Threads[slot]
		v.tid, gen = uint32(t.Tid), t.Gen
		switch core.Scheduler.State(slot) {
		case sched.Running:
			v.threadState = trace.StateRunning
			return true, true
		case sched.Blocked:
			v.threadState, v.wait, v.sysNr = trace.StateBlocked, trace.StackWait(t.Wait), t.SysNr+1
			v.flags = threadStack(t, &v.st, true)
		case sched.Runnable:
			v.threadState = trace.StateRunnable
			if g.State == goroutines.StateSyscall {
				v.sysNr = t.SysNr + 1 // woken, not yet back on a CPU to finish the call
			}
			if g.State == goroutines.StateRunning {
				v.flags = threadStack(t, &v.st, false) // preempted by the kernel: its thread's context
			}
		}
	} else if g.State == goroutines.StateRunning {
		return true, true // no thread the kernel knows: as a running one
	}
	if v.st.n == 0 && g.PC != 0 {
		v.st.words[0] = uint64(g.PC)
		c := unwind.SavedContext(g.PC, g.SP, g.BP, g.StackLo, g.StackHi)
		n, end, _ := c.WalkThread(v.st.words[1 : 1+trace.MaxDepth-1])
		v.st.n = 1 + n
		v.flags = end
	}
	if !r.Recheck(g) || (slot >= 0 && (core.Threads[slot].Gen != gen || core.Threads[slot].Tid != int32(v.tid))) {
		return false, false
	}
	if slot >= 0 && v.threadState == trace.StateBlocked && core.Scheduler.State(slot) != sched.Blocked {
		return false, false // woken while the sweep read it: its kernel path may be another wait's
	}
	return false, true
}

// one records goroutine g, entry i of the list, unless its thread is on a CPU: a GOROUTINE
// record when it is new or has changed since the last sweep, else only its weight, which adds
// up until it is recorded (flush).
func (s *sweeper) one(i int, g *goroutines.G, nowNs int64, weightNs uint64) {
	key, onCPU := sweepKey(g)
	var tr *trackedG
	if i < offcpuTracked {
		tr = &sweepTracked[i]
	}
	if onCPU {
		s.onCPU++
		if tr != nil && tr.id != 0 {
			s.flush(tr, nowNs)
			tr.id = 0 // off its CPU again, it gets a record of its own
		}
		return
	}
	if tr != nil && tr.id == g.ID && tr.key == key {
		tr.pending += weightNs
		tr.sweeps++
		s.repeated++
		if nowNs-tr.flushed >= offcpuFlushNs {
			s.flush(tr, nowNs)
		}
		return
	}
	if tr != nil && tr.id != 0 {
		s.flush(tr, nowNs) // the entry's last goroutine, or this one as it was
		tr.id = 0
	}
	var v goroutineView
	onCPU, ok := look(&s.reader, g, &v)
	switch {
	case onCPU:
		s.onCPU++
		return
	case !ok:
		s.raced++
		return
	case v.st.n == 0:
		s.unwalked++
	}
	st := &v.st
	var args [record.GoroutineArgs]uint64
	args[record.GoroutineArgID] = g.ID
	args[record.GoroutineArgState] = uint64(record.MakeGoroutineState(uint8(g.State), g.Reason, uint8(v.wait), uint8(v.threadState)))
	args[record.GoroutineArgWaitNs] = runtimeWaited(g, nowNs)
	args[record.GoroutineArgPeriodNs] = weightNs
	args[record.GoroutineArgSyscall] = v.sysNr
	args[record.GoroutineArgGoPC] = uint64(g.GoPC)
	args[record.GoroutineArgSweep] = s.seq
	args[record.GoroutineArgThreadSP], args[record.GoroutineArgThreadFP] = st.sp, st.fp
	args[record.GoroutineArgThreadLR], args[record.GoroutineArgThreadW0], args[record.GoroutineArgThreadW1] = st.lr, st.w0, st.w1
	if !trace.EmitGoroutine(&args, v.flags, v.tid, st.words[:st.n]) {
		s.dropped++
		return
	}
	s.recorded++
	if tr != nil {
		*tr = trackedG{id: g.ID, key: key, since: nowNs, flushed: nowNs}
	}
}

// flush records the weight of tr's unchanged sweeps, if any (GOROUTINE_SAME).
func (s *sweeper) flush(tr *trackedG, nowNs int64) {
	if tr.pending == 0 {
		return
	}
	if trace.EmitGoroutineSame(tr.id, tr.pending, tr.sweeps, s.seq) {
		s.sameRecords++
	} else {
		s.dropped++
	}
	tr.pending, tr.sweeps, tr.flushed = 0, 0, nowNs
}

// FlushOffCPU records what every goroutine's unchanged sweeps weigh, at the end of the run:
// the sweep has stopped, and the other CPUs with it.
func FlushOffCPU() {
	if Sweep.sweeps == 0 {
		return
	}
	nowNs := machine.Nanotime()
	for i := range sweepTracked {
		if sweepTracked[i].id != 0 {
			Sweep.flush(&sweepTracked[i], nowNs)
		}
	}
}

// sweepKey folds what goroutine g is into one word, without walking all of its stack: its
// status, wait reason, resume point and first callers (keyFrames of them: the same function
// parked at the same depth from two callers differs there), and its thread's state, wait,
// system call and saved context. The same key at the next sweep means the same record.
// onCPU: its thread runs on a CPU.
func sweepKey(g *goroutines.G) (key uint64, onCPU bool) {
	h := mix(uint64(g.Raw)|uint64(g.Reason)<<32, uint64(g.PC))
	h = mix(mix(h, uint64(g.SP)), uint64(g.BP))
	if g.PC != 0 {
		var w unwind.Walk
		w.OnStack(g.StackLo, g.StackHi)
		var callers [keyFrames]uint64
		n, _ := w.PCs(g.BP, callers[:])
		for _, pc := range callers[:n] {
			h = mix(h, pc)
		}
	}
	if g.Thread != 0 && g.Thread < 1<<31 {
		if slot := core.SlotOfTID(int32(g.Thread)); slot >= 0 {
			st := core.Scheduler.State(slot)
			if st == sched.Running {
				return 0, true
			}
			t := &core.Threads[slot]
			h = mix(h, uint64(st)|uint64(t.Wait)<<8|t.SysNr<<16)
			h = mix(mix(mix(h, uint64(machine.FramePC(&t.Frame))), uint64(machine.FrameSP(&t.Frame))), uint64(t.Gen))
		}
	} else if g.State == goroutines.StateRunning {
		return 0, true
	}
	return h, false
}

// keyFrames is how many of a goroutine's callers its sweep key holds.
const keyFrames = 3

// mix folds v into the hash h (a multiply-xorshift step).
func mix(h, v uint64) uint64 {
	h = (h ^ v) * 0x9e3779b97f4a7c15
	return h ^ h>>29
}

// threadStack fills st with the stack of blocked or preempted thread t, as the stacks snapshot
// shows it: the kernel's path that blocked it (blocked), then the thread's exact pc and chain. It returns
// the walk's flags (PC0Exact when the stack starts at the thread's pc).
func threadStack(t *core.Thread, st *goroutineStack, blocked bool) record.Flags {
	var e trace.StackEntry
	var chain [trace.MaxDepth]uint64
	n := trace.CaptureFrame(machine.AddrOfFrame(&t.Frame), &e, &chain)
	st.sp, st.fp, st.lr, st.w0, st.w1 = e.SP, e.FP, e.LR, e.W0, e.W1
	k := 0
	flags := record.Flags(e.Flags) & (record.StackTrunc | record.WalkStop)
	if blocked && t.NKPath > 0 {
		k = copy(st.words[:core.KernelPathMax], t.KPath[:min(int(t.NKPath), core.KernelPathMax)])
		st.words[k] = record.StackMarkThread
		k++
	} else {
		flags |= record.PC0Exact
	}
	st.words[k] = e.PC
	k++
	k += copy(st.words[k:], chain[:n])
	st.n = k
	return flags
}

// runtimeWaited is how long g has been waiting as the runtime says (g.waitsince, which its GC
// sets for the goroutines it finds blocked), 0 when it does not say.
func runtimeWaited(g *goroutines.G, nowNs int64) uint64 {
	if g.State == goroutines.StateWaiting && g.WaitSince > 0 && g.WaitSince < nowNs {
		return uint64(nowNs - g.WaitSince)
	}
	return 0
}

// waitedSoFar is how long g has been in its state as far as the kernel knows, for the
// goroutines snapshot: since the sweep first saw it so, or the runtime's g.waitsince if earlier.
func (s *sweeper) waitedSoFar(i int, g *goroutines.G, nowNs int64) uint64 {
	w := runtimeWaited(g, nowNs)
	if i < offcpuTracked {
		if tr := &sweepTracked[i]; tr.id == g.ID {
			if key, _ := sweepKey(g); key == tr.key {
				w = max(w, uint64(max(nowNs-tr.since, 0)))
			}
		}
	}
	return w
}

// ReportOffCPU prints the sweep's counters and cost at exit, when it ran.
func ReportOffCPU() {
	s := &Sweep
	if s.sweeps == 0 {
		return
	}
	klog.Log().S("offcpu: ").U(s.sweeps).S(" sweeps, ").U(s.recorded).S(" goroutine records and ").U(s.repeated).
		S(" unchanged sweeps of goroutines (in ").U(s.sameRecords).S(" records), ").U(s.onCPU).S(" on a CPU; skipped: ").
		U(s.busy).S(" held by the GC, ").U(s.raced).S(" changed while read, ").U(s.bad).S(" failed a check, ").
		U(s.capped).S(" left to later sweeps (over the cap), ").U(s.dropped).S(" not recorded (ring full); ").U(s.gone).S(" exited entries, ").
		U(s.unwalked).S(" recorded without a stack").NL()
	perG := uint64(0)
	if s.looked > 0 {
		perG = ticksToNs(s.costTicks / s.looked)
	}
	klog.Log().S("offcpu: sweep cost mean ").U(ticksToNs(s.costTicks / s.sweeps)).S(" ns, max ").U(ticksToNs(s.costMax)).
		S(" ns, ").U(perG).S(" ns per goroutine over ").U(s.looked).S(" looked at").NL()
}

// ticksToNs converts a duration in ticks to nanoseconds.
func ticksToNs(t uint64) uint64 {
	hz := max(machine.TicksHz(), 1)
	return t/hz*1_000_000_000 + t%hz*1_000_000_000/hz
}
