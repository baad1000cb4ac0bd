package sched

import (
	"math/rand/v2"
	"testing"
)

// The random and fuzz tests drive a Scheduler and the reference model side by side from a byte
// string, compare every answer after every step, and check the invariants. In the kernel's
// protocol (strict) the steps are what the kernel does around the policy, one kernel entry at a
// time: a clone, a wake-up, a blocking call, sched_yield, a tick, an exit, sched_setaffinity,
// sched_setscheduler, each ending as finishEntry ends an entry and followed by the entries of
// the CPUs it kicked. Outside it, the steps are single calls with any arguments, valid or not.

// reader hands out the test's bytes; past the end it gives zeros.
type reader struct {
	b []byte
	i int
}

func (r *reader) more() bool { return r.i < len(r.b) }

func (r *reader) byte() byte {
	if r.i >= len(r.b) {
		return 0
	}
	r.i++
	return r.b[r.i-1]
}

func (r *reader) u64() uint64 {
	var v uint64
	for i := 0; i < 8; i++ {
		v = v<<8 | uint64(r.byte())
	}
	return v
}

// window is how many program slots the strict steps use: enough to fill a queue, few enough
// that slots are reused.
const window = 32

// oddSlots are slots outside the program's: idle threads', and not slots at all.
var oddSlots = []int32{-1, 0, 1, FirstThread - 1, MaxThreads, MaxThreads + 1, 1 << 30, -1 << 31}

type harness struct {
	t       testing.TB
	s       *Scheduler
	m       *model
	r       *reader
	now     int64
	strict  bool
	settled bool // no sched_setaffinity since every CPU last ticked
	kicked  [MaxCPUs]bool
	pending []int // CPUs kicked in this entry: they enter the kernel after it
}

func run(t testing.TB, data []byte) {
	r := &reader{b: data}
	mode := r.byte()
	h := &harness{t: t, s: new(Scheduler), m: newModel(), r: r, strict: mode&1 == 0, settled: true}
	n := 1 + int(mode>>1)%6
	if mode>>1%8 == 7 {
		n = MaxCPUs
	}
	h.s.SetCPUs(n)
	h.m.setCPUs(n)
	h.check()
	for r.more() {
		if h.strict {
			h.kernelStep()
		} else {
			h.rawStep()
		}
		h.check()
	}
}

func (h *harness) fatalf(format string, args ...any) {
	h.t.Helper()
	h.t.Fatalf("at byte %d, now %d: "+format, append([]any{h.r.i, h.now}, args...)...)
}

func (h *harness) tickTime() { h.now += int64(h.r.byte()) * (Quantum / 64) }

// cpu picks one of the CPUs the scheduler runs.
func (h *harness) cpu() int { return int(h.r.byte()) % h.m.ncpu }

// slot picks a program slot of the window.
func (h *harness) slot() int32 { return FirstThread + int32(h.r.byte())%window }

// anySlot picks a slot of the window, an idle thread's or none at all.
func (h *harness) anySlot() int32 {
	b := h.r.byte()
	if b >= 240 {
		return oddSlots[int(b-240)%len(oddSlots)]
	}
	return FirstThread - 4 + int32(b)%(window+4)
}

// anyCPU picks a CPU, one the scheduler runs or not.
func (h *harness) anyCPU() int { return int(h.r.byte())%(MaxCPUs+3) - 1 }

// The calls, each made on both and compared.

func (h *harness) ready(slot int32) bool {
	h.t.Helper()
	got, want := h.s.Ready(slot, h.now), h.m.ready(slot, h.now)
	if got != want {
		h.fatalf("Ready(%d) = %v, model %v", slot, got, want)
	}
	return got
}

func (h *harness) block(slot int32) bool {
	h.t.Helper()
	got, want := h.s.Block(slot), h.m.block(slot)
	if got != want {
		h.fatalf("Block(%d) = %v, model %v", slot, got, want)
	}
	return got
}

func (h *harness) next(c int) (int32, int32) {
	h.t.Helper()
	prev, next := h.s.Next(c, h.now, nil)
	mp, mn := h.m.next(c, h.now)
	if prev != mp || next != mn {
		h.fatalf("Next(%d) = %d, %d; model %d, %d", c, prev, next, mp, mn)
	}
	return prev, next
}

func (h *harness) add(slot int32) bool {
	h.t.Helper()
	got, want := h.s.Add(slot), h.m.add(slot)
	if got != want {
		h.fatalf("Add(%d) = %v, model %v", slot, got, want)
	}
	return got
}

func (h *harness) exit(slot int32) {
	h.s.Exit(slot)
	h.m.exit(slot)
}

func (h *harness) setAffinity(slot int32, mask uint64) (int, bool) {
	h.t.Helper()
	c, ok := h.s.SetAffinity(slot, mask)
	mc, mok := h.m.setAffinity(slot, mask)
	if c != mc || ok != mok {
		h.fatalf("SetAffinity(%d, %#x) = %d, %v; model %d, %v", slot, mask, c, ok, mc, mok)
	}
	if ok {
		h.settled = false
	}
	return c, ok
}

func (h *harness) setClass(slot int32, c Class) {
	h.s.SetClass(slot, c)
	h.m.setClass(slot, c)
}

func (h *harness) idleFor(slot int32, me int) uint64 {
	h.t.Helper()
	got, want := h.s.IdleFor(slot, me), h.m.idleFor(slot, me)
	if got != want {
		h.fatalf("IdleFor(%d, %d) = %#x, model %#x", slot, me, got, want)
	}
	return got
}

// The kernel's side of the protocol, as kernel/core/sched.go and the kernel's tick.go do it.

// kick sends a wake-up IPI to the first idle CPU that may run slot and has none on its way
// (kickIdleCPU).
func (h *harness) kick(slot int32, me int) {
	for _, c := range onesIn(h.idleFor(slot, me)) {
		if h.kickCPU(c, me) {
			return
		}
	}
}

func (h *harness) kickCPU(c, me int) bool {
	if c == me || h.kicked[c] {
		return false
	}
	h.kicked[c] = true
	h.pending = append(h.pending, c)
	return true
}

func (h *harness) enqueue(slot int32, me int) {
	if h.ready(slot) {
		h.kick(slot, me)
	}
}

// schedule switches CPU c away from a current thread that stopped running. A picked thread
// whose wait turns out unsatisfied (a spurious wake-up) blocks again at once, as completeWait
// makes it, when the next byte says so.
func (h *harness) schedule(c int) {
	for {
		prev, next := h.next(c)
		if next == prev {
			if isThread(next) && h.s.Affinity(next)&(1<<uint(c)) == 0 {
				h.fatalf("CPU %d took back thread %d, whose mask %#x excludes it", c, next, h.s.Affinity(next))
			}
			return
		}
		if isThread(next) && h.s.Affinity(next)&(1<<uint(c)) == 0 {
			h.fatalf("CPU %d picked thread %d, whose mask %#x excludes it", c, next, h.s.Affinity(next))
		}
		if isThread(next) && h.r.byte()%8 == 0 {
			h.block(next)
		}
		if h.s.State(next) == Running {
			return
		}
	}
}

// yield gives CPU c's current thread up if another may run there (sched_yield, a tick).
func (h *harness) yield(c int) {
	if !h.s.RunnableFor(c) {
		return
	}
	if cur := h.s.Current(c); isThread(cur) {
		h.enqueue(cur, c)
	}
	h.schedule(c)
}

// finishEntry ends a kernel entry on CPU c, then lets every kicked CPU run its own entry.
func (h *harness) finishEntry(c int) {
	h.endEntry(c)
	for len(h.pending) > 0 {
		k := h.pending[0]
		h.pending = h.pending[1:]
		h.kicked[k] = false
		h.endEntry(k)
	}
}

func (h *harness) endEntry(c int) {
	if h.s.Excluded(c) {
		h.enqueue(h.s.Current(c), c)
		h.schedule(c)
	}
	if IsIdle(h.s.Current(c)) && h.s.RunnableFor(c) {
		h.schedule(c)
	}
}

func (h *harness) tick(c int) {
	if h.s.TickDue(c, h.now) != h.m.tickDue(c, h.now) {
		h.fatalf("TickDue(%d) = %v, model disagrees", c, !h.m.tickDue(c, h.now))
	}
	if h.s.TickDue(c, h.now) {
		h.yield(c)
	}
}

// kernelStep is one kernel entry on a CPU.
func (h *harness) kernelStep() {
	op, c := h.r.byte()%11, h.cpu()
	cur := h.s.Current(c)
	running := isThread(cur)
	switch op {
	case 0, 1: // clone from the thread on c, or a thread started as the main one is
		slot := h.slot()
		if h.add(slot) {
			if running {
				h.s.Inherit(slot, cur)
				h.m.inherit(slot, cur)
			}
			h.enqueue(slot, c)
		}
	case 2: // a wake-up: futex, timeout, eventfd
		if slot := h.slot(); h.s.State(slot) == Blocked {
			h.enqueue(slot, c)
		}
	case 3, 4: // a blocking call
		if running {
			h.block(cur)
			h.schedule(c)
		}
	case 5: // sched_yield
		h.yield(c)
	case 6: // the tick
		h.tickTime()
		h.tick(c)
	case 7: // every CPU ticks, in turn: after it no CPU idles while a thread it may run waits
		h.tickTime()
		for k := 0; k < h.m.ncpu; k++ {
			h.tick(k)
			h.finishEntry(k)
		}
		h.settled = true
	case 8: // exit
		if running {
			h.exit(cur)
			h.schedule(c)
		}
	case 9: // sched_setaffinity, on any thread
		slot, mask := h.slot(), h.r.u64()
		if h.s.State(slot) != Free {
			if leave, ok := h.setAffinity(slot, mask); ok && leave >= 0 {
				h.kickCPU(leave, c)
			}
		}
	case 10: // sched_setscheduler; or a clone whose parent tid pointer faults
		slot := h.slot()
		if b := h.r.byte(); b&1 == 0 {
			h.setClass(slot, Class(b>>1&1))
		} else if h.add(slot) {
			h.exit(slot)
		}
	}
	h.finishEntry(c)
}

// rawStep is one call with arguments from anywhere.
func (h *harness) rawStep() {
	switch h.r.byte() % 11 {
	case 0:
		h.add(h.anySlot())
	case 1:
		child, parent := h.anySlot(), h.anySlot()
		h.s.Inherit(child, parent)
		h.m.inherit(child, parent)
	case 2:
		h.exit(h.anySlot())
	case 3, 4:
		h.ready(h.anySlot())
	case 5:
		h.block(h.anySlot())
	case 6, 7:
		h.tickTime()
		h.next(h.anyCPU())
	case 8:
		h.setAffinity(h.anySlot(), h.r.u64())
	case 9:
		h.setClass(h.anySlot(), Class(h.r.byte()%3))
	case 10:
		h.idleFor(h.anySlot(), h.anyCPU())
	}
}

// check compares every answer of the two and checks the invariants.
func (h *harness) check() {
	s, m := h.s, h.m
	for c := -1; c <= MaxCPUs; c++ {
		if c >= 0 && c < m.ncpu && s.Current(c) != m.cur[c] {
			h.fatalf("Current(%d) = %d, model %d", c, s.Current(c), m.cur[c])
		}
		if got, want := s.RunnableFor(c), m.runnableFor(c); got != want {
			h.fatalf("RunnableFor(%d) = %v, model %v", c, got, want)
		}
		if got, want := s.TickDue(c, h.now), m.tickDue(c, h.now); got != want {
			h.fatalf("TickDue(%d) = %v, model %v", c, got, want)
		}
		if got, want := s.Excluded(c), m.excluded(c); got != want {
			h.fatalf("Excluded(%d) = %v, model %v", c, got, want)
		}
	}
	checkSlot := func(slot int32) {
		if got, want := s.State(slot), m.state(slot); got != want {
			h.fatalf("State(%d) = %d, model %d", slot, got, want)
		}
		if got, want := s.CPU(slot), m.cpuOf(slot); got != want {
			h.fatalf("CPU(%d) = %d, model %d", slot, got, want)
		}
		want := uint64(0)
		if m.live(slot) {
			want = m.threads[slot].affinity
		}
		if got := s.Affinity(slot); got != want {
			h.fatalf("Affinity(%d) = %#x, model %#x", slot, got, want)
		}
		if m.slotOK(slot) && s.ClassOf(slot) != m.threads[slot].class {
			h.fatalf("ClassOf(%d) = %d, model %d", slot, s.ClassOf(slot), m.threads[slot].class)
		}
		if got, want := s.CPUTime(slot, h.now), m.cpuTime(slot, h.now); got != want {
			h.fatalf("CPUTime(%d) = %d, model %d", slot, got, want)
		}
		for _, me := range []int{-1, 0, m.ncpu - 1} {
			h.idleFor(slot, me)
		}
	}
	for slot := int32(0); slot < FirstThread+window; slot++ {
		checkSlot(slot)
	}
	for _, slot := range oddSlots {
		checkSlot(slot)
	}
	if s.Queued() != len(m.queue) || s.QueuedOn() != m.queuedOn() {
		h.fatalf("Queued, QueuedOn = %d, %#x; model %d, %#x", s.Queued(), s.QueuedOn(), len(m.queue), m.queuedOn())
	}
	ws, wt, wok := s.Waiting()
	if ms, mt, mok := m.waiting(); ws != ms || wt != mt || wok != mok {
		h.fatalf("Waiting = %d, %d, %v; model %d, %d, %v", ws, wt, wok, ms, mt, mok)
	}
	if got, want := s.ProcessCPUTime(h.now), m.processTime(h.now); got != want {
		h.fatalf("ProcessCPUTime = %d, model %d", got, want)
	}
	if err := s.invariants(); err != "" {
		h.fatalf("%s", err)
	}
	if h.strict {
		h.checkProtocol()
	}
}

// checkProtocol checks what holds between the kernel's entries.
func (h *harness) checkProtocol() {
	s := h.s
	for c := 0; c < h.m.ncpu; c++ {
		cur := s.Current(c)
		if isThread(cur) && (s.State(cur) != Running || s.CPU(cur) != int32(c)) {
			h.fatalf("CPU %d's current thread %d is %d on CPU %d", c, cur, s.State(cur), s.CPU(cur))
		}
		if s.Excluded(c) {
			h.fatalf("CPU %d still runs thread %d, whose mask %#x excludes it", c, cur, s.Affinity(cur))
		}
		if h.settled && IsIdle(cur) && s.RunnableFor(c) {
			h.fatalf("CPU %d idles while a thread it may run waits", c)
		}
	}
}

func TestRandomAgainstModel(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for i := 0; i < 100; i++ {
		data := make([]byte, 1+r.IntN(3000))
		for j := range data {
			data[j] = byte(r.Uint32())
		}
		run(t, data)
	}
}

func FuzzScheduler(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 1, 0, 2, 5, 1, 6, 0, 200, 3, 1})                 // strict, one CPU
	f.Add([]byte{4, 0, 0, 0, 0, 1, 1, 9, 0, 0, 0, 0, 0, 0, 0, 0, 2})          // strict, three CPUs, a pin
	f.Add([]byte{3, 0, 20, 3, 20, 6, 0, 6, 1, 8, 20, 0, 0, 0, 0, 0, 0, 0, 1}) // any calls, two CPUs
	f.Fuzz(func(t *testing.T, data []byte) { run(t, data) })
}
