package waitq

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestEnqueueWakeFIFO(t *testing.T) {
	var q Table
	for _, tid := range []int32{5, 3, 9, 1} {
		if !q.Enqueue(0x1000, tid) {
			t.Fatalf("Enqueue(0x1000, %d) = false", tid)
		}
	}
	q.Enqueue(0x2000, 7)
	out := make([]int32, 8)
	if n := q.Wake(0x1000, 2, out); n != 2 || !slices.Equal(out[:n], []int32{5, 3}) {
		t.Fatalf("Wake 2 = %v, want [5 3]", out[:n])
	}
	if n := q.Wake(0x1000, 10, out); n != 2 || !slices.Equal(out[:n], []int32{9, 1}) {
		t.Fatalf("Wake rest = %v, want [9 1]", out[:n])
	}
	if k, ok := q.KeyOf(7); !ok || k != 0x2000 {
		t.Fatalf("KeyOf(7) = %#x, %v", k, ok)
	}
	if q.Len() != 1 {
		t.Fatalf("Len = %d, want 1", q.Len())
	}
}

func TestEdgeCases(t *testing.T) {
	var q Table
	out := make([]int32, 4)
	tests := []struct {
		name string
		got  any
		want any
	}{
		{"negative tid", q.Enqueue(1, -1), false},
		{"tid too large", q.Enqueue(1, MaxWaiters), false},
		{"last tid", q.Enqueue(1, MaxWaiters-1), true},
		{"already waiting", q.Enqueue(2, MaxWaiters-1), false},
		{"wake n=0", q.Wake(1, 0, out), 0},
		{"wake negative n", q.Wake(1, -5, out), 0},
		{"wake empty out", q.Wake(1, 3, nil), 0},
		{"wake other key", q.Wake(2, 3, out), 0},
		{"len", q.Len(), 1},
		{"wake it", q.Wake(1, 3, out), 1},
		{"remove not waiting", second(q.Remove(MaxWaiters - 1)), false},
		{"remove invalid", second(q.Remove(-3)), false},
		{"keyof invalid", second(q.KeyOf(MaxWaiters)), false},
		{"enqueue again", q.Enqueue(0, MaxWaiters-1), true},
		{"remove reports key 0", first(q.Remove(MaxWaiters - 1)), uintptr(0)},
		{"empty", q.Len(), 0},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, tt.got, tt.want)
		}
	}
}

func first(k uintptr, _ bool) uintptr { return k }
func second(_ uintptr, ok bool) bool  { return ok }

// TestCollidingKeys puts many keys into one bucket and checks that each key
// still wakes only its own waiters, in order.
func TestCollidingKeys(t *testing.T) {
	var q Table
	var keys []uintptr
	for k := uintptr(0); len(keys) < 4; k += 4 {
		if bucketOf(k) == bucketOf(0) {
			keys = append(keys, k)
		}
	}
	for tid := int32(0); tid < 40; tid++ {
		q.Enqueue(keys[tid%4], tid)
	}
	out := make([]int32, 40)
	n := q.Wake(keys[2], 100, out)
	want := []int32{2, 6, 10, 14, 18, 22, 26, 30, 34, 38}
	if !slices.Equal(out[:n], want) {
		t.Fatalf("Wake(keys[2]) = %v, want %v", out[:n], want)
	}
	if q.Len() != 30 {
		t.Fatalf("Len = %d, want 30", q.Len())
	}
}

// model is the reference: one slice per key.
type model struct {
	queues map[uintptr][]int32
	keyOf  map[int32]uintptr
}

func newModel() *model {
	return &model{queues: map[uintptr][]int32{}, keyOf: map[int32]uintptr{}}
}

func (m *model) enqueue(key uintptr, tid int32) bool {
	if tid < 0 || tid >= MaxWaiters {
		return false
	}
	if _, ok := m.keyOf[tid]; ok {
		return false
	}
	m.keyOf[tid] = key
	m.queues[key] = append(m.queues[key], tid)
	return true
}

func (m *model) remove(tid int32) (uintptr, bool) {
	key, ok := m.keyOf[tid]
	if !ok {
		return 0, false
	}
	delete(m.keyOf, tid)
	m.queues[key] = slices.DeleteFunc(m.queues[key], func(x int32) bool { return x == tid })
	return key, true
}

func (m *model) wake(key uintptr, n, outLen int) []int32 {
	n = min(n, outLen, len(m.queues[key]))
	if n < 0 {
		n = 0
	}
	woken := slices.Clone(m.queues[key][:n])
	m.queues[key] = m.queues[key][n:]
	for _, tid := range woken {
		delete(m.keyOf, tid)
	}
	return woken
}

// step applies one operation, chosen by op, to both implementations and
// reports the first disagreement.
func step(t *testing.T, q *Table, m *model, op uint8, key uintptr, tid int32, n int) {
	t.Helper()
	switch op % 4 {
	case 0, 1:
		if got, want := q.Enqueue(key, tid), m.enqueue(key, tid); got != want {
			t.Fatalf("Enqueue(%#x, %d) = %v, want %v", key, tid, got, want)
		}
	case 2:
		gk, gok := q.Remove(tid)
		wk, wok := m.remove(tid)
		if gk != wk || gok != wok {
			t.Fatalf("Remove(%d) = %#x,%v, want %#x,%v", tid, gk, gok, wk, wok)
		}
	case 3:
		out := make([]int32, (n+7)%7)
		got := out[:q.Wake(key, n, out)]
		if want := m.wake(key, n, len(out)); !slices.Equal(got, want) {
			t.Fatalf("Wake(%#x, %d) = %v, want %v", key, n, got, want)
		}
	}
	if q.Len() != len(m.keyOf) {
		t.Fatalf("Len = %d, want %d", q.Len(), len(m.keyOf))
	}
	gk, gok := q.KeyOf(tid)
	wk, wok := m.keyOf[tid]
	if gk != wk || gok != wok {
		t.Fatalf("KeyOf(%d) = %#x,%v, want %#x,%v", tid, gk, gok, wk, wok)
	}
}

func TestRandomAgainstModel(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var q Table
	m := newModel()
	for i := 0; i < 200000; i++ {
		key := uintptr(r.IntN(16)) * 4
		if r.IntN(8) == 0 {
			key = uintptr(r.Uint64())
		}
		step(t, &q, m, uint8(r.IntN(4)), key, int32(r.IntN(MaxWaiters+2))-1, r.IntN(10)-1)
	}
}

func FuzzTable(f *testing.F) {
	f.Add([]byte{0, 1, 2, 0, 1, 3, 3, 1, 9})
	f.Add([]byte{1, 0, 0, 1, 0, 1, 3, 0, 5, 2, 0, 0})
	f.Fuzz(func(t *testing.T, ops []byte) {
		var q Table
		m := newModel()
		for i := 0; i+2 < len(ops); i += 3 {
			key := uintptr(ops[i+1]&7) * 4
			step(t, &q, m, ops[i], key, int32(ops[i+2])*2-2, int(ops[i+1]>>3))
		}
	})
}
