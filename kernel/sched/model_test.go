package sched

import (
	"math/bits"
	"slices"
)

// The reference model: the package's documented rules written plainly, with a slice for the
// queue and one record per thread, and no shortcuts (no zero-value encodings, no queue
// arrays). The random and fuzz tests run it beside a Scheduler and compare every answer.

type mThread struct {
	state                      State
	class                      Class
	cpu                        int32
	affinity                   uint64
	queuedAt, runStart, cpuCum int64
}

type model struct {
	ncpu    int
	threads [MaxThreads]mThread
	cur     [MaxCPUs]int32 // slot each CPU runs
	queue   []int32        // runnable threads, oldest first
	done    int64          // CPU time of every finished run, exited threads' included
}

func newModel() *model {
	m := &model{ncpu: 1}
	for c := range m.cur {
		m.cur[c] = int32(c)
	}
	return m
}

func (m *model) all() uint64         { return 1<<uint(m.ncpu) - 1 }
func (m *model) cpuOK(c int) bool    { return c >= 0 && c < m.ncpu }
func (m *model) slotOK(s int32) bool { return s >= FirstThread && s < MaxThreads }
func (m *model) live(s int32) bool   { return m.slotOK(s) && m.threads[s].state != Free }

// currentOf is the CPU whose current thread slot is, or -1.
func (m *model) currentOf(s int32) int {
	for c := 0; c < m.ncpu; c++ {
		if m.cur[c] == s {
			return c
		}
	}
	return -1
}

func (m *model) setCPUs(n int) { m.ncpu = max(1, min(n, MaxCPUs)) }

func (m *model) add(s int32) bool {
	if !m.slotOK(s) || m.threads[s].state != Free || m.currentOf(s) >= 0 {
		return false
	}
	m.threads[s] = mThread{state: Blocked, cpu: -1, affinity: m.all()}
	return true
}

func (m *model) inherit(child, parent int32) {
	if m.live(child) && m.live(parent) {
		m.threads[child].affinity = m.threads[parent].affinity
		m.threads[child].class = m.threads[parent].class
	}
}

func (m *model) exit(s int32) {
	if !m.slotOK(s) {
		return
	}
	if m.threads[s].state == Runnable {
		m.queue = slices.DeleteFunc(m.queue, func(q int32) bool { return q == s })
	}
	m.threads[s].state = Free
}

func (m *model) ready(s int32, now int64) bool {
	if !m.slotOK(s) || (m.threads[s].state != Blocked && m.threads[s].state != Running) {
		return false
	}
	m.threads[s].state = Runnable
	m.threads[s].queuedAt = now
	m.queue = append(m.queue, s)
	return true
}

func (m *model) block(s int32) bool {
	if !m.slotOK(s) || m.threads[s].state != Running {
		return false
	}
	m.threads[s].state = Blocked
	return true
}

// mayTake: the affinity allows c, and no other CPU has it as its current thread.
func (m *model) mayTake(s int32, c int) bool {
	o := m.currentOf(s)
	return m.threads[s].affinity&(1<<uint(c)) != 0 && (o < 0 || o == c)
}

func (m *model) next(c int, now int64) (int32, int32) {
	if !m.cpuOK(c) {
		return -1, -1
	}
	prev := m.cur[c]
	if m.slotOK(prev) && m.threads[prev].state == Running {
		return prev, prev
	}
	next := int32(c)
	for i, s := range m.queue {
		if m.mayTake(s, c) {
			next = s
			m.queue = slices.Delete(m.queue, i, i+1)
			break
		}
	}
	if next == prev {
		if m.slotOK(next) {
			m.threads[next].state = Running
		}
		return prev, next
	}
	if m.slotOK(prev) {
		p := &m.threads[prev]
		p.cpuCum += now - p.runStart
		m.done += now - p.runStart
	}
	m.cur[c] = next
	if m.slotOK(next) {
		m.threads[next].state, m.threads[next].cpu, m.threads[next].runStart = Running, int32(c), now
	}
	return prev, next
}

func (m *model) runnableFor(c int) bool {
	return m.cpuOK(c) && slices.ContainsFunc(m.queue, func(s int32) bool { return m.mayTake(s, c) })
}

func (m *model) tickDue(c int, now int64) bool {
	if !m.runnableFor(c) {
		return false
	}
	s := m.cur[c]
	if !m.slotOK(s) {
		return true // idle
	}
	return m.threads[s].class == TimeSliced && now-m.threads[s].runStart >= Quantum
}

func (m *model) excluded(c int) bool {
	if !m.cpuOK(c) {
		return false
	}
	s := m.cur[c]
	return m.slotOK(s) && m.threads[s].state == Running && m.threads[s].affinity&(1<<uint(c)) == 0
}

func (m *model) idleFor(s int32, me int) uint64 {
	if !m.slotOK(s) {
		return 0
	}
	idle := func(c int) bool { return !m.slotOK(m.cur[c]) }
	mask := m.threads[s].affinity & m.all()
	if m.cpuOK(me) && idle(me) && mask&(1<<uint(me)) != 0 {
		return 0
	}
	var out uint64
	for c := 0; c < m.ncpu; c++ {
		if c != me && mask&(1<<uint(c)) != 0 && idle(c) {
			out |= 1 << uint(c)
		}
	}
	return out
}

func (m *model) setAffinity(s int32, mask uint64) (int, bool) {
	mask &= m.all()
	if !m.live(s) || mask == 0 {
		return -1, false
	}
	t := &m.threads[s]
	t.affinity = mask
	if t.state == Running && mask&(1<<uint(t.cpu)) == 0 {
		return int(t.cpu), true
	}
	return -1, true
}

func (m *model) setClass(s int32, c Class) {
	if m.live(s) && (c == TimeSliced || c == FIFO) {
		m.threads[s].class = c
	}
}

func (m *model) state(s int32) State {
	switch {
	case m.slotOK(s):
		return m.threads[s].state
	case s >= 0 && int(s) < m.ncpu && m.cur[s] == s:
		return Running
	case s >= 0 && int(s) < m.ncpu:
		return Runnable
	}
	return Free
}

func (m *model) cpuOf(s int32) int32 {
	switch {
	case s >= 0 && int(s) < m.ncpu:
		return s
	case !m.live(s):
		return -1
	}
	return m.threads[s].cpu
}

func (m *model) cpuTime(s int32, now int64) int64 {
	if !m.slotOK(s) {
		return 0
	}
	t := &m.threads[s]
	if t.state == Running {
		return t.cpuCum + now - t.runStart
	}
	return t.cpuCum
}

func (m *model) processTime(now int64) int64 {
	sum := m.done
	for s := int32(FirstThread); s < MaxThreads; s++ {
		if m.threads[s].state == Running {
			sum += now - m.threads[s].runStart
		}
	}
	return sum
}

func (m *model) queuedOn() uint64 {
	var on uint64
	for _, s := range m.queue {
		on |= m.threads[s].affinity
	}
	return on
}

// waiting: the first of the queued threads with the earliest queuedAt.
func (m *model) waiting() (int32, int64, bool) {
	if len(m.queue) == 0 {
		return 0, 0, false
	}
	best := m.queue[0]
	for _, s := range m.queue[1:] {
		if m.threads[s].queuedAt < m.threads[best].queuedAt {
			best = s
		}
	}
	return best, m.threads[best].queuedAt, true
}

// onesIn lists the bit numbers set in mask, lowest first.
func onesIn(mask uint64) []int {
	var out []int
	for mask != 0 {
		b := bits.TrailingZeros64(mask)
		out = append(out, b)
		mask &^= 1 << uint(b)
	}
	return out
}
