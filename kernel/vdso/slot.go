package vdso

// The vDSO is built by the image builder, not at boot: under TCG the kernel's first run of
// Build and of the symbol-table lookups that found the functions' code took about 6 ms of every
// boot. The kernel holds a Slot, a page-sized variable in its data that starts with SlotMarker;
// the builder (internal/image) finds it by its symbol and lays the vDSO out in it, the
// parameters' address (Base + ParamsOffset) already patched in, and the kernel copies it to
// Base at boot and writes the parameters.

// SlotSymbol is the linker symbol of the kernel's slot.
const SlotSymbol = "github.com/unitrace/unitrace/kernel.vdsoImage"

// SlotMarker is what an unfilled slot starts with. A filled one starts with the ELF magic.
const SlotMarker = "unitrace:vdso:--"

// Slot is the slot's layout: one page, a marker at its start until it is filled.
type Slot struct {
	Marker [16]byte
	Rest   [PageSize - 16]byte
}

// Filled reports whether the slot holds a vDSO.
func (s *Slot) Filled() bool { return IsImage(s.Marker[:]) }

// IsImage reports whether b starts with the ELF magic.
func IsImage(b []byte) bool {
	return len(b) >= 4 && b[0] == 0x7f && b[1] == 'E' && b[2] == 'L' && b[3] == 'F'
}
