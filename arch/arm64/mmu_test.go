package arm64

import (
	"testing"

	"github.com/unitrace/unitrace/arch/pagetable"
)

// TestTranslationRegime checks the register values the boot code loads against the fields the
// Arm ARM defines.
func TestTranslationRegime(t *testing.T) {
	if mairValue != 0x44ff00 {
		t.Errorf("MAIR_EL1 = %#x, want 0x44ff00 (Device-nGnRnE, Normal WB, Normal NC)", mairValue)
	}
	for i, want := range []uint64{mairDeviceNGnRnE, mairNormalWB, mairNormalNC} {
		if got := uint64(mairValue) >> (8 * i) & 0xff; got != want {
			t.Errorf("MAIR Attr%d = %#x, want %#x", i, got, want)
		}
	}
	for _, c := range []struct {
		attr uint64
		idx  uint64
	}{{PTEAttrDevice, 0}, {PTEAttrNormal, 1}, {PTEAttrNormalNC, 2}} {
		if c.attr>>2&7 != c.idx {
			t.Errorf("AttrIndx of %#x is not %d", c.attr, c.idx)
		}
	}
	tcr := uint64(tcrValue)
	for _, c := range []struct {
		name         string
		shift, width uint
		want         uint64
	}{
		{"T0SZ", 0, 6, 16}, {"EPD0", 7, 1, 0}, {"IRGN0", 8, 2, 1}, {"ORGN0", 10, 2, 1},
		{"SH0", 12, 2, 3}, {"TG0", 14, 2, 0}, {"T1SZ", 16, 6, 16}, {"A1", 22, 1, 0},
		{"EPD1", 23, 1, 1}, {"TG1", 30, 2, 2}, {"IPS", 32, 3, 0}, {"AS", 36, 1, 0},
		{"TBI0", 37, 1, 0}, {"HA", 39, 1, 0},
	} {
		if got := tcr >> c.shift & (1<<c.width - 1); got != c.want {
			t.Errorf("TCR_EL1.%s = %d, want %d", c.name, got, c.want)
		}
	}
	if sctlrSet&sctlrClr != 0 {
		t.Error("SCTLR bits both set and cleared")
	}
	if sctlrSet != 0x100d {
		t.Errorf("SCTLR set bits %#x, want M|C|SA|I = 0x100d", sctlrSet)
	}
	if sctlrEL1Reset&sctlrM != 0 || sctlrEL1Reset&(1<<29|1<<28|1<<23|1<<22|1<<20|1<<11) != 0x30d00800 {
		t.Errorf("SCTLR_EL1 reset value %#x", sctlrEL1Reset)
	}
	if spsrEL2ToEL1h != 0x3c5 {
		t.Errorf("SPSR_EL2 for the drop = %#x, want 0x3c5 (EL1h, DAIF masked)", spsrEL2ToEL1h)
	}
	if hcrRW != 1<<31 || cpacrFPEN != 0x300000 {
		t.Error("HCR_EL2.RW or CPACR_EL1.FPEN")
	}
	// The descriptor constants the boot code ORs in: type bits, and nothing in the address.
	for _, c := range []struct {
		name      string
		v, typeOK uint64
	}{
		{"table", bootTableDesc, 3}, {"device page", bootDevicePage, 3},
		{"device block", bootDeviceBlock, 1}, {"normal block", bootNormalBlock, 1},
	} {
		if c.v&3 != c.typeOK || c.v&pteAddr != 0 {
			t.Errorf("%s descriptor %#x", c.name, c.v)
		}
	}
	if bootNullGuard%pagetable.Size4K != 0 || bootNullGuard>>12 >= pagetable.Entries {
		t.Error("the null guard must be whole pages inside the first level-3 table")
	}
	if bootRAMStart%pagetable.Size1G != 0 || BootMapEnd%pagetable.Size1G != 0 || BootMapEnd>>30 > pagetable.Entries {
		t.Error("the RAM blocks must be whole level-1 entries of the first table")
	}
}
