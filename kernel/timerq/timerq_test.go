package timerq

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestExpiredOrder(t *testing.T) {
	var q Queue
	adds := []struct {
		tid      int32
		deadline int64
	}{{4, 300}, {1, 100}, {7, 200}, {2, 100}, {9, 50}, {4, 10}} // last replaces tid 4
	for _, a := range adds {
		if !q.Add(a.tid, a.deadline) {
			t.Fatalf("Add(%d, %d) = false", a.tid, a.deadline)
		}
	}
	if d, ok := q.Next(); !ok || d != 10 {
		t.Fatalf("Next = %d, %v, want 10", d, ok)
	}
	tests := []struct {
		now    int64
		outLen int
		want   []int32
	}{
		{5, 8, nil},
		{100, 2, []int32{4, 9}}, // out too small: the rest waits
		{100, 8, []int32{1, 2}}, // equal deadlines: lower tid first
		{math.MaxInt64, 8, []int32{7}},
		{math.MaxInt64, 8, nil},
	}
	for _, tt := range tests {
		out := make([]int32, tt.outLen)
		if got := out[:q.Expired(tt.now, out)]; !slices.Equal(got, tt.want) {
			t.Errorf("Expired(%d) = %v, want %v", tt.now, got, tt.want)
		}
	}
	if _, ok := q.Next(); ok || q.Len() != 0 {
		t.Fatalf("queue not empty: len %d", q.Len())
	}
}

func TestInvalidTids(t *testing.T) {
	var q Queue
	for _, tid := range []int32{-1, Capacity, math.MaxInt32, math.MinInt32} {
		if q.Add(tid, 1) || q.Remove(tid) {
			t.Errorf("tid %d accepted", tid)
		}
		if _, ok := q.Deadline(tid); ok {
			t.Errorf("Deadline(%d) ok", tid)
		}
	}
	if q.Remove(3) {
		t.Error("Remove of absent tid reported true")
	}
	if q.Expired(math.MaxInt64, nil) != 0 {
		t.Error("Expired with empty out returned tids")
	}
}

func TestFull(t *testing.T) {
	var q Queue
	for tid := int32(Capacity - 1); tid >= 0; tid-- {
		if !q.Add(tid, int64(tid%7)) {
			t.Fatalf("Add(%d) failed", tid)
		}
	}
	out := make([]int32, Capacity)
	n := q.Expired(math.MaxInt64, out)
	if n != Capacity {
		t.Fatalf("Expired = %d, want %d", n, Capacity)
	}
	if !slices.IsSortedFunc(out, func(a, b int32) int {
		return cmpEntry(entry{int64(a % 7), a}, entry{int64(b % 7), b})
	}) {
		t.Fatalf("not sorted: %v", out)
	}
}

func cmpEntry(a, b entry) int {
	switch {
	case a.before(b):
		return -1
	case b.before(a):
		return 1
	}
	return 0
}

// model is the reference: a sorted slice.
type model []entry

func (m *model) remove(tid int32) bool {
	i := slices.IndexFunc(*m, func(e entry) bool { return e.tid == tid })
	if i < 0 {
		return false
	}
	*m = slices.Delete(*m, i, i+1)
	return true
}

func (m *model) add(tid int32, d int64) bool {
	if tid < 0 || tid >= Capacity {
		return false
	}
	m.remove(tid)
	e := entry{d, tid}
	i, _ := slices.BinarySearchFunc(*m, e, cmpEntry)
	*m = slices.Insert(*m, i, e)
	return true
}

func (m *model) expired(now int64, outLen int) []int32 {
	var out []int32
	for len(out) < outLen && len(*m) > 0 && (*m)[0].deadline <= now {
		out = append(out, (*m)[0].tid)
		*m = (*m)[1:]
	}
	return out
}

func step(t *testing.T, q *Queue, m *model, op uint8, tid int32, d int64, outLen int) {
	t.Helper()
	switch op % 4 {
	case 0, 1:
		if got, want := q.Add(tid, d), m.add(tid, d); got != want {
			t.Fatalf("Add(%d, %d) = %v, want %v", tid, d, got, want)
		}
	case 2:
		if got, want := q.Remove(tid), m.remove(tid); got != want {
			t.Fatalf("Remove(%d) = %v, want %v", tid, got, want)
		}
	case 3:
		out := make([]int32, outLen)
		got := out[:q.Expired(d, out)]
		if want := m.expired(d, outLen); !slices.Equal(got, want) {
			t.Fatalf("Expired(%d) = %v, want %v", d, got, want)
		}
	}
	if q.Len() != len(*m) {
		t.Fatalf("Len = %d, want %d", q.Len(), len(*m))
	}
	nd, ok := q.Next()
	if ok != (len(*m) > 0) || ok && nd != (*m)[0].deadline {
		t.Fatalf("Next = %d,%v, model %v", nd, ok, *m)
	}
}

func TestRandomAgainstModel(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var q Queue
	var m model
	for i := 0; i < 300000; i++ {
		d := r.Int64N(1000) - 100
		if r.IntN(50) == 0 {
			d = int64(r.Uint64())
		}
		step(t, &q, &m, uint8(r.IntN(4)), int32(r.IntN(Capacity+2))-1, d, r.IntN(6))
	}
}

func FuzzQueue(f *testing.F) {
	f.Add([]byte{0, 1, 50, 0, 2, 20, 3, 0, 30, 2, 1, 0})
	f.Add([]byte{1, 5, 5, 1, 5, 1, 3, 9, 255})
	f.Fuzz(func(t *testing.T, ops []byte) {
		var q Queue
		var m model
		for i := 0; i+2 < len(ops); i += 3 {
			step(t, &q, &m, ops[i], int32(ops[i+1])*3-3, int64(int8(ops[i+2])), int(ops[i+1]%5))
		}
	})
}
