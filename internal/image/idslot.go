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
		off, ok := fileOffset(f, s.Value, s.Size)
		if !ok || off+imageid.Size > int64(len(data)) {
			return -1, fmt.Errorf("%w: %s is not in the file's loaded data", ErrBadIDSlot, s.Name)
		}
		if m := string(data[off : off+16]); m != imageid.Magic && m != imageid.Filled {
			return -1, fmt.Errorf("%w: no marker at %s", ErrBadIDSlot, s.Name)
		}
		return off, nil
	}
	return -1, nil
}
