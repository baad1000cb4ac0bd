package boot

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strings"
	"testing"
)

// physMem is fake physical memory: data at [base, base+len(data)).
type physMem struct {
	base  uintptr
	data  []byte
	reads int
}

func (p *physMem) read(pa uintptr, dst []byte) bool {
	p.reads++
	if pa < p.base || pa-p.base > uintptr(len(p.data)) || uintptr(len(dst)) > uintptr(len(p.data))-(pa-p.base) {
		return false
	}
	copy(dst, p.data[pa-p.base:])
	return true
}

const (
	memBase     = 0x1000
	startInfoPA = 0x21e0 // where QEMU's -M pc PVH ROM put it
	cmdlinePA   = 0x3000
	memmapPA    = 0x4000
)

// image builds fake memory holding a start_info, a command line and a
// memory map at the addresses above; edit fills in or changes fields.
type image struct {
	version, flags, nrModules uint32
	modlist, rsdp             uint64
	cmdlineAddr, memmapAddr   uint64
	memmapEntries             uint32
	cmdline                   string
	memmap                    []MemoryRange
	magic                     uint32
}

func qemuImage() image {
	return image{
		magic: PVHMagic, version: 1, rsdp: 0xf5a40,
		cmdlineAddr: cmdlinePA, memmapAddr: memmapPA,
		cmdline: "unitrace.debug=kfault -- hello world",
		memmap: []MemoryRange{
			{0, 0x9fc00, MemoryRAM},
			{0x9fc00, 0x400, MemoryReserved},
			{0xf0000, 0x10000, MemoryReserved},
			{0x100000, 0x3fee0000, MemoryRAM},
			{0xfeffc000, 0x4000, MemoryReserved},
			{0xfffc0000, 0x40000, MemoryReserved},
		},
	}
}

func (im image) build(size int) *physMem {
	data := make([]byte, size)
	le := binary.LittleEndian
	si := data[startInfoPA-memBase:]
	le.PutUint32(si[0:], im.magic)
	le.PutUint32(si[4:], im.version)
	le.PutUint32(si[8:], im.flags)
	le.PutUint32(si[12:], im.nrModules)
	le.PutUint64(si[16:], im.modlist)
	le.PutUint64(si[24:], im.cmdlineAddr)
	le.PutUint64(si[32:], im.rsdp)
	le.PutUint64(si[40:], im.memmapAddr)
	n := im.memmapEntries
	if n == 0 {
		n = uint32(len(im.memmap))
	}
	le.PutUint32(si[48:], n)
	copy(data[cmdlinePA-memBase:], im.cmdline+"\x00")
	for i, r := range im.memmap {
		e := data[memmapPA-memBase+i*24:]
		le.PutUint64(e[0:], r.Addr)
		le.PutUint64(e[8:], r.Size)
		le.PutUint32(e[16:], uint32(r.Type))
	}
	return &physMem{base: memBase, data: data}
}

func TestParsePVHQEMU(t *testing.T) {
	im := qemuImage()
	im.flags, im.nrModules, im.modlist = 4, 1, 0x5000
	mem := im.build(0x8000)
	var si StartInfo
	if err := ParsePVH(startInfoPA, mem.read, &si); err != OK {
		t.Fatalf("ParsePVH: %v", err)
	}
	if si.Version != 1 || si.Flags != 4 || si.NumModules != 1 || si.ModlistAddr != 0x5000 || si.RSDP != 0xf5a40 {
		t.Errorf("header fields %+v", si)
	}
	if string(si.Cmdline()) != im.cmdline {
		t.Errorf("cmdline %q", si.Cmdline())
	}
	if got := ranges(&si.Memory); !slices.Equal(got, im.memmap) {
		t.Errorf("memory map %x", got)
	}
	if si.Memory.RAMBytes() != 0x9fc00+0x3fee0000 {
		t.Errorf("RAMBytes %#x", si.Memory.RAMBytes())
	}
	// The command line feeds the Cmdline parser directly.
	var c Cmdline
	if err := c.Parse(si.Cmdline()); err != OK || c.Arg(1) != "world" {
		t.Errorf("Parse: %v, %q", err, c.Arg(1))
	}
}

func TestParsePVHErrors(t *testing.T) {
	tests := []struct {
		name string
		edit func(*image)
		size int
		pa   uintptr
		want Error
	}{
		{"unreadable start_info", nil, 0x8000, 0x100000, ErrStartInfoRead},
		{"start_info at the end of memory", nil, 0x8000, memBase + 0x8000 - 20, ErrStartInfoRead},
		{"bad magic", func(im *image) { im.magic = 0x336ec579 }, 0x8000, startInfoPA, ErrBadMagic},
		{"absurd modules", func(im *image) { im.nrModules = 1 << 31 }, 0x8000, startInfoPA, ErrTooManyModules},
		{"version 0", func(im *image) { im.version = 0 }, 0x8000, startInfoPA, ErrNoMemoryMap},
		{"null memmap", func(im *image) { im.memmapAddr = 0 }, 0x8000, startInfoPA, ErrNoMemoryMap},
		{"absurd memmap count", func(im *image) { im.memmapEntries = 1<<32 - 1 }, 0x8000, startInfoPA, ErrMemoryMapCount},
		{"memmap count past memory", func(im *image) { im.memmapEntries = MaxMemmapInput }, 0x4000, startInfoPA, ErrMemoryMapRead},
		{"no RAM", func(im *image) { im.memmap = im.memmap[1:3] }, 0x8000, startInfoPA, ErrNoRAM},
		{"memmap pointer wild", func(im *image) { im.memmapAddr = 1<<64 - 24 }, 0x8000, startInfoPA, ErrMemoryMapRead},
		{"memmap range wraps", func(im *image) { im.memmap[2].Size = 1 << 63; im.memmap[2].Addr = 1 << 63 }, 0x8000, startInfoPA, ErrMemoryRangeWraps},
		{"cmdline pointer wild", func(im *image) { im.cmdlineAddr = 0x900000 }, 0x8000, startInfoPA, ErrCmdlineRead},
		{"cmdline pointer wraps", func(im *image) { im.cmdlineAddr = 1<<64 - 1 }, 0x8000, startInfoPA, ErrCmdlineRead},
		{"cmdline unterminated", func(im *image) { im.cmdline = strings.Repeat("x", CmdlineCapacity) }, 0x8000, startInfoPA, ErrCmdlineUnterminated},
		// Memory ends 0x100 bytes into the command line's page, before any NUL.
		{"cmdline runs off memory", func(im *image) { im.cmdline = strings.Repeat("x", 0x5000) }, cmdlinePA - memBase + 0x100, startInfoPA, ErrCmdlineRead},
	}
	for _, tt := range tests {
		im := qemuImage()
		if tt.edit != nil {
			tt.edit(&im)
		}
		mem := im.build(0x8000)
		mem.data = mem.data[:tt.size]
		var si StartInfo
		if err := ParsePVH(tt.pa, mem.read, &si); err != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, err, tt.want)
		}
	}
}

func TestParsePVHOptionalFields(t *testing.T) {
	im := qemuImage()
	im.cmdlineAddr, im.rsdp = 0, 0
	var si StartInfo
	if err := ParsePVH(startInfoPA, im.build(0x8000).read, &si); err != OK {
		t.Fatal(err)
	}
	if len(si.Cmdline()) != 0 || si.RSDP != 0 {
		t.Errorf("cmdline %q, rsdp %#x", si.Cmdline(), si.RSDP)
	}
	// A reused StartInfo forgets the old command line.
	im = qemuImage()
	ParsePVH(startInfoPA, im.build(0x8000).read, &si)
	im.cmdline = "short"
	ParsePVH(startInfoPA, im.build(0x8000).read, &si)
	if string(si.Cmdline()) != "short" || si.cmdline[5] != 0 {
		t.Errorf("cmdline %q", si.Cmdline())
	}
}

// TestCmdlineReadsPageByPage checks that a command line near the end of
// memory is read without touching the page after it.
func TestCmdlineReadsPageByPage(t *testing.T) {
	for _, tt := range []struct {
		addr uint64
		line string
	}{
		{0x7ff0, "abc"},                     // ends in the last page
		{0x6ffa, "0123456789abcdef"},        // crosses into the last page
		{0x5000, strings.Repeat("y", 4095)}, // longest allowed, page aligned
		{0x6001, strings.Repeat("z", 4095)}, // longest allowed, crossing
	} {
		im := qemuImage()
		im.cmdlineAddr = tt.addr
		mem := im.build(0x8000 - memBase)
		copy(mem.data[tt.addr-memBase:], tt.line+"\x00")
		var si StartInfo
		if err := ParsePVH(startInfoPA, mem.read, &si); err != OK {
			t.Errorf("cmdline at %#x: %v", tt.addr, err)
			continue
		}
		if string(si.Cmdline()) != tt.line {
			t.Errorf("cmdline at %#x: %q", tt.addr, si.Cmdline())
		}
	}
}

func TestErrorStrings(t *testing.T) {
	seen := map[string]bool{}
	for e := OK; e < numErrors; e++ {
		s := e.String()
		if s == "" || seen[s] || strings.Contains(s, "unknown") {
			t.Errorf("Error(%d).String() = %q", e, s)
		}
		seen[s] = true
	}
	if Error(200).String() != "boot: unknown error" {
		t.Error("unknown error string")
	}
}

func FuzzParsePVH(f *testing.F) {
	seed := qemuImage().build(0x4000).data
	f.Add(seed)
	f.Add(seed[:0x1300])
	f.Add(bytes.Repeat([]byte{0x78, 0xc5, 0x6e, 0x33}, 100))
	f.Fuzz(func(t *testing.T, data []byte) {
		mem := &physMem{base: memBase, data: data}
		var si StartInfo
		err := ParsePVH(startInfoPA, mem.read, &si)
		if mem.reads > 2+CmdlineCapacity/4096+1+MaxMemmapInput {
			t.Fatalf("%d reads", mem.reads)
		}
		if err != OK {
			if err.String() == "boot: unknown error" {
				t.Fatalf("unnamed error %d", err)
			}
			return
		}
		if bytes.IndexByte(si.Cmdline(), 0) >= 0 || len(si.Cmdline()) >= CmdlineCapacity {
			t.Fatalf("cmdline %q", si.Cmdline())
		}
		if si.Memory.Len() == 0 && si.Memory.RAMBytes() != 0 {
			t.Fatal("RAM without ranges")
		}
		for i := 1; i < si.Memory.Len(); i++ {
			a, b := si.Memory.At(i-1), si.Memory.At(i)
			if a.End() > b.Addr || a.Size == 0 || b.Size == 0 || a.End() == b.Addr && a.Type == b.Type {
				t.Fatalf("bad map %x %x", a, b)
			}
		}
	})
}
