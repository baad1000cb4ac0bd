package probes

import (
	"debug/dwarf"
	"debug/elf"
	"fmt"
	"sort"

	"github.com/unitrace/unitrace/probe"
	"github.com/unitrace/unitrace/symtab"
)

// Func is one function of the image: its name and the extent of its code.
type Func struct {
	Name       string
	Entry, End uint64
}

// Image is what the resolver reads of an ELF image: its instruction set, its functions (from
// the symbol table, by address) and its code.
type Image struct {
	Arch     probe.Arch
	Funcs    []Func
	text     []byte
	textAddr uint64

	table   symtab.Table // the pclntab: SP deltas, for pairing a return with its entry
	pclntab []byte       // kept so the table's slices stay valid
	dwarf   *dwarf.Data  // parameters' names and types (nil: the image has no DWARF)
	params  map[string][]Param
	data    []dataRange // loaded sections with contents: a string's bytes, when static
}

// dataRange is a loaded section's bytes at its address.
type dataRange struct {
	addr  uint64
	bytes []byte
}

// OpenImage reads the ELF image at path.
func OpenImage(path string) (*Image, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	im := &Image{}
	switch f.Machine {
	case elf.EM_X86_64:
		im.Arch = probe.AMD64
	case elf.EM_AARCH64:
		im.Arch = probe.ARM64
	default:
		return nil, fmt.Errorf("%s: machine %v is neither amd64 nor arm64", path, f.Machine)
	}
	text := f.Section(".text")
	if text == nil || text.Type == elf.SHT_NOBITS {
		return nil, fmt.Errorf("%s: no .text section", path)
	}
	if im.text, err = text.Data(); err != nil {
		return nil, fmt.Errorf("%s: reading .text: %w", path, err)
	}
	im.textAddr = text.Addr
	syms, err := f.Symbols()
	if err != nil {
		return nil, fmt.Errorf("%s: no symbol table (%w); never strip an image", path, err)
	}
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Size == 0 || s.Value < im.textAddr || s.Value+s.Size > im.textAddr+uint64(len(im.text)) {
			continue
		}
		im.Funcs = append(im.Funcs, Func{Name: s.Name, Entry: s.Value, End: s.Value + s.Size})
	}
	sort.Slice(im.Funcs, func(i, j int) bool { return im.Funcs[i].Entry < im.Funcs[j].Entry })
	if err := im.readTables(f, syms); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return im, nil
}

// readTables reads the pclntab, the DWARF (absent is no error: arguments then go unnamed) and
// the loaded data sections.
func (im *Image) readTables(f *elf.File, syms []elf.Symbol) error {
	sec := f.Section(".gopclntab")
	if sec == nil {
		return fmt.Errorf("no .gopclntab section: not a Go image")
	}
	var err error
	if im.pclntab, err = sec.Data(); err != nil {
		return fmt.Errorf("reading .gopclntab: %w", err)
	}
	textStart := im.textAddr
	for _, s := range syms {
		if s.Name == "runtime.text" {
			textStart = s.Value
		}
	}
	tab, ok := symtab.New(im.pclntab, uintptr(textStart))
	if !ok {
		return fmt.Errorf(".gopclntab is not a pclntab this tool can read")
	}
	im.table = tab
	im.dwarf, _ = f.DWARF()
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_ALLOC == 0 || s.Type == elf.SHT_NOBITS || s.Size == 0 || s.Size > 1<<30 {
			continue
		}
		if b, err := s.Data(); err == nil {
			im.data = append(im.data, dataRange{s.Addr, b})
		}
	}
	return nil
}

// SPDelta is how far below its entry stack pointer a function's stack pointer is at pc (the
// pclntab's pcsp table).
func (im *Image) SPDelta(pc uint64) (int32, bool) { return im.table.SPDelta(uintptr(pc)) }

// Static returns the n bytes at addr if a loaded section of the image holds them (a string
// literal's bytes, say), or false for anything else: heap, stack, or out of range.
func (im *Image) Static(addr, n uint64) ([]byte, bool) {
	for _, d := range im.data {
		if addr >= d.addr && n <= uint64(len(d.bytes)) && addr-d.addr <= uint64(len(d.bytes))-n {
			return d.bytes[addr-d.addr : addr-d.addr+n], true
		}
	}
	return nil, false
}

// Code returns the code of [start, end), or nil outside .text.
func (im *Image) Code(start, end uint64) []byte {
	if start < im.textAddr || end < start || end-im.textAddr > uint64(len(im.text)) {
		return nil
	}
	return im.text[start-im.textAddr : end-im.textAddr]
}

// FuncAt returns the function whose code holds pc.
func (im *Image) FuncAt(pc uint64) (Func, bool) {
	i := sort.Search(len(im.Funcs), func(i int) bool { return im.Funcs[i].End > pc })
	if i < len(im.Funcs) && im.Funcs[i].Entry <= pc {
		return im.Funcs[i], true
	}
	return Func{}, false
}

// NameAt names the function whose code holds pc: the innermost one, an inlined body's callee
// included (inlined is then true).
func (im *Image) NameAt(pc uint64) (name string, inlined bool, ok bool) {
	fr, ok := im.table.Lookup(uintptr(pc))
	if !ok {
		return "", false, false
	}
	return string(fr.Name), fr.Inlined, true
}
