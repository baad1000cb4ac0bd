package filelock

import (
	"math/rand/v2"
	"testing"

	"github.com/unitrace/unitrace/kernel/abi"
)

// The model: for each file, class and byte of a small file (the last byte standing for
// everything up to OffsetMax), which type each owner holds.
const (
	mFiles  = 2
	mOwners = 3
	mBytes  = 12
)

type model struct {
	held [mFiles][2][mBytes][mOwners]Type // Unlock where nothing is held
}

func newModel() *model {
	m := &model{}
	for f := range m.held {
		for c := range m.held[f] {
			for b := range m.held[f][c] {
				for o := range m.held[f][c][b] {
					m.held[f][c][b][o] = Unlock
				}
			}
		}
	}
	return m
}

func span(l Lock) (int, int) {
	e := int(min(l.End, mBytes-1))
	return int(l.Start), e
}

func (m *model) conflict(l Lock) bool {
	s, e := span(l)
	for b := s; b <= e; b++ {
		for o := 0; o < mOwners; o++ {
			h := m.held[l.File][l.Class][b][o]
			if uint32(o) != l.Owner && h != Unlock && (h == Write || l.Type == Write) {
				return true
			}
		}
	}
	return false
}

func (m *model) set(l Lock) int {
	if l.Class == Flock {
		row := &m.held[l.File][Flock]
		if row[0][l.Owner] == l.Type && l.Type != Unlock {
			return 0
		}
		for b := range row {
			row[b][l.Owner] = Unlock
		}
		if l.Type == Unlock {
			return 0
		}
		if m.conflict(Lock{File: l.File, Class: Flock, Owner: l.Owner, Type: l.Type, End: OffsetMax}) {
			return abi.EAGAIN
		}
		for b := range row {
			row[b][l.Owner] = l.Type
		}
		return 0
	}
	if l.Type != Unlock && m.conflict(l) {
		return abi.EAGAIN
	}
	s, e := span(l)
	for b := s; b <= e; b++ {
		m.held[l.File][l.Class][b][l.Owner] = l.Type
	}
	return 0
}

// check compares the table with the model byte by byte, and checks that an owner's locks on a
// file are disjoint and that adjacent ones of one type are merged.
func check(t *testing.T, tb *Table, m *model, step int) {
	t.Helper()
	var got [mFiles][2][mBytes][mOwners]Type
	for f := range got {
		for c := range got[f] {
			for b := range got[f][c] {
				for o := range got[f][c][b] {
					got[f][c][b][o] = Unlock
				}
			}
		}
	}
	for i := 0; i < tb.Len(); i++ {
		l := tb.At(i)
		s, e := span(l)
		for b := s; b <= e; b++ {
			if got[l.File][l.Class][b][l.Owner] != Unlock {
				t.Fatalf("step %d: lock %+v overlaps another of its owner", step, l)
			}
			got[l.File][l.Class][b][l.Owner] = l.Type
		}
		for j := 0; j < tb.Len(); j++ {
			k := tb.At(j)
			if j != i && k.File == l.File && k.Class == l.Class && k.Owner == l.Owner && k.Type == l.Type && l.End != OffsetMax && k.Start == l.End+1 {
				t.Fatalf("step %d: adjacent locks %+v and %+v not merged", step, l, k)
			}
		}
	}
	if got != m.held {
		t.Fatalf("step %d: table %v, model %v", step, got, m.held)
	}
}

func TestModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for run := 0; run < 200; run++ {
		var tb Table
		m := newModel()
		for step := 0; step < 200; step++ {
			l := Lock{
				File:  uint64(rng.IntN(mFiles)),
				Owner: uint32(rng.IntN(mOwners)),
				Class: Class(rng.IntN(2)),
				Type:  Type(rng.IntN(3)),
			}
			l.Start = int64(rng.IntN(mBytes - 1))
			if rng.IntN(4) == 0 {
				l.End = OffsetMax
			} else {
				l.End = l.Start + int64(rng.IntN(mBytes-1-int(l.Start)))
			}
			switch rng.IntN(10) {
			case 0:
				all := rng.IntN(2) == 0
				tb.Release(l.File, all, l.Owner, l.Class)
				for f := 0; f < mFiles; f++ {
					if all || uint64(f) == l.File {
						for b := 0; b < mBytes; b++ {
							m.held[f][l.Class][b][l.Owner] = Unlock
						}
					}
				}
			case 1, 2:
				if l.Type == Unlock {
					continue
				}
				_, got := tb.Conflict(l)
				if l.Class == Flock {
					l.Start, l.End = 0, OffsetMax
				}
				if want := m.conflict(l); got != want {
					t.Fatalf("run %d step %d: Conflict(%+v) = %v, model %v", run, step, l, got, want)
				}
			default:
				want := m.set(l)
				if got := tb.Set(l); got != want {
					t.Fatalf("run %d step %d: Set(%+v) = %d, model %d", run, step, l, got, want)
				}
			}
			check(t, &tb, m, step)
		}
	}
}

func TestFull(t *testing.T) {
	var tb Table
	for i := 0; i < MaxLocks; i++ {
		if e := tb.Set(Lock{File: 1, Start: int64(2 * i), End: int64(2 * i), Type: Write}); e != 0 {
			t.Fatalf("lock %d: %d", i, e)
		}
	}
	if e := tb.Set(Lock{File: 1, Start: 1000, End: 1000, Type: Read}); e != abi.ENOLCK {
		t.Fatalf("a lock too many: %d, want ENOLCK", e)
	}
	// Splitting one lock needs a slot too: refused, nothing changed.
	if e := tb.Set(Lock{File: 1, Start: 0, End: 0, Type: Unlock}); e != 0 || tb.Len() != MaxLocks-1 {
		t.Fatalf("unlock: %d, %d locks", e, tb.Len())
	}
	if e := tb.Set(Lock{File: 1, Start: 2, End: 4, Type: Write}); e != 0 || tb.Len() != MaxLocks-2 {
		t.Fatalf("merge: %d, %d locks", e, tb.Len())
	}
}
