package symtab

import "testing"

// BenchmarkNew measures header validation plus the go:func.* probe.
func BenchmarkNew(b *testing.B) {
	img := selfImage(b)
	for b.Loop() {
		New(img.pclntab, uintptr(img.text))
	}
}

// BenchmarkLookup measures one PC in the middle of the text.
func BenchmarkLookup(b *testing.B) {
	img := selfImage(b)
	tab := img.table(b)
	pc := uintptr(img.funcs[len(img.funcs)/2].Entry) + 9
	for b.Loop() {
		tab.Lookup(pc)
	}
}

// BenchmarkFrameAt measures the table step's lookup: the function and its SP delta, at a pc
// near the end of a large function (the pcsp table decoded the furthest).
func BenchmarkFrameAt(b *testing.B) {
	img := selfImage(b)
	tab := img.table(b)
	big := img.funcs[0]
	for _, f := range img.funcs {
		if f.End-f.Entry > big.End-big.Entry {
			big = f
		}
	}
	pc := uintptr(big.End) - 16
	b.ReportMetric(float64(big.End-big.Entry), "funcbytes")
	for b.Loop() {
		tab.FrameAt(pc)
	}
}
