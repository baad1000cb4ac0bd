package arm64

import (
	"math/rand"
	"testing"

	"github.com/unitrace/unitrace/boot/fdt"
)

// TestPSCIMethodsMatchFDT pins the conduit values to boot/fdt's, which callers pass through.
func TestPSCIMethodsMatchFDT(t *testing.T) {
	if PSCIMethodHVC != fdt.PSCIHVC || PSCIMethodSMC != fdt.PSCISMC {
		t.Errorf("PSCI methods %d/%d, fdt has %d/%d", PSCIMethodHVC, PSCIMethodSMC, fdt.PSCIHVC, fdt.PSCISMC)
	}
}

func TestPSCIResult(t *testing.T) {
	for _, c := range []struct {
		x0   uint64
		want int
	}{
		{0, PSCISuccess},
		{0xffff_ffff_ffff_fffe, PSCIInvalidParameters},
		{0xffff_fffc, PSCIAlreadyOn}, // a 32-bit return with a zero upper half
		{0xffff_ffff_ffff_fff7, PSCIInvalidAddress},
	} {
		if got := psciResult(c.x0); got != c.want {
			t.Errorf("psciResult(%#x) = %d, want %d", c.x0, got, c.want)
		}
	}
}

// TestSGIEncodings checks GICD_SGIR and ICC_SGI1R_EL1 values against fields placed by hand from
// IHI 0048B 4.3.15 and IHI 0069 12.11.12.
func TestSGIEncodings(t *testing.T) {
	for _, c := range []struct {
		mask uint8
		sgi  uint32
		want uint32
	}{
		{0x01, 0, 0x0001_0000},
		{0x02, 1, 0x0002_0001},
		{0x80, 15, 0x0080_000f},
		{0x04, 16, 0x0004_0000}, // out-of-range INTIDs are cut to 4 bits, never spill into NSATT
	} {
		if got := sgirValue(c.mask, c.sgi); got != c.want {
			t.Errorf("sgirValue(%#x, %d) = %#x, want %#x", c.mask, c.sgi, got, c.want)
		}
	}
	for _, c := range []struct {
		mpidr uint64
		sgi   uint32
		want  uint64
	}{
		{0x0, 0, 0x1},                                // Aff0 0: TargetList bit 0
		{0x3, 1, 1<<24 | 1<<3},                       // CPU 3 of QEMU virt
		{0x0f, 15, 15<<24 | 1<<15},                   // the last Aff0 of range 0
		{0x10, 2, 2<<24 | 1<<44 | 1},                 // Aff0 16: RS 1, bit 0
		{0x01_0203, 1, 1<<24 | 1<<32 | 2<<16 | 1<<3}, // Aff2 1, Aff1 2, Aff0 3
		{0x7f_0000_0000, 0, 0x7f<<48 | 1},            // Aff3
		{0x8000_0003, 0, 1 << 3},                     // MPIDR's RES1 bit 31 is not affinity
		{0xff_00ff_ffff, 5, 0xff<<48 | 0xf<<44 | 0xff<<32 | 5<<24 | 0xff<<16 | 1<<15},
	} {
		if got := sgi1rValue(c.mpidr, c.sgi); got != c.want {
			t.Errorf("sgi1rValue(%#x, %d) = %#x, want %#x", c.mpidr, c.sgi, got, c.want)
		}
	}
	if gicdSGIR != 0xf00 {
		t.Error("GICD_SGIR is at 0xf00")
	}
}

// decodeSGI1R is a reference decoder: the affinity of the one CPU an SGI1R value with IRM 0
// and a single TargetList bit selects, and the INTID.
func decodeSGI1R(v uint64) (aff uint64, sgi uint32, single bool) {
	list := v & 0xffff
	if list == 0 || list&(list-1) != 0 || v>>40&1 != 0 {
		return 0, 0, false
	}
	bit := uint64(0)
	for list>>bit != 1 {
		bit++
	}
	aff0 := v>>44&0xf<<4 | bit
	return v>>48&0xff<<32 | v>>32&0xff<<16 | v>>16&0xff<<8 | aff0, uint32(v >> 24 & 0xf), true
}

// FuzzSGI1R checks that every MPIDR (a device tree value: untrusted) and SGI encode to a value
// that targets exactly that CPU's affinity with the SGI cut to 4 bits, and sets no reserved bit.
func FuzzSGI1R(f *testing.F) {
	f.Add(uint64(0), uint32(0))
	f.Add(uint64(3), uint32(1))
	f.Add(uint64(0xff_00ff_ffff), uint32(15))
	f.Add(^uint64(0), ^uint32(0))
	f.Fuzz(func(t *testing.T, mpidr uint64, sgi uint32) {
		v := sgi1rValue(mpidr, sgi)
		const reserved = 0xff<<56 | 0x7<<41 | 1<<40 | 0xf<<28 // RES0 63:56, 43:41, 31:28; IRM 0
		if v&reserved != 0 {
			t.Fatalf("sgi1rValue(%#x, %d) = %#x sets reserved bits %#x", mpidr, sgi, v, v&reserved)
		}
		aff, got, ok := decodeSGI1R(v)
		if !ok || aff != mpidr&mpidrAffinityMask || got != sgi&15 {
			t.Fatalf("sgi1rValue(%#x, %d) = %#x decodes to %#x, %d", mpidr, sgi, v, aff, got)
		}
	})
}

// fakeRedists is a redistributor region for findRedistributorWith: GICR_TYPER of each frame.
type fakeRedists struct {
	base   uintptr
	typers []uint64
	reads  int
}

func (r *fakeRedists) read(addr uintptr) uint64 {
	r.reads++
	off := addr - r.base
	if off%gicrFrameSize != gicrTYPER {
		panic("read outside a GICR_TYPER")
	}
	i := int(off / gicrFrameSize)
	if i >= len(r.typers) {
		return 0xdead_beef_0000_0000 // past the region: garbage, never Last
	}
	return r.typers[i]
}

// typerFor builds a GICR_TYPER with the affinity aff, marked Last if last.
func typerFor(aff uint32, last bool) uint64 {
	v := uint64(aff) << 32
	if last {
		v |= gicrTYPERLast
	}
	return v
}

func TestFindRedistributor(t *testing.T) {
	const base = DefaultGICRBase
	four := []uint64{typerFor(0, false), typerFor(1, false), typerFor(2, false), typerFor(3, true)}
	for _, c := range []struct {
		name   string
		typers []uint64
		aff    uint32
		want   uintptr
		ok     bool
	}{
		{"first", four, 0, base, true},
		{"third", four, 2, base + 2*gicrFrameSize, true},
		{"last", four, 3, base + 3*gicrFrameSize, true},
		{"absent stops at Last", four, 4, 0, false},
		{"Aff1", []uint64{typerFor(0, false), typerFor(0x0100, true)}, 0x0100, base + gicrFrameSize, true},
		{"no Last: bounded", nil, 7, 0, false},
	} {
		r := &fakeRedists{base: base, typers: c.typers}
		got, ok := findRedistributorWith(base, c.aff, r.read)
		if got != c.want || ok != c.ok {
			t.Errorf("%s: got %#x, %v; want %#x, %v", c.name, got, ok, c.want, c.ok)
		}
		if r.reads > gicrMaxFrames {
			t.Errorf("%s: %d reads, more than gicrMaxFrames", c.name, r.reads)
		}
	}
}

// TestFindRedistributorModel compares the walk with a reference search over random regions: the
// first frame up to and including the first Last frame whose affinity matches.
func TestFindRedistributorModel(t *testing.T) {
	rng := rand.New(rand.NewSource(6))
	for iter := 0; iter < 2000; iter++ {
		n := 1 + rng.Intn(16)
		typers := make([]uint64, n)
		for i := range typers {
			typers[i] = typerFor(uint32(rng.Intn(6)), rng.Intn(8) == 0 || i == n-1)
		}
		aff := uint32(rng.Intn(7))
		want, wantOK := uintptr(0), false
		for i, v := range typers {
			if uint32(v>>32) == aff {
				want, wantOK = DefaultGICRBase+uintptr(i)*gicrFrameSize, true
				break
			}
			if v&gicrTYPERLast != 0 {
				break
			}
		}
		r := &fakeRedists{base: DefaultGICRBase, typers: typers}
		got, ok := findRedistributorWith(DefaultGICRBase, aff, r.read)
		if got != want || ok != wantOK {
			t.Fatalf("typers %#x aff %d: got %#x, %v; want %#x, %v", typers, aff, got, ok, want, wantOK)
		}
	}
}

// TestKernelStackOffsets checks the per-CPU stack region: every (CPU, slot) has its own
// kstackSize-aligned stack inside the region, CPU 0's slots come first (the boot stack at 0, as
// bootEL1 assumes), and out-of-range requests are refused.
func TestKernelStackOffsets(t *testing.T) {
	seen := map[uintptr]bool{}
	for cpu := 0; cpu < MaxCPUs; cpu++ {
		for slot := 0; slot < numStackSlots; slot++ {
			off, ok := kstackOffset(cpu, slot)
			if !ok || off%kstackSize != 0 || off+kstackSize > kstackRegionSize || seen[off] {
				t.Fatalf("kstackOffset(%d, %d) = %#x, %v: not a distinct aligned stack in the region", cpu, slot, off, ok)
			}
			seen[off] = true
		}
	}
	if off, _ := kstackOffset(0, slotBoot); off != 0 {
		t.Error("CPU 0's boot stack must be the region's first")
	}
	for _, c := range [][2]int{{-1, 0}, {MaxCPUs, 0}, {0, -1}, {0, numStackSlots}} {
		if _, ok := kstackOffset(c[0], c[1]); ok {
			t.Errorf("kstackOffset(%d, %d) accepted", c[0], c[1])
		}
	}
}

func TestGICv2CPUMask(t *testing.T) {
	if gicv2CPUMask(0x0404_0404) != 0x04 || gicv2CPUMask(0x0101_0101) != 0x01 {
		t.Error("the CPU's own mask is ITARGETSR0's low byte")
	}
}
