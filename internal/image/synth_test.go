package image

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
)

// synthEntry is the entry symbol of synthetic images.
const synthEntry = "example.com/synth/arch.entry"

// synthSpec is the amd64 spec with the synthetic entry symbol.
func synthSpec() Spec {
	s, _ := SpecFor(AMD64)
	s.EntrySymbol = synthEntry
	return s
}

// synthImage builds the smallest ELF file Patch accepts for synthSpec, laid
// out as the Go linker does it: headers and notes at the start of the first
// PT_LOAD, one PT_NOTE covering the Go note. It keeps fuzz seeds small.
func synthImage() []byte {
	le := binary.LittleEndian
	const (
		load     = 0x100000
		goNote   = 0x100 // offset of .note.go.buildid
		goDesc   = 83    // a Go build ID's length
		gnuNote  = 0x170
		text     = 0x1a0
		textSize = 16
	)
	buf := make([]byte, 0x200)

	// .note.go.buildid and .note.gnu.build-id
	le.PutUint32(buf[goNote:], 4)
	le.PutUint32(buf[goNote+4:], goDesc)
	le.PutUint32(buf[goNote+8:], goNoteType)
	copy(buf[goNote+12:], "Go\x00\x00")
	copy(buf[goNote+16:], bytes.Repeat([]byte("b"), goDesc))
	goNoteSize := 16 + (goDesc+3)&^3
	le.PutUint32(buf[gnuNote:], 4)
	le.PutUint32(buf[gnuNote+4:], 20)
	le.PutUint32(buf[gnuNote+8:], gnuBuildIDType)
	copy(buf[gnuNote+12:], "GNU\x00")
	copy(buf[gnuNote+16:], bytes.Repeat([]byte{0xab}, 20))
	copy(buf[text:], bytes.Repeat([]byte{0xcc}, textSize)) // INT3

	shstr := []byte("\x00.note.go.buildid\x00.note.gnu.build-id\x00.text\x00.symtab\x00.strtab\x00.shstrtab\x00")
	name := func(s string) uint32 { return uint32(bytes.Index(shstr, []byte("\x00"+s+"\x00")) + 1) }
	strtab := []byte("\x00" + synthEntry + ".abi0\x00")
	symtab := make([]byte, 48) // the null symbol, then the entry
	le.PutUint32(symtab[24:], 1)
	symtab[28] = byte(elf.STB_GLOBAL)<<4 | byte(elf.STT_FUNC)
	le.PutUint16(symtab[30:], 3) // .text
	le.PutUint64(symtab[32:], load+text)
	le.PutUint64(symtab[40:], textSize)

	symOff := len(buf)
	buf = append(buf, symtab...)
	strOff := len(buf)
	buf = append(buf, strtab...)
	shstrOff := len(buf)
	buf = append(buf, shstr...)
	for len(buf)%8 != 0 {
		buf = append(buf, 0)
	}
	shOff := len(buf)
	type sh struct {
		name, typ        uint32
		flags, addr, off uint64
		size             uint64
		link, info       uint32
		align, entsize   uint64
	}
	alloc := uint64(elf.SHF_ALLOC)
	sections := []sh{
		{},
		{name(".note.go.buildid"), uint32(elf.SHT_NOTE), alloc, load + goNote, goNote, uint64(goNoteSize), 0, 0, 4, 0},
		{name(".note.gnu.build-id"), uint32(elf.SHT_NOTE), alloc, load + gnuNote, gnuNote, 36, 0, 0, 4, 0},
		{name(".text"), uint32(elf.SHT_PROGBITS), alloc | uint64(elf.SHF_EXECINSTR), load + text, text, textSize, 0, 0, 16, 0},
		{name(".symtab"), uint32(elf.SHT_SYMTAB), 0, 0, uint64(symOff), uint64(len(symtab)), 5, 1, 8, 24},
		{name(".strtab"), uint32(elf.SHT_STRTAB), 0, 0, uint64(strOff), uint64(len(strtab)), 0, 0, 1, 0},
		{name(".shstrtab"), uint32(elf.SHT_STRTAB), 0, 0, uint64(shstrOff), uint64(len(shstr)), 0, 0, 1, 0},
	}
	for _, s := range sections {
		var b [64]byte
		le.PutUint32(b[0:], s.name)
		le.PutUint32(b[4:], s.typ)
		le.PutUint64(b[8:], s.flags)
		le.PutUint64(b[16:], s.addr)
		le.PutUint64(b[24:], s.off)
		le.PutUint64(b[32:], s.size)
		le.PutUint32(b[40:], s.link)
		le.PutUint32(b[44:], s.info)
		le.PutUint64(b[48:], s.align)
		le.PutUint64(b[56:], s.entsize)
		buf = append(buf, b[:]...)
	}

	// ELF header and program headers.
	copy(buf, elf.ELFMAG)
	buf[elf.EI_CLASS] = byte(elf.ELFCLASS64)
	buf[elf.EI_DATA] = byte(elf.ELFDATA2LSB)
	buf[elf.EI_VERSION] = byte(elf.EV_CURRENT)
	le.PutUint16(buf[16:], uint16(elf.ET_EXEC))
	le.PutUint16(buf[18:], uint16(elf.EM_X86_64))
	le.PutUint32(buf[20:], uint32(elf.EV_CURRENT))
	le.PutUint64(buf[24:], load+text) // e_entry
	le.PutUint64(buf[32:], 64)        // e_phoff
	le.PutUint64(buf[40:], uint64(shOff))
	le.PutUint16(buf[52:], 64) // e_ehsize
	le.PutUint16(buf[54:], 56) // e_phentsize
	le.PutUint16(buf[56:], 2)  // e_phnum
	le.PutUint16(buf[58:], 64) // e_shentsize
	le.PutUint16(buf[60:], uint16(len(sections)))
	le.PutUint16(buf[62:], uint16(len(sections)-1)) // e_shstrndx
	ph := func(i int, typ elf.ProgType, flags elf.ProgFlag, off, addr, size, align uint64) {
		p := buf[64+56*i:]
		le.PutUint32(p[0:], uint32(typ))
		le.PutUint32(p[4:], uint32(flags))
		le.PutUint64(p[8:], off)
		le.PutUint64(p[16:], addr)
		le.PutUint64(p[24:], addr)
		le.PutUint64(p[32:], size)
		le.PutUint64(p[40:], size)
		le.PutUint64(p[48:], align)
	}
	ph(0, elf.PT_LOAD, elf.PF_R|elf.PF_X, 0, load, text+textSize, 0x1000)
	ph(1, elf.PT_NOTE, elf.PF_R, goNote, load+goNote, uint64(goNoteSize), 4)
	return buf
}
