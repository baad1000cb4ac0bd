package mm

import (
	"math/rand"
	"testing"
)

// frameModel is the reference: one state per frame, the lowest free frame allocated first.
type frameModel struct {
	state                                 []byte // per frame below the limit: 0 not owned, 1 free, 2 allocated
	metaS, metaE                          uintptr
	nFree, nUsed                          uint64
	lowest                                int // no free frame below this index
	highWater, doubles, invalids, ignored uint64
}

const (
	notOwned = iota
	isFree
	isAllocated
)

func (m *frameModel) addFree(start, end uintptr) {
	first, last := (start+pageMask)/PageSize, end/PageSize
	if first < start/PageSize {
		return
	}
	first = max(first, 1)
	limit := uintptr(len(m.state))
	if last > limit {
		if b := max(first, limit); b < last {
			m.ignored += uint64(last - b)
		}
		last = limit
	}
	for n := first; n < last; n++ {
		if (n < m.metaS || n >= m.metaE) && m.state[n] == notOwned {
			m.state[n] = isFree
			m.nFree++
			m.lowest = min(m.lowest, int(n))
		}
	}
}

func (m *frameModel) reserve(start, end uintptr) {
	if end <= start {
		return
	}
	last := end / PageSize
	if end%PageSize != 0 {
		last++
	}
	for n := start / PageSize; n < last && n < uintptr(len(m.state)); n++ {
		if m.state[n] == isFree {
			m.state[n] = notOwned
			m.nFree--
		}
	}
}

func (m *frameModel) alloc() (uintptr, bool) {
	for n := m.lowest; n < len(m.state); n++ {
		if m.state[n] == isFree {
			m.state[n] = isAllocated
			m.nFree--
			m.nUsed++
			m.highWater = max(m.highWater, m.nUsed)
			m.lowest = n + 1
			return uintptr(n) * PageSize, true
		}
	}
	m.lowest = len(m.state)
	return 0, false
}

func (m *frameModel) free(pa uintptr) bool {
	n := pa / PageSize
	switch {
	case pa%PageSize != 0 || n >= uintptr(len(m.state)):
		m.invalids++
	case m.state[n] == isAllocated:
		m.state[n] = isFree
		m.nUsed--
		m.nFree++
		m.lowest = min(m.lowest, int(n))
		return true
	case m.state[n] == isFree:
		m.doubles++
	default:
		m.invalids++
	}
	return false
}

func (m *frameModel) stats() FrameStats {
	return FrameStats{Total: m.nFree + m.nUsed, Free: m.nFree, Allocated: m.nUsed, HighWater: m.highWater,
		DoubleFrees: m.doubles, InvalidFrees: m.invalids, Ignored: m.ignored}
}

// Fake RAM for the model tests: 40 MiB of physical addresses, storage for the first 32 MiB.
const (
	modelRAM     = 40 << 20
	modelManaged = 32 << 20
)

// runFrames drives a Frames and the model with the operations encoded in ops (3 bytes each) and
// fails on the first disagreement. The first byte places the storage.
func runFrames(t *testing.T, a *arena, ops []byte) {
	t.Helper()
	metaLen := MetaSize(modelManaged)
	meta := uintptr(0x3000)
	if len(ops) > 0 {
		meta = uintptr(ops[0])*(modelRAM/256-metaLen/256) + uintptr(ops[0]%8) // anywhere, sometimes unaligned
		ops = ops[1:]
	}
	var f Frames
	f.Init(meta, metaLen+8) // room to align
	start := (meta + 7) &^ 7
	m := frameModel{
		state: make([]byte, modelManaged/PageSize),
		metaS: start / PageSize,
		metaE: (start + metaLen + pageMask) / PageSize,
	}
	// addr turns two bytes into a physical address in or just beyond the fake RAM: mostly aligned,
	// sometimes not, sometimes at the very top of the address space.
	addr := func(hi, lo byte) uintptr {
		v := (uintptr(hi)<<8 | uintptr(lo)) * (modelRAM / 65536)
		switch lo % 16 {
		case 0:
			v += uintptr(hi)
		case 1:
			v = ^uintptr(0) - uintptr(hi)
		}
		return v
	}
	var allocated []uintptr
	for i := 0; i+2 < len(ops); i += 3 {
		op, x, y := ops[i], ops[i+1], ops[i+2]
		switch op % 8 {
		case 0:
			s, e := addr(x, y), addr(x, y)+uintptr(op)*PageSize*7
			f.AddFree(s, e)
			m.addFree(s, e)
		case 1:
			s, e := addr(x, y), addr(x, y)+uintptr(op/8)*PageSize
			f.Reserve(s, e)
			m.reserve(s, e)
		case 2, 3, 4:
			pa, ok := f.Alloc()
			mpa, mok := m.alloc()
			if pa != mpa || ok != mok {
				t.Fatalf("op %d: Alloc = %#x, %v; model %#x, %v", i/3, pa, ok, mpa, mok)
			}
			if ok {
				for _, b := range a.bytes(pa, PageSize) {
					if b != 0 {
						t.Fatalf("op %d: frame %#x not zeroed", i/3, pa)
					}
				}
				a.fill(pa, PageSize, op|1)
				allocated = append(allocated, pa)
			}
		case 5, 6:
			if len(allocated) == 0 {
				continue
			}
			k := int(x) % len(allocated)
			pa := allocated[k]
			if op%8 == 5 { // a proper free; the other case frees it again later: a double free
				allocated[k] = allocated[len(allocated)-1]
				allocated = allocated[:len(allocated)-1]
			}
			if got, want := f.Free(pa), m.free(pa); got != want {
				t.Fatalf("op %d: Free(%#x) = %v, model %v", i/3, pa, got, want)
			}
		case 7:
			pa := addr(x, y)
			if got, want := f.Free(pa), m.free(pa); got != want {
				t.Fatalf("op %d: Free(%#x) = %v, model %v", i/3, pa, got, want)
			}
		}
		lastStats = f.Stats()
		if got, want := f.Stats(), m.stats(); got != want {
			t.Fatalf("op %d (%d): Stats = %+v, model %+v", i/3, op%8, got, want)
		}
	}
}

// lastStats is what runFrames saw last, for the verbose log.
var lastStats FrameStats

func TestFramesModel(t *testing.T) {
	a := newArena(t, 0, modelRAM, true)
	rng := rand.New(rand.NewSource(1))
	for round := 0; round < 20; round++ {
		ops := make([]byte, 1+3*2000)
		rng.Read(ops)
		// Start each round with a few ranges so that allocations have something to take. Odd
		// rounds are scarce: small ranges and no AddFree later, so the allocator runs dry.
		scarce := round%2 == 1
		for k := 0; k < 4; k++ {
			ops[1+3*k] = 8 * byte(1+rng.Intn(31)) // op 0 (AddFree) with a long range
			if scarce {
				ops[1+3*k] = 8
			}
		}
		for k := 1 + 3*4; scarce && k < len(ops); k += 3 {
			if ops[k]%8 == 0 {
				ops[k] += 2 // Alloc instead
			}
		}
		runFrames(t, a, ops)
		if testing.Verbose() {
			t.Logf("round %d (scarce %v) ended with %+v", round, round%2 == 1, lastStats)
		}
	}
}

func FuzzFrames(f *testing.F) {
	f.Add([]byte{0})
	f.Add([]byte{7, 0xf8, 0, 0, 2, 0, 0, 5, 0, 0, 6, 0, 0, 6, 0, 0})
	f.Add([]byte{200, 0xf8, 1, 0, 9, 0, 0x10, 2, 0, 0, 3, 0, 0, 5, 0, 0, 7, 0, 0x11})
	f.Add([]byte{3, 0xf0, 0x10, 0x20, 0xf8, 0xff, 0xf1, 2, 1, 1, 15, 0, 0, 4, 0, 0})
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 3*4096 {
			ops = ops[:3*4096]
		}
		a := newArena(t, 0, modelRAM, true)
		runFrames(t, a, ops)
	})
}
