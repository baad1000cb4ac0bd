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
