package acpi

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"os"
	"strconv"
	"strings"
	"testing"
)

// phys is a sparse physical memory for tests: regions at addresses.
type phys map[uint64][]byte

// read is a boot.ReadPhys over p (a method value: tests may allocate).
func (p phys) read(pa uintptr, dst []byte) bool {
	for base, b := range p {
		// pa near the top of the address space: no sum here may wrap.
		if uint64(pa) >= base && uint64(pa)-base <= uint64(len(b)) && uint64(len(dst)) <= uint64(len(b))-(uint64(pa)-base) {
			copy(dst, b[uint64(pa)-base:])
			return true
		}
	}
	return false
}

// loadDump reads a file of "acpi <address> <hex>" lines (the smoke image's acpidump output).
func loadDump(t testing.TB, name string) (phys, uintptr) {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, first := phys{}, uintptr(0)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 3 || fields[0] != "acpi" {
			t.Fatalf("bad dump line %q", sc.Text())
		}
		addr, err := strconv.ParseUint(fields[1], 0, 64)
		if err != nil {
			t.Fatal(err)
		}
		b, err := hex.DecodeString(fields[2])
		if err != nil {
			t.Fatal(err)
		}
		if first == 0 {
			first = uintptr(addr)
		}
		p[addr] = b
	}
	return p, first
}

// table builds a system description table with a valid checksum.
func table(sig string, body []byte) []byte {
	t := make([]byte, headerSize, headerSize+len(body))
	copy(t, sig)
	t = append(t, body...)
	binary.LittleEndian.PutUint32(t[4:], uint32(len(t)))
	return fixSum(t)
}

// fixSum recomputes a table's checksum after an edit.
func fixSum(t []byte) []byte {
	t[9] = 0
	t[9] = -sum(t)
	return t
}

// rsdp builds a root pointer of revision rev with valid checksums.
func rsdp(rev uint8, rsdt uint32, xsdt uint64) []byte {
	b := make([]byte, rsdpSizeV2)
	copy(b, "RSD PTR ")
	b[rsdpRevision] = rev
	binary.LittleEndian.PutUint32(b[rsdpRSDT:], rsdt)
	if rev < 2 {
		b = b[:rsdpSizeV1]
		b[8] = -sum(b)
		return b
	}
	binary.LittleEndian.PutUint32(b[rsdpLength:], rsdpSizeV2)
	binary.LittleEndian.PutUint64(b[rsdpXSDT:], xsdt)
	b[8] = -sum(b[:rsdpSizeV1])
	b[32] = -sum(b)
	return b
}

// madtBody builds an MADT body: the local APIC address, flags and entries.
func madtBody(lapic, flags uint32, entries ...[]byte) []byte {
	b := binary.LittleEndian.AppendUint32(nil, lapic)
	b = binary.LittleEndian.AppendUint32(b, flags)
	for _, e := range entries {
		b = append(b, e...)
	}
	return b
}

func lapicEntry(uid, id uint8, flags uint32) []byte {
	return binary.LittleEndian.AppendUint32([]byte{entryLAPIC, lapicEntrySize, uid, id}, flags)
}

func x2apicEntry(id, flags, uid uint32) []byte {
	b := []byte{entryX2APIC, x2apicSize, 0, 0}
	b = binary.LittleEndian.AppendUint32(b, id)
	b = binary.LittleEndian.AppendUint32(b, flags)
	return binary.LittleEndian.AppendUint32(b, uid)
}

func ioapicEntry(id uint8, addr, gsi uint32) []byte {
	b := []byte{entryIOAPIC, ioapicSize, id, 0}
	b = binary.LittleEndian.AppendUint32(b, addr)
	return binary.LittleEndian.AppendUint32(b, gsi)
}

func overrideEntry(addr uint64) []byte {
	return binary.LittleEndian.AppendUint64([]byte{entryOverride, overrideSize, 0, 0}, addr)
}
