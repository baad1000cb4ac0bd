package symtab

import (
	"runtime"
	"testing"
)

// TestNoAllocation checks that symbolizing allocates nothing, at PCs that
// take every path: inlined code, plain code, unknown PCs.
func TestNoAllocation(t *testing.T) {
	img := selfImage(t)
	tab := img.table(t)
	pcs := make([]uintptr, 32)
	pcs = pcs[:runtime.Callers(0, pcs)]
	pcs = append(pcs, 0, uintptr(img.text), ^uintptr(0))
	var sink int
	allocs := testing.AllocsPerRun(100, func() {
		for _, pc := range pcs {
			for depth := range 3 {
				if fr, ok := tab.InlinedAt(pc-1, depth); ok {
					sink += len(fr.Name) + len(fr.File) + int(fr.Line)
				}
			}
			if fr, ok := tab.Lookup(pc); ok {
				sink += len(fr.Name)
			}
		}
	})
	if allocs != 0 {
		t.Errorf("Lookup and InlinedAt allocate %v times per run", allocs)
	}
	allocs = testing.AllocsPerRun(10, func() {
		if tab, ok := New(img.pclntab, uintptr(img.text)); ok {
			sink += int(tab.nfunc)
		}
	})
	if allocs != 0 {
		t.Errorf("New allocates %v times per run", allocs)
	}
	if sink == 0 {
		t.Error("found nothing")
	}
}
