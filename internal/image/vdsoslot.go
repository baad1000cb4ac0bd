package image

import (
	"debug/elf"
	"errors"
	"fmt"

	"github.com/unitrace/unitrace/kernel/vdso"
)

// ErrBadVDSOSlot means the image's vDSO slot (kernel/vdso.Slot) is not what the kernel
// declares, or the vDSO's code cannot be found.
var ErrBadVDSOSlot = errors.New("bad vDSO slot")

// findVDSOSlot returns the file offset of the kernel's vDSO slot, or -1 if the image has none
// (a program that does not link the kernel).
func findVDSOSlot(f *elf.File, data []byte) (int64, error) {
	return findSlot(f, data, vdso.SlotSymbol, vdso.PageSize, ErrBadVDSOSlot, func(b []byte) bool {
		return string(b[:len(vdso.SlotMarker)]) == vdso.SlotMarker || vdso.IsImage(b)
	})
}

// fillVDSO lays the vDSO of spec's architecture out in the slot at off, from the kernel's own
// code for its functions (their ELF symbols), with the parameters' address patched in. The
// parameters stay zero: the kernel writes them at boot.
func fillVDSO(f *elf.File, data []byte, off int64, arch Arch) error {
	l, ok := vdso.LayoutFor(string(arch))
	if !ok {
		return fmt.Errorf("%w: no vDSO layout for %s", ErrBadVDSOSlot, arch)
	}
	syms, err := f.Symbols()
	if err != nil {
		return fmt.Errorf("%w: %v", ErrBadVDSOSlot, err)
	}
	var funcs [vdso.MaxFuncs]vdso.Func
	for i := 0; i < l.NFuncs; i++ {
		code, err := symbolCode(f, data, syms, l.Funcs[i].Symbol)
		if err != nil {
			return fmt.Errorf("%w: vDSO function %s: %v", ErrBadVDSOSlot, l.Funcs[i].Name, err)
		}
		funcs[i] = vdso.Func{Name: l.Funcs[i].Name, Code: code}
	}
	page := data[off : off+vdso.PageSize]
	var at [vdso.MaxFuncs]int
	if !vdso.Build(page, l.Machine, l.Version, funcs[:l.NFuncs], at[:]) {
		return fmt.Errorf("%w: the vDSO's %d functions do not fit its page", ErrBadVDSOSlot, l.NFuncs)
	}
	for i := 0; i < l.NFuncs; i++ {
		if l.Patch(page[at[i]:at[i]+len(funcs[i].Code)], vdso.Base+vdso.ParamsOffset) == 0 {
			return fmt.Errorf("%w: vDSO function %s has no parameter address (%#x) to patch", ErrBadVDSOSlot, l.Funcs[i].Name, uint64(vdso.Magic))
		}
	}
	return nil
}

// symbolCode is a copy of the machine code of the function symbol name.
func symbolCode(f *elf.File, data []byte, syms []elf.Symbol, name string) ([]byte, error) {
	for _, s := range syms {
		if s.Name != name {
			continue
		}
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Size == 0 || s.Size > maxVDSOFunc {
			return nil, fmt.Errorf("%s is no function of at most %d bytes (type %v, %d bytes)", name, maxVDSOFunc, elf.ST_TYPE(s.Info), s.Size)
		}
		off, ok := fileOffset(f, s.Value, s.Size)
		if !ok {
			return nil, fmt.Errorf("%s is not in the file's loaded code", name)
		}
		return append([]byte(nil), data[off:off+int64(s.Size)]...), nil
	}
	return nil, fmt.Errorf("no symbol %s", name)
}

// maxVDSOFunc bounds one vDSO function's code: the page holds the tables and every function.
const maxVDSOFunc = 1024
