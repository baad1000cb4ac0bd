package ring

import (
	"math/rand/v2"
	"testing"
)

// model is the reference: the ring as a queue of record values. Space used
// is the sum of the queued sizes; where a record lands is tracked only to
// know when a PAD is needed.
type model struct {
	size     uint64
	end      uint64 // virtual position after the newest record
	q        []mrec
	seq      uint32
	lost     mrec // pending range when lost.args[0] > 0
	deferred uint64
	defCause uint64
}

type mrec struct {
	size uint64
	tpid uint16
	seq  uint32
	args [4]uint64
}

func (m *model) used() uint64 {
	var u uint64
	for _, r := range m.q {
		u += r.size
	}
	return u
}

// steps is the model test's length; -short (and -race runs in make test
// take the default) keep it brief.
func steps() int {
	if testing.Short() {
		return 3000
	}
	return 8000
}

func (m *model) addLost(n, causes, ts uint64) {
	if m.lost.args[0] == 0 {
		m.lost = mrec{size: LostSize, tpid: tpidLost, seq: m.seq, args: [4]uint64{0, ts, 0, 0}}
	}
	m.lost.args[0] += n
	m.lost.args[2] = ts
	m.lost.args[3] |= causes
	m.seq += uint32(n)
}

// place returns the PAD needed before an n-byte record at position p.
func (m *model) place(p, n uint64) uint64 {
	if p%m.size+n > m.size {
		return m.size - p%m.size
	}
	return 0
}

func (m *model) emit(n uint32, ts uint64) (uint32, bool) {
	if m.deferred > 0 {
		m.addLost(m.deferred, m.defCause, ts)
		m.deferred, m.defCause = 0, 0
	}
	if !validRecordSize(n) {
		m.addLost(1, 1<<CauseInvalid, ts)
		return 0, false
	}
	var add []mrec
	p := m.end
	if m.lost.args[0] > 0 {
		if pad := m.place(p, LostSize); pad > 0 {
			add = append(add, mrec{size: pad})
			p += pad
		}
		add = append(add, m.lost)
		p += LostSize
	}
	if pad := m.place(p, uint64(n)); pad > 0 {
		add = append(add, mrec{size: pad})
		p += pad
	}
	add = append(add, mrec{size: uint64(n), tpid: testTpid, seq: m.seq})
	p += uint64(n)
	if m.used()+(p-m.end) > m.size {
		m.addLost(1, 1<<CauseFull, ts)
		return 0, false
	}
	m.q = append(m.q, add...)
	m.end = p
	m.lost = mrec{}
	m.seq++
	return m.seq - 1, true
}

// drain removes whole records that fit in limit bytes (PADs free), as
// CopyOut does, and returns the non-PAD ones.
func (m *model) drain(limit int) []mrec {
	var out []mrec
	for len(m.q) > 0 {
		r := m.q[0]
		if r.tpid != tpidPad {
			if int(r.size) > limit {
				break
			}
			limit -= int(r.size)
			out = append(out, r)
		}
		m.q = m.q[1:]
	}
	return out
}

func TestModelStream(t *testing.T) {
	for seed := range uint64(8) {
		rng := rand.New(rand.NewPCG(seed, 99))
		r, _ := newRing(t, MinSize, Stream)
		m := &model{size: MinSize}
		buf := make([]byte, MinSize)
		for step := range steps() {
			ts := uint64(step)
			switch op := rng.IntN(20); {
			case op < 12:
				n := uint32(HeaderSize + 8*rng.IntN(MaxRecord/8))
				if rng.IntN(100) == 0 {
					n = uint32(rng.IntN(MaxRecord + 64))
				}
				seq, ok := emit(r, n, ts)
				mseq, mok := m.emit(n, ts)
				if ok != mok || (ok && seq != mseq) {
					t.Fatalf("seed %d step %d: emit(%d) = %d,%v; model %d,%v", seed, step, n, seq, ok, mseq, mok)
				}
			case op < 13:
				r.Drop(CauseNested)
				m.deferred++
				m.defCause |= 1 << CauseNested
			case op < 14:
				// Reserve then Abort: a drop of its own whose seq is taken.
				n := uint32(HeaderSize + 8*rng.IntN(8))
				if _, _, ok := r.Reserve(n, ts); ok {
					r.Abort(ts)
					seq, mok := m.emit(n, ts)
					if !mok {
						t.Fatalf("seed %d step %d: model refused what the ring reserved", seed, step)
					}
					// Undo the model's record, keep its LOST, count the abort.
					m.q = m.q[:len(m.q)-1]
					for len(m.q) > 0 && m.q[len(m.q)-1].tpid == tpidPad && m.q[len(m.q)-1].size < uint64(n) {
						m.q = m.q[:len(m.q)-1]
					}
					m.end = 0 // position after the remaining queue, from its sizes
					for _, q := range m.q {
						m.end += q.size
					}
					m.end += r.tail.Load()
					m.lost = mrec{size: LostSize, tpid: tpidLost, seq: seq, args: [4]uint64{1, ts, ts, 1 << CauseAborted}}
				} else {
					m.emit(n, ts)
				}
			default:
				limit := rng.IntN(MinSize)
				n, consumed := r.CopyOut(buf[:limit])
				got := parse(t, buf[:n])
				want := m.drain(limit)
				if len(got) != len(want) {
					t.Fatalf("seed %d step %d: drained %d records, model %d: got %+v want %+v limit %d", seed, step, len(got), len(want), got, want, limit)
				}
				for i := range got {
					g, w := got[i], want[i]
					if g.size != uint16(w.size) || g.tpid != w.tpid || g.seq != w.seq ||
						(g.tpid == tpidLost && g.args != w.args) {
						t.Fatalf("seed %d step %d: record %d = %+v, model %+v", seed, step, i, g, w)
					}
				}
				r.Release(consumed)
			}
		}
	}
}
