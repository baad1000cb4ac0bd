package symtab

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// FuzzTable feeds arbitrary bytes to New and looks up arbitrary PCs. The
// seeds are small synthetic tables, so the fuzzer mutates real structure.
func FuzzTable(f *testing.F) {
	for _, q := range []uint32{1, 4} {
		b, _ := sampleSynth(q).build()
		f.Add(b, uint64(synthText+5), uint8(0))
		f.Add(b, uint64(synthText+8*q), uint8(1))
	}
	rng := rand.New(rand.NewPCG(4, 5))
	for range 8 {
		b, lay := randomSynth(rng).build()
		f.Add(b, uint64(synthText)+rng.Uint64N(uint64(lay.end)+1), uint8(rng.IntN(4)))
	}
	f.Fuzz(func(t *testing.T, data []byte, pc uint64, depth uint8) {
		tab, ok := New(data, synthText)
		if !ok {
			return
		}
		checkFrame(t, data, &tab, uintptr(pc), int(depth))
		// Also every function's entry, where the ftab says they are.
		for i := uint64(0); i < tab.nfunc && i < 64; i++ {
			if e, ok := tab.ftabEntry(i); ok {
				checkFrame(t, data, &tab, synthText+uintptr(e), int(depth%4))
			}
		}
	})
}

// FuzzImage corrupts the test binary's own pclntab: it truncates it at cut
// and overwrites four bytes at pos, then looks up a PC in its text.
func FuzzImage(f *testing.F) {
	img := selfImage(f)
	f.Add(uint32(0), uint32(0), uint32(0), uint32(0))
	f.Add(uint32(len(img.pclntab)/2), uint32(0xffffffff), uint32(len(img.pclntab)), uint32(0x1000))
	f.Add(uint32(100000), uint32(0x7fffffff), uint32(len(img.pclntab)), uint32(0x2345))
	f.Add(uint32(70), uint32(12345), uint32(len(img.pclntab)-1), uint32(0x100))
	buf := append([]byte(nil), img.pclntab...)
	f.Fuzz(func(t *testing.T, pos, val, cut, pcOff uint32) {
		data := buf[:int(cut)%(len(buf)+1)]
		var saved [4]byte
		p := int(pos) % len(buf)
		if p+4 <= len(data) {
			copy(saved[:], data[p:])
			binary.LittleEndian.PutUint32(data[p:], val)
			defer copy(data[p:], saved[:])
		}
		tab, ok := New(data, uintptr(img.text))
		if !ok {
			return
		}
		pc := uintptr(img.text) + uintptr(pcOff)
		for depth := range 3 {
			checkFrame(t, data, &tab, pc, depth)
		}
	})
}
