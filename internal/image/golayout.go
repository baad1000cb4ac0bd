package image

import (
	"debug/elf"
	"errors"
	"fmt"

	"github.com/unitrace/unitrace/goroutines"
	"github.com/unitrace/unitrace/internal/godwarf"
)

// ErrBadGoLayoutSlot means the image's goroutine-layout slot (goroutines.SlotSymbol) is not
// what package goroutines declares.
var ErrBadGoLayoutSlot = errors.New("bad goroutine-layout slot")

// findGoLayoutSlot returns the file offset of the kernel's goroutine-layout slot, or -1 if the
// image has none (a program that does not link the kernel).
func findGoLayoutSlot(f *elf.File, data []byte) (int64, error) {
	return findSlot(f, data, goroutines.SlotSymbol, goroutines.SlotSize, ErrBadGoLayoutSlot, goroutines.IsSlot)
}

// GoLayout reads the layout the kernel's goroutine reader needs (goroutines.Sources) out of the
// image's own symbols and DWARF. An error names the first word it could not find, or found at
// a size the reader does not assume: that image's runtime is not one the reader knows.
func GoLayout(f *elf.File) (*goroutines.Layout, error) {
	dw, err := f.DWARF()
	if err != nil {
		return nil, fmt.Errorf("no DWARF to read the runtime's layout from (built with -ldflags=-w?): %w", err)
	}
	x, err := godwarf.New(dw)
	if err != nil {
		return nil, err
	}
	syms, err := f.Symbols()
	if err != nil {
		return nil, fmt.Errorf("no symbol table: %w", err)
	}
	addrs := map[string]elf.Symbol{}
	for _, s := range syms {
		addrs[s.Name] = s
	}
	var l goroutines.Layout
	for i, src := range goroutines.Sources {
		var v, size int64
		switch src.Kind {
		case goroutines.FromSymbol:
			s, ok := addrs[src.Name]
			if !ok {
				return nil, fmt.Errorf("no symbol %s", src.Name)
			}
			v, size = int64(s.Value), int64(s.Size)
		case goroutines.FromTypeSize:
			v, err = x.TypeSize(src.Name)
		case goroutines.FromMember:
			v, size, err = x.Member(src.Name, src.Member)
		case goroutines.FromConst:
			v, err = x.Constant(src.Name)
		}
		if err != nil {
			return nil, err
		}
		if src.Size != 0 && size != src.Size {
			name := src.Name
			if src.Member != "" {
				name += "." + src.Member
			}
			return nil, fmt.Errorf("%s is %d bytes, the reader reads %d", name, size, src.Size)
		}
		l[i] = uint64(v)
	}
	if !l.Valid() {
		return nil, errors.New("the runtime's layout fails the reader's checks (a field outside its struct, or states that collide)")
	}
	return &l, nil
}

// fillGoLayout fills the slot at off from the image, or marks it refused with the reason; it
// returns that reason ("" when filled).
func fillGoLayout(f *elf.File, data []byte, off int64) string {
	slot := data[off : off+goroutines.SlotSize]
	l, err := GoLayout(f)
	if err != nil {
		goroutines.Refuse(slot, err.Error())
		return err.Error()
	}
	goroutines.Fill(slot, l)
	return ""
}
