package acpi

import (
	"encoding/binary"
	"path/filepath"
	"testing"

	"github.com/unitrace/unitrace/arch/amd64"
)

// TestQEMUTables reads the tables captured from QEMU 7.2 (tests/amd64smoke with acpidump):
// microvm (ACPI 2.0 RSDP and XSDT, two I/O APICs) and q35 (ACPI 1.0 RSDP and RSDT), 2 and 4
// CPUs. Both set the PC-AT compatibility flag (8259 PICs present, to be masked).
func TestQEMUTables(t *testing.T) {
	for _, c := range []struct {
		file     string
		cpus     int
		rev      uint8
		ioapics  []IOAPIC
		pcatComp bool
	}{
		{"microvm-smp2.txt", 2, 2, []IOAPIC{{0, 0xfec00000, 0}, {1, 0xfec10000, 24}}, true},
		{"microvm-smp4.txt", 4, 2, []IOAPIC{{0, 0xfec00000, 0}, {1, 0xfec10000, 24}}, true},
		{"q35-smp2.txt", 2, 0, []IOAPIC{{0, 0xfec00000, 0}}, true},
		{"q35-smp4.txt", 4, 0, []IOAPIC{{0, 0xfec00000, 0}}, true},
	} {
		t.Run(c.file, func(t *testing.T) {
			mem, rsdpAddr := loadDump(t, filepath.Join("testdata", c.file))
			var r Reader
			var m MADT
			if e := r.FindMADT(rsdpAddr, mem.read, &m); e != OK {
				t.Fatalf("FindMADT: %v", e)
			}
			if r.RSDP.Revision != c.rev || (c.rev >= 2) != (r.RSDP.XSDT != 0) {
				t.Errorf("RSDP %+v, want revision %d", r.RSDP, c.rev)
			}
			if m.NumCPUs != c.cpus || m.Dropped != 0 {
				t.Fatalf("%d CPUs (%d dropped), want %d", m.NumCPUs, m.Dropped, c.cpus)
			}
			for i := 0; i < m.NumCPUs; i++ {
				want := CPU{APICID: uint32(i), UID: uint32(i), Enabled: true}
				if m.CPUs[i] != want {
					t.Errorf("CPU %d = %+v, want %+v", i, m.CPUs[i], want)
				}
			}
			if m.LocalAPICAddr != 0xfee00000 || m.PCATCompat != c.pcatComp {
				t.Errorf("local APIC at %#x, PC-AT compatible %v", m.LocalAPICAddr, m.PCATCompat)
			}
			if m.NumIOAPICs != len(c.ioapics) {
				t.Fatalf("%d I/O APICs, want %d", m.NumIOAPICs, len(c.ioapics))
			}
			for i, want := range c.ioapics {
				if m.IOAPICs[i] != want {
					t.Errorf("I/O APIC %d = %+v, want %+v", i, m.IOAPICs[i], want)
				}
			}
		})
	}
}

func TestParseRSDP(t *testing.T) {
	corrupt := func(b []byte, i int) []byte { b = append([]byte(nil), b...); b[i]++; return b }
	for _, c := range []struct {
		name string
		b    []byte
		want RSDP
		err  Error
	}{
		{"v1", rsdp(0, 0x1234, 0), RSDP{0, 0x1234, 0}, OK},
		{"v2", rsdp(2, 0x1234, 0x5_0000_0000), RSDP{2, 0x1234, 0x5_0000_0000}, OK},
		{"short", rsdp(0, 1, 0)[:19], RSDP{}, ErrRSDPRead},
		{"v2 without extension", rsdp(2, 1, 2)[:20], RSDP{}, ErrRSDPRead},
		{"signature", corrupt(rsdp(0, 1, 0), 0), RSDP{}, ErrRSDPSignature},
		{"v1 checksum", corrupt(rsdp(0, 1, 0), 16), RSDP{}, ErrRSDPChecksum},
		{"v2 extended checksum", corrupt(rsdp(2, 1, 2), 24), RSDP{}, ErrRSDPChecksum},
	} {
		got, err := ParseRSDP(c.b)
		if got != c.want || err != c.err {
			t.Errorf("%s: got %+v, %v; want %+v, %v", c.name, got, err, c.want, c.err)
		}
	}
}

func TestParseMADT(t *testing.T) {
	good := table("APIC", madtBody(0xfee00000, 1,
		lapicEntry(0, 0, 1), lapicEntry(1, 5, 2), lapicEntry(2, 6, 0),
		[]byte{2, 10, 0, 0, 0, 0, 0, 0, 0, 0}, // interrupt source override: skipped
		x2apicEntry(300, 1, 7), ioapicEntry(3, 0xfec00000, 0), overrideEntry(0x1_fee0_0000)))
	var m MADT
	if e := ParseMADT(good, &m); e != OK {
		t.Fatalf("ParseMADT: %v", e)
	}
	wantCPUs := []CPU{
		{APICID: 0, UID: 0, Enabled: true},
		{APICID: 5, UID: 1, OnlineCapable: true},
		{APICID: 6, UID: 2},
		{APICID: 300, UID: 7, Enabled: true, X2APIC: true},
	}
	if m.NumCPUs != len(wantCPUs) {
		t.Fatalf("%d CPUs, want %d", m.NumCPUs, len(wantCPUs))
	}
	for i, w := range wantCPUs {
		if m.CPUs[i] != w {
			t.Errorf("CPU %d = %+v, want %+v", i, m.CPUs[i], w)
		}
	}
	if m.CPUs[2].Usable() || !m.CPUs[1].Usable() {
		t.Error("Usable: a CPU with neither flag must not be usable; online-capable must be")
	}
	if m.NumIOAPICs != 1 || m.IOAPICs[0] != (IOAPIC{3, 0xfec00000, 0}) {
		t.Errorf("I/O APICs %d: %+v", m.NumIOAPICs, m.IOAPICs[0])
	}
	if m.LocalAPICAddr != 0x1_fee0_0000 || !m.PCATCompat {
		t.Errorf("local APIC %#x, PC-AT %v", m.LocalAPICAddr, m.PCATCompat)
	}

	for _, c := range []struct {
		name string
		t    []byte
		err  Error
	}{
		{"short header", good[:20], ErrTableLength},
		{"signature", table("FACP", madtBody(0, 0)), ErrTableSignature},
		{"length past buffer", good[:len(good)-1], ErrTableTooLarge},
		{"checksum", func() []byte { b := append([]byte(nil), good...); b[40]++; return b }(), ErrTableChecksum},
		{"no fixed fields", table("APIC", []byte{1, 2, 3}), ErrTableLength},
		{"entry length 0", table("APIC", madtBody(0, 0, []byte{0, 0})), ErrMADTEntry},
		{"entry past end", table("APIC", madtBody(0, 0, []byte{0, 9, 0, 0, 0, 0, 0, 0})), ErrMADTEntry},
		{"odd byte", table("APIC", madtBody(0, 0, []byte{0})), ErrMADTEntry},
		{"short LAPIC entry", table("APIC", madtBody(0, 0, []byte{0, 4, 0, 0})), ErrMADTEntry},
		{"short x2APIC entry", table("APIC", madtBody(0, 0, []byte{9, 8, 0, 0, 0, 0, 0, 0})), ErrMADTEntry},
	} {
		if e := ParseMADT(c.t, &m); e != c.err {
			t.Errorf("%s: %v, want %v", c.name, e, c.err)
		}
	}
}

// TestMADTCapacity checks that entries past the fixed arrays are counted, not stored.
func TestMADTCapacity(t *testing.T) {
	var entries [][]byte
	for i := 0; i < MaxCPUs+3; i++ {
		entries = append(entries, x2apicEntry(uint32(i), 1, uint32(i)))
	}
	for i := 0; i < MaxIOAPICs+2; i++ {
		entries = append(entries, ioapicEntry(uint8(i), 0xfec00000, uint32(24*i)))
	}
	var m MADT
	if e := ParseMADT(table("APIC", madtBody(0xfee00000, 0, entries...)), &m); e != OK {
		t.Fatal(e)
	}
	if m.NumCPUs != MaxCPUs || m.NumIOAPICs != MaxIOAPICs || m.Dropped != 5 {
		t.Errorf("%d CPUs, %d I/O APICs, %d dropped", m.NumCPUs, m.NumIOAPICs, m.Dropped)
	}
}

// TestFind walks synthetic RSDT and XSDT roots, with tables that are unreadable, of another
// signature, or corrupt.
func TestFind(t *testing.T) {
	madt := table("APIC", madtBody(0xfee00000, 0, lapicEntry(0, 0, 1), lapicEntry(1, 1, 1)))
	facp := table("FACP", make([]byte, 20))
	u32 := func(v ...uint32) (b []byte) {
		for _, x := range v {
			b = binary.LittleEndian.AppendUint32(b, x)
		}
		return b
	}
	u64 := func(v ...uint64) (b []byte) {
		for _, x := range v {
			b = binary.LittleEndian.AppendUint64(b, x)
		}
		return b
	}
	bad := fixSum(append([]byte(nil), madt...))
	bad[9]++
	for _, c := range []struct {
		name string
		mem  phys
		err  Error
		cpus int
	}{
		{"rsdt", phys{0x1000: rsdp(0, 0x2000, 0), 0x2000: table("RSDT", u32(0x9000, 0x3000, 0x4000)),
			0x3000: facp, 0x4000: madt}, OK, 2},
		{"xsdt", phys{0x1000: rsdp(2, 0x7777, 0x2000), 0x2000: table("XSDT", u64(0, 0x1_0000_0000_0000, 0x3000, 0x4000)),
			0x3000: facp, 0x4000: madt}, OK, 2},
		{"no MADT", phys{0x1000: rsdp(0, 0x2000, 0), 0x2000: table("RSDT", u32(0x3000)), 0x3000: facp}, ErrNoMADT, 0},
		{"bad MADT checksum", phys{0x1000: rsdp(0, 0x2000, 0), 0x2000: table("RSDT", u32(0x4000)), 0x4000: bad}, ErrTableChecksum, 0},
		{"root unreadable", phys{0x1000: rsdp(0, 0x2000, 0)}, ErrTableRead, 0},
		{"root wrong signature", phys{0x1000: rsdp(0, 0x2000, 0), 0x2000: table("XSDT", nil)}, ErrTableSignature, 0},
		{"rsdp unreadable", phys{}, ErrRSDPRead, 0},
		{"table too large", phys{0x1000: rsdp(0, 0x2000, 0), 0x2000: func() []byte {
			b := table("RSDT", nil)
			binary.LittleEndian.PutUint32(b[4:], MaxTableSize+1)
			return b
		}()}, ErrTableTooLarge, 0},
	} {
		var r Reader
		var m MADT
		e := r.FindMADT(0x1000, c.mem.read, &m)
		if e != c.err || m.NumCPUs != c.cpus {
			t.Errorf("%s: %v with %d CPUs, want %v with %d", c.name, e, m.NumCPUs, c.err, c.cpus)
		}
	}
	var r Reader
	var m MADT
	if e := r.FindMADT(0, phys{}.read, &m); e != ErrNoRSDP {
		t.Errorf("RSDP address 0: %v", e)
	}
}

func TestErrorStrings(t *testing.T) {
	seen := map[string]Error{}
	for e := OK; e < numErrors; e++ {
		s := e.String()
		if s == "unknown ACPI error" {
			t.Errorf("Error %d has no description", e)
		}
		if prev, dup := seen[s]; dup {
			t.Errorf("Errors %d and %d share %q", prev, e, s)
		}
		seen[s] = e
	}
}

// TestQEMUConsoleIRQ checks that COM1's ISA IRQ 4 arrives on the GSI the kernel routes
// (amd64.ConsoleGSI) in QEMU's q35 and microvm: an interrupt source override (MADT entry type
// 2: bus, source IRQ, GSI, flags) for IRQ 4 would move it. q35 overrides IRQ 0 (to GSI 2) and
// its PCI link IRQs 5, 9, 10 and 11; microvm overrides nothing.
func TestQEMUConsoleIRQ(t *testing.T) {
	const isaIRQ = 4
	for _, file := range []string{"microvm-smp2.txt", "q35-smp2.txt"} {
		t.Run(file, func(t *testing.T) {
			mem, _ := loadDump(t, filepath.Join("testdata", file))
			var madt []byte
			for _, b := range mem {
				if len(b) >= 44 && string(b[0:4]) == "APIC" {
					madt = b[:binary.LittleEndian.Uint32(b[4:8])]
				}
			}
			if madt == nil {
				t.Fatal("no MADT in the dump")
			}
			gsi, ioapics := uint32(isaIRQ), 0
			for off := 44; off+2 <= len(madt); off += int(madt[off+1]) {
				if madt[off+1] < 2 {
					t.Fatalf("MADT entry at %d has length %d", off, madt[off+1])
				}
				if madt[off] == 1 {
					ioapics++
				}
				if madt[off] == 2 && madt[off+1] == 10 && madt[off+2] == 0 && madt[off+3] == isaIRQ {
					gsi = binary.LittleEndian.Uint32(madt[off+4:])
				}
			}
			if ioapics == 0 {
				t.Error("no I/O APIC entry: the walk is wrong")
			}
			if gsi != amd64.ConsoleGSI {
				t.Errorf("IRQ %d is GSI %d, the kernel routes GSI %d", isaIRQ, gsi, amd64.ConsoleGSI)
			}
		})
	}
}
