package symtab

import (
	"debug/elf"
	"debug/gosym"
	"fmt"
	"os"
	"sync"
	"testing"
)

// image is a Go executable's pclntab with the addresses a kernel would hand
// to New, plus what the tests check against.
type image struct {
	path    string
	pclntab []byte
	text    uint64 // runtime.text (the start of .text when stripped)
	pclnAt  uint64 // address of .gopclntab
	gofunc  uint64 // address of go:func.*, 0 when stripped
	textSym uint64 // runtime.text according to the symbols, 0 when stripped
	funcs   []gosym.Func
	gosym   *gosym.Table // the standard library's reading of the pclntab
}

// loadImage reads the pclntab and symbols of the ELF executable at path.
func loadImage(path string) (*image, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sec := f.Section(".gopclntab")
	if sec == nil {
		return nil, fmt.Errorf("%s: no .gopclntab", path)
	}
	data, err := sec.Data()
	if err != nil {
		return nil, err
	}
	text := f.Section(".text")
	if text == nil {
		return nil, fmt.Errorf("%s: no .text", path)
	}
	img := &image{path: path, pclntab: data, pclnAt: sec.Addr, text: text.Addr}
	// go test strips its binaries (-s -w): then there are no symbols, and
	// runtime.text is the start of .text, as the linker lays it out.
	syms, _ := f.Symbols()
	for _, s := range syms {
		switch s.Name {
		case "runtime.text":
			img.textSym = s.Value
		case "go:func.*":
			img.gofunc = s.Value
		}
	}
	img.gosym, err = gosym.NewTable(nil, gosym.NewLineTable(data, img.text))
	if err != nil {
		return nil, err
	}
	img.funcs = img.gosym.Funcs
	return img, nil
}

func (img *image) table(t testing.TB) Table {
	t.Helper()
	tab, ok := New(img.pclntab, uintptr(img.text))
	if !ok {
		t.Fatalf("%s: New rejected the pclntab", img.path)
	}
	return tab
}

var self = sync.OnceValues(func() (*image, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return loadImage(exe)
})

// selfImage is the running test binary, whose answers the runtime checks.
func selfImage(t testing.TB) *image {
	t.Helper()
	img, err := self()
	if err != nil {
		t.Fatal(err)
	}
	return img
}
