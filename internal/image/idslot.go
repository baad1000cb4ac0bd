package image

import (
	"debug/elf"
	"fmt"

	"github.com/unitrace/unitrace/trace/imageid"
)

// findIDSlot returns the file offset of the guest's build-id slot (package imageid), or -1 if
// the image has none (a program that does not link the tracer).
func findIDSlot(f *elf.File, data []byte) (int64, error) {
	return findSlot(f, data, imageid.Symbol, imageid.Size, ErrBadIDSlot, func(b []byte) bool {
		m := string(b[:16])
		return m == imageid.Magic || m == imageid.Filled
	})
}

// findSlot returns the file offset of the slot variable named symbol, size bytes whose start
// marked says is a slot (filled or not), or -1 if the image has no such symbol (or no symbol
// table). A symbol that is there but does not hold a slot is an error wrapping bad: the patch
// would write over something else.
func findSlot(f *elf.File, data []byte, symbol string, size uint64, bad error, marked func([]byte) bool) (int64, error) {
	syms, err := f.Symbols()
	if err != nil {
		return -1, nil // no symbol table: nothing to find
	}
	for _, s := range syms {
		if s.Name != symbol {
			continue
		}
		if s.Size != size {
			return -1, fmt.Errorf("%w: %s is %d bytes, want %d", bad, s.Name, s.Size, size)
		}
		off, ok := fileOffset(f, s.Value, s.Size)
		if !ok || off+int64(size) > int64(len(data)) {
			return -1, fmt.Errorf("%w: %s is not in the file's loaded data", bad, s.Name)
		}
		if !marked(data[off : off+int64(size)]) {
			return -1, fmt.Errorf("%w: no marker at %s", bad, s.Name)
		}
		return off, nil
	}
	return -1, nil
}

// fileOffset is where the size bytes at virtual address addr lie in the file, if a loaded
// segment holds them.
func fileOffset(f *elf.File, addr, size uint64) (int64, bool) {
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && addr >= p.Vaddr && addr+size <= p.Vaddr+p.Filesz {
			return int64(p.Off + (addr - p.Vaddr)), true
		}
	}
	return 0, false
}
