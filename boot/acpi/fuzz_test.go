package acpi

import (
	"encoding/binary"
	"path/filepath"
	"testing"
)

// FuzzMADT feeds arbitrary bytes to ParseMADT (after making the checksum right half of the
// time, so the fuzzer gets past it) and checks the invariants: no panic, counts within the
// arrays, and on success every stored CPU came from a long enough entry.
func FuzzMADT(f *testing.F) {
	for _, name := range []string{"microvm-smp4.txt", "q35-smp4.txt"} {
		mem, _ := loadDump(f, filepath.Join("testdata", name))
		for _, b := range mem {
			if string(b[:4]) == "APIC" {
				f.Add(b, true)
			}
		}
	}
	f.Add(table("APIC", madtBody(0xfee00000, 1, lapicEntry(0, 0, 1), x2apicEntry(9, 2, 1), overrideEntry(1))), false)
	f.Add([]byte("APIC"), true)
	f.Fuzz(func(t *testing.T, b []byte, fix bool) {
		if fix && len(b) >= headerSize {
			binary.LittleEndian.PutUint32(b[4:], uint32(len(b)))
			fixSum(b)
		}
		var m MADT
		e := ParseMADT(b, &m)
		if m.NumCPUs < 0 || m.NumCPUs > MaxCPUs || m.NumIOAPICs < 0 || m.NumIOAPICs > MaxIOAPICs {
			t.Fatalf("counts out of range: %d CPUs, %d I/O APICs", m.NumCPUs, m.NumIOAPICs)
		}
		if e == OK && len(b) < madtEntries {
			t.Fatalf("accepted a %d-byte table", len(b))
		}
	})
}

// FuzzFind walks an RSDP, root table and MADT laid out in one fuzzed buffer at physical
// address 0x1000: no input may panic or read outside what ReadPhys allows.
func FuzzFind(f *testing.F) {
	mem, addr := loadDump(f, filepath.Join("testdata", "microvm-smp2.txt"))
	_ = addr
	// Pack the captured tables into one buffer with their offsets rewritten.
	rsd := rsdp(2, 0x1100, 0x1100)
	var root, madtB []byte
	for _, b := range mem {
		switch string(b[:4]) {
		case "XSDT":
			root = table("XSDT", binary.LittleEndian.AppendUint64(nil, 0x1200))
		case "APIC":
			madtB = b
		}
	}
	buf := make([]byte, 0x200+len(madtB))
	copy(buf, rsd)
	copy(buf[0x100:], root)
	copy(buf[0x200:], madtB)
	f.Add(buf)
	f.Add(rsdp(0, 0x1000, 0))
	f.Fuzz(func(t *testing.T, b []byte) {
		p := phys{0x1000: b}
		var r Reader
		var m MADT
		e := r.FindMADT(0x1000, p.read, &m)
		if e == OK && (m.NumCPUs > MaxCPUs || m.NumIOAPICs > MaxIOAPICs) {
			t.Fatal("counts out of range")
		}
	})
}

// TestModel checks ParseMADT against a straightforward reference on random well-formed
// tables built from random entries.
func TestModel(t *testing.T) {
	seed := uint64(1)
	rnd := func(n uint64) uint64 {
		seed ^= seed << 13
		seed ^= seed >> 7
		seed ^= seed << 17
		return seed % n
	}
	for iter := 0; iter < 2000; iter++ {
		var entries [][]byte
		var want []CPU
		var wantIO []IOAPIC
		for k := rnd(20); k > 0; k-- {
			switch rnd(4) {
			case 0:
				id, uid, fl := uint8(rnd(256)), uint8(rnd(256)), uint32(rnd(4))
				entries = append(entries, lapicEntry(uid, id, fl))
				want = append(want, CPU{APICID: uint32(id), UID: uint32(uid), Enabled: fl&1 != 0, OnlineCapable: fl&2 != 0})
			case 1:
				id, uid, fl := uint32(rnd(1<<32)), uint32(rnd(1<<32)), uint32(rnd(4))
				entries = append(entries, x2apicEntry(id, fl, uid))
				want = append(want, CPU{APICID: id, UID: uid, Enabled: fl&1 != 0, OnlineCapable: fl&2 != 0, X2APIC: true})
			case 2:
				io := IOAPIC{uint8(rnd(256)), uint32(rnd(1 << 32)), uint32(rnd(256))}
				entries = append(entries, ioapicEntry(io.ID, io.Addr, io.GSIBase))
				wantIO = append(wantIO, io)
			case 3: // an unknown entry type with a random length
				n := 2 + rnd(20)
				e := make([]byte, n)
				e[0], e[1] = byte(20+rnd(100)), byte(n)
				entries = append(entries, e)
			}
		}
		var m MADT
		if e := ParseMADT(table("APIC", madtBody(0xfee00000, 0, entries...)), &m); e != OK {
			t.Fatalf("iteration %d: %v", iter, e)
		}
		if m.NumCPUs != len(want) || m.NumIOAPICs != min(len(wantIO), MaxIOAPICs) {
			t.Fatalf("iteration %d: %d CPUs %d I/O APICs, want %d %d", iter, m.NumCPUs, m.NumIOAPICs, len(want), len(wantIO))
		}
		for i := range want {
			if m.CPUs[i] != want[i] {
				t.Fatalf("iteration %d CPU %d: %+v, want %+v", iter, i, m.CPUs[i], want[i])
			}
		}
		for i := 0; i < m.NumIOAPICs; i++ {
			if m.IOAPICs[i] != wantIO[i] {
				t.Fatalf("iteration %d I/O APIC %d: %+v, want %+v", iter, i, m.IOAPICs[i], wantIO[i])
			}
		}
	}
}
