package goroutines

import (
	"encoding/binary"
	"testing"
)

// FuzzReader reads a goroutine list out of garbage: the arena's first words are the fuzzer's,
// the list and gs land wherever they say. The reader must never load outside the arena (the
// test would fault), never report a Live goroutine whose resume pc is outside the text or
// whose sp is outside its stack, and always end.
func FuzzReader(f *testing.F) {
	a := newArena()
	lo, hi := a.stack(0)
	a.addG(0, gSpec{status: 4, id: 1, pc: textLo + 8, sp: lo + 8, lo: lo, hi: hi})
	seed := make([]byte, 0, 8*1024)
	for _, w := range a.words[:1024] {
		seed = binary.LittleEndian.AppendUint64(seed, w-uint64(a.base)*boolWord(w >= uint64(a.base) && w < uint64(a.base)+arenaWords*8))
	}
	f.Add(seed)
	f.Add(make([]byte, 64))
	f.Fuzz(func(t *testing.T, data []byte) {
		a := newArena()
		// Words the fuzzer gives are offsets into the arena when they are small (but not
		// tiny, which counts and ids are): most land inside, so the reader gets past its
		// first checks.
		for i := 0; i+8 <= len(data) && i/8 < arenaWords; i += 8 {
			w := binary.LittleEndian.Uint64(data[i:])
			if w >= 16 && w < arenaWords*8 {
				w += uint64(a.base)
			}
			a.words[i/8] = w
		}
		r := a.reader()
		n := r.Start()
		if n < 0 {
			return
		}
		if n > maxGoroutines {
			t.Fatalf("Start took a list of %d", n)
		}
		for i := 0; i <= n; i++ {
			var g G
			res := r.Next(&g)
			if res == End {
				return
			}
			if res != Live {
				continue
			}
			if g.State != StateRunning && (g.PC < textLo || g.PC >= textHi || g.SP < g.StackLo || g.SP > g.StackHi) {
				t.Fatalf("a live goroutine resumes at pc %#x sp %#x, stack [%#x, %#x)", g.PC, g.SP, g.StackLo, g.StackHi)
			}
			r.Recheck(&g)
		}
		t.Fatalf("Next did not end after %d entries", n)
	})
}

func boolWord(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
