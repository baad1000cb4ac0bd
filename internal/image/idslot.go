package image

import (
	"debug/elf"
	"fmt"

	"github.com/unitrace/unitrace/trace/imageid"
)

// findIDSlot returns the file offset of the guest's build-id slot (package imageid), or -1 if
// the image has none (a program that does not link the tracer). A symbol that is there but
// does not hold a slot is an error: the patch would write over something else.
func findIDSlot(f *elf.File, data []byte) (int64, error) {
	syms, err := f.Symbols()
	if err != nil {
		return -1, nil // no symbol table: nothing to find
	}
	for _, s := range syms {
		if s.Name != imageid.Symbol {
			continue
		}
		if s.Size != imageid.Size {
			return -1, fmt.Errorf("%w: %s is %d bytes, want %d", ErrBadIDSlot, s.Name, s.Size, imageid.Size)
		}
		for _, p := range f.Progs {
			if p.Type != elf.PT_LOAD || s.Value < p.Vaddr || s.Value+s.Size > p.Vaddr+p.Filesz {
				continue
			}
			off := int64(p.Off + (s.Value - p.Vaddr))
			if off < 0 || off+imageid.Size > int64(len(data)) {
				break
			}
			m := string(data[off : off+16])
			if m != imageid.Magic && m != imageid.Filled {
				return -1, fmt.Errorf("%w: no marker at %s", ErrBadIDSlot, s.Name)
			}
			return off, nil
		}
		return -1, fmt.Errorf("%w: %s is not in the file's loaded data", ErrBadIDSlot, s.Name)
	}
	return -1, nil
}
