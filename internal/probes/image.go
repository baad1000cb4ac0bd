package probes

import (
	"debug/elf"
	"fmt"
	"sort"

	"github.com/unitrace/unitrace/probe"
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
	return im, nil
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
