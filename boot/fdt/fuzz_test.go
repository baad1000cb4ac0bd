package fdt

import (
	"encoding/binary"
	"path/filepath"
	"testing"
)

// pack cuts a blob to its blocks and sets totalsize to match: QEMU's blob is
// 1 MiB, almost all of it zero padding, which would only slow the fuzzer.
func pack(b []byte) []byte {
	h, err := Blob(b).Header()
	if err != OK {
		panic(err)
	}
	end := max(h.OffStruct+h.SizeStruct, h.OffStrings+h.SizeStrings)
	return put32(b[:end], hTotalSize, end)
}

func FuzzBlob(f *testing.F) {
	for _, name := range []string{"virt.dtb", "virt-gicv3.dtb"} {
		real := pack(readFile(&testing.T{}, filepath.Join("testdata", name)))
		f.Add(real)
		h, _ := Blob(real).Header()
		// Cut inside the structure block, with totalsize left claiming
		// more and with totalsize cut too.
		cut := int(h.OffStruct + h.SizeStruct/2)
		f.Add(real[:cut])
		f.Add(put32(real[:cut], hTotalSize, uint32(cut)))
		// Bit flips in the header, a token, a length and a name offset.
		for _, off := range []int{hOffStruct + 3, hSizeStruct + 2, int(h.OffStruct) + 3, int(h.OffStruct) + 0x47, int(h.OffStruct) + 0x4b, 0x200} {
			flipped := append([]byte(nil), real...)
			flipped[off] ^= 0x10
			f.Add(flipped)
		}
	}
	f.Add(build(handMachine(), Region{0x48000000, 0x1000}))
	f.Add(build(sample()))
	f.Add(build(irqTree()))
	f.Add([]byte{0xd0, 0x0d, 0xfe, 0xed})
	f.Fuzz(func(t *testing.T, data []byte) {
		b := Blob(data)
		checkErr := b.Check()
		if checkErr.String() == "fdt: unknown error" || checkErr != b.Check() {
			t.Fatalf("Check: %v", checkErr)
		}
		var m1, m2 Machine
		err1 := b.ReadMachine(&m1)
		err2 := b.ReadMachine(&m2)
		if err1 != err2 || m1 != m2 {
			t.Fatalf("Machine differs between runs: %v %v", err1, err2)
		}
		if err1 == OK {
			if checkErr != OK {
				t.Fatalf("Machine OK on a blob Check rejects: %v", checkErr)
			}
			checkMachineConsistent(t, b, &m1)
		}
		if checkErr == OK {
			walkAll(t, b)
		}
		// Arbitrary handles never panic.
		for i := 0; i+4 <= len(data) && i < 64; i += 4 {
			n := Node{at: binary.BigEndian.Uint32(data[i:])}
			b.Name(n)
			b.Next(n)
			b.NextSibling(n)
			b.Reg(n, 0)
			b.Interrupt(n, 0)
			b.Parent(n)
		}
	})
}

// checkMachineConsistent checks a Machine against the blob and the generic
// calls: spans and nodes lie inside the tree, counts inside capacities,
// and each device's registers and interrupt match Reg and Interrupt.
func checkMachineConsistent(t *testing.T, b Blob, m *Machine) {
	h, _ := b.Header()
	for _, s := range []Span{m.Bootargs, m.RNGSeed} {
		if uint64(s.Off)+uint64(s.Len) > uint64(h.TotalSize) || s.Bytes(b) == nil {
			t.Fatalf("span %+v outside the tree", s)
		}
	}
	if m.NumMemory < 1 || m.NumMemory > MaxMemory || m.NumReserved > MaxReserved || m.NumVirtio > MaxVirtio ||
		m.NumCPUs > MaxCPUs || m.GIC.NumRedist > MaxRedist {
		t.Fatalf("counts %d %d %d %d %d", m.NumMemory, m.NumReserved, m.NumVirtio, m.NumCPUs, m.GIC.NumRedist)
	}
	for _, r := range m.Memory[:m.NumMemory] {
		if r.Size == 0 {
			t.Fatal("empty memory range")
		}
	}
	devices := append([]Device{m.UART, m.RTC}, m.Virtio[:m.NumVirtio]...)
	for _, d := range devices {
		if !d.Present() {
			continue
		}
		if d.Node.at < h.OffStruct || d.Node.at >= h.OffStruct+h.SizeStruct || b.Name(d.Node) == nil {
			t.Fatalf("device node %#x outside the structure block", d.Node.at)
		}
		if r, err := b.Reg(d.Node, 0); err != OK || r != d.Reg {
			t.Fatalf("Reg %x %v, Machine says %x", r, err, d.Reg)
		}
		in, err := b.Interrupt(d.Node, 0)
		id, _ := in.GICINTID()
		if err != OK && err != ErrNotFound || id != d.INTID {
			t.Fatalf("Interrupt %+v %v, Machine says INTID %d", in, err, d.INTID)
		}
	}
	if m.GIC.Version != 0 {
		if r, err := b.Reg(m.GIC.Node, 0); err != OK || r != m.GIC.Dist {
			t.Fatalf("GIC Reg %x %v, Machine says %x", r, err, m.GIC.Dist)
		}
	}
}

// walkAll visits every node of a checked blob and asks every question of
// it; document order must move forward, so the walk ends.
func walkAll(t *testing.T, b Blob) {
	n, err := b.Root()
	if err != OK {
		t.Fatalf("Root of a checked blob: %v", err)
	}
	for count := 0; err == OK; count++ {
		p, perr := b.Parent(n)
		if perr == OK && p.at >= n.at || perr != OK && count > 0 {
			t.Fatalf("Parent of %#x: %#x %v", n.at, p.at, perr)
		}
		if c, err := b.FirstChild(n); err == OK && c.at <= n.at {
			t.Fatalf("FirstChild of %#x: %#x", n.at, c.at)
		}
		if s, err := b.NextSibling(n); err == OK && s.at <= n.at {
			t.Fatalf("NextSibling of %#x: %#x", n.at, s.at)
		}
		b.Reg(n, 0)
		b.Interrupt(n, 0)
		b.Enabled(n)
		next, nerr := b.Next(n)
		if nerr == OK && next.at <= n.at {
			t.Fatalf("Next went back from %#x to %#x", n.at, next.at)
		}
		n, err = next, nerr
	}
	if err != ErrNotFound {
		t.Fatalf("walk of a checked blob ended with %v", err)
	}
}
