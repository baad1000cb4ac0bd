package symtab

import (
	"math/rand/v2"
	"testing"
)

func TestDebugCalib(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	for iter := range 223 {
		s := randomSynth(rng)
		b, lay := s.build()
		if iter != 222 {
			continue
		}
		tab, _ := New(b, synthText)
		last, _ := tab.funcRecord(tab.nfunc - 1)
		npcdata := uint64(tab.field(fun{rec: last}, funcNPCData))
		nfuncdata := uint64(tab.tab[last+funcNFuncData])
		end := last + funcSize + 4*(npcdata+nfuncdata)
		t.Logf("end %d gofunc %d align %d len %d", end, lay.gofunc, s.align, len(b))
		for align := uint64(4); align <= 64; align *= 2 {
			c := (end + align - 1) &^ (align - 1)
			t.Logf("cand %d plausible %v", c, tab.plausibleGoFunc(c))
		}
		for _, f := range s.funcs {
			t.Logf("%s size %d idx %v inl %v", f.name, f.size, f.inlIdx, f.inl)
		}
	}
}
