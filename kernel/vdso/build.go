package vdso

import (
	"encoding/binary"

	"github.com/unitrace/unitrace/kernel/le"
)

// MaxFuncs bounds the functions one vDSO exports.
const MaxFuncs = 4

// Build lays the vDSO for machine (MachineAMD64, MachineARM64) out in page (PageSize bytes,
// zeroed by Build): funcs, all of symbol version version, and stores in codeAt where each
// function's code starts in the page. It reports false, with the page unusable, when there are
// more than MaxFuncs functions or they do not fit before ParamsOffset.
func Build(page []byte, machine uint16, version string, funcs []Func, codeAt []int) bool {
	n := len(funcs)
	if len(page) != PageSize || n == 0 || n > MaxFuncs || len(codeAt) < n {
		return false
	}
	clear(page)

	// The string tables' layouts first: the tables before them name their strings by offset.
	dynstrSize := 1 + len(soname) + 1 + len(version) + 1
	var nameAt [MaxFuncs]int
	for i, f := range funcs {
		nameAt[i] = dynstrSize
		dynstrSize += len(f.Name) + 1
	}
	sonameAt, versionAt := 1, 1+len(soname)+1
	shNames := [...]string{"", ".hash", ".dynsym", ".dynstr", ".gnu.version", ".gnu.version_d", ".dynamic", ".text", ".shstrtab"}
	var shNameAt [len(shNames)]int
	shstrSize := 0
	for i, s := range shNames {
		shNameAt[i] = shstrSize
		shstrSize += len(s) + 1
	}

	// Offsets (the image's addresses too: it loads at 0).
	const phOff = ehdrSize
	const dynOff = phOff + 2*phdrSize
	const ndyn = 9
	symOff := dynOff + ndyn*dynSize
	nsym := n + 1
	hashOff := symOff + nsym*symSize
	hashSize := (2 + 1 + nsym) * 4
	versymOff := hashOff + hashSize
	verdefOff := align(versymOff+nsym*2, 4)
	dynstrOff := verdefOff + 2*(verdefSize+verdauxSz)
	shstrOff := dynstrOff + dynstrSize
	shOff := align(shstrOff+shstrSize, 16)
	textOff := shOff + len(shNames)*shdrSize
	textEnd := textOff
	for i, f := range funcs {
		textEnd = align(textEnd, 16)
		codeAt[i] = textEnd
		textEnd += len(f.Code)
	}
	if textEnd > ParamsOffset {
		return false
	}

	w := &le.Writer{B: page}
	// ELF header.
	w.Bytes([]byte{0x7f, 'E', 'L', 'F', 2 /* ELFCLASS64 */, 1 /* ELFDATA2LSB */, evCurrent, 0 /* ELFOSABI_NONE */})
	w.N = 16
	w.U16(etDyn)
	w.U16(machine)
	w.U32(evCurrent)
	w.U64(uint64(codeAt[0])) // e_entry: nothing runs it; Linux's points at the text too
	w.U64(phOff)
	w.U64(uint64(shOff))
	w.U32(0) // e_flags
	w.U16(ehdrSize)
	w.U16(phdrSize)
	w.U16(2)
	w.U16(shdrSize)
	w.U16(uint16(len(shNames)))
	w.U16(uint16(len(shNames) - 1)) // e_shstrndx: .shstrtab, the last

	// Program headers: the whole page, and the dynamic section in it.
	phdr(w, ptLoad, pfR|pfX, 0, PageSize, PageSize)
	phdr(w, ptDynamic, pfR, dynOff, ndyn*dynSize, 8)

	// Dynamic section.
	for _, d := range [ndyn][2]uint64{
		{dtHash, uint64(hashOff)}, {dtStrtab, uint64(dynstrOff)}, {dtSymtab, uint64(symOff)},
		{dtStrsz, uint64(dynstrSize)}, {dtSyment, symSize}, {dtVersym, uint64(versymOff)},
		{dtVerdef, uint64(verdefOff)}, {dtVerdefnum, 2}, {dtNull, 0},
	} {
		w.U64(d[0])
		w.U64(d[1])
	}

	// Symbols: the null one, then the functions (global, in .text, section 7).
	w.N = symOff + symSize
	for i, f := range funcs {
		w.U32(uint32(nameAt[i]))
		w.U8(stbGlobal<<4 | sttFunc)
		w.U8(0)  // st_other: default visibility
		w.U16(7) // st_shndx: .text
		w.U64(uint64(codeAt[i]))
		w.U64(uint64(len(f.Code)))
	}

	// DT_HASH with one bucket: the chain runs through every symbol.
	w.N = hashOff
	w.U32(1)
	w.U32(uint32(nsym))
	w.U32(1) // bucket 0: the first function
	w.U32(0) // chain[0]: the null symbol
	for i := 1; i < nsym; i++ {
		if i+1 < nsym {
			w.U32(uint32(i + 1))
		} else {
			w.U32(0)
		}
	}

	// Symbol versions: the null symbol local (0), every function version 2.
	w.N = versymOff
	w.U16(0)
	for i := 0; i < n; i++ {
		w.U16(2)
	}

	// Version definitions: the base (the object itself), then version.
	w.N = verdefOff
	verdef(w, verFlgBase, 1, elfHash(soname), sonameAt, true)
	verdef(w, 0, 2, elfHash(version), versionAt, false)

	// String tables.
	w.N = dynstrOff + 1
	w.CString(soname)
	w.CString(version)
	for _, f := range funcs {
		w.CString(f.Name)
	}
	w.N = shstrOff
	for _, s := range shNames {
		w.CString(s)
	}

	// Section headers.
	w.N = shOff + shdrSize // the null section
	shdr(w, shNameAt[1], shtHash, shfAlloc, hashOff, hashSize, 2, 0, 4, 4)
	shdr(w, shNameAt[2], shtDynsym, shfAlloc, symOff, nsym*symSize, 3, 1, 8, symSize)
	shdr(w, shNameAt[3], shtStrtab, shfAlloc, dynstrOff, dynstrSize, 0, 0, 1, 0)
	shdr(w, shNameAt[4], shtVersym, shfAlloc, versymOff, nsym*2, 2, 0, 2, 2)
	shdr(w, shNameAt[5], shtVerdef, shfAlloc, verdefOff, 2*(verdefSize+verdauxSz), 3, 2, 4, 0)
	shdr(w, shNameAt[6], shtDynamic, shfAlloc, dynOff, ndyn*dynSize, 3, 0, 8, dynSize)
	shdr(w, shNameAt[7], shtProgbits, shfAlloc|shfExec, textOff, textEnd-textOff, 0, 0, 16, 0)
	shdr(w, shNameAt[8], shtStrtab, 0, shstrOff, shstrSize, 0, 0, 1, 0)

	// The code.
	for i, f := range funcs {
		w.N = codeAt[i]
		w.Bytes(f.Code)
	}
	return w.Err == le.OK
}

func phdr(w *le.Writer, typ, flags uint32, off, size, align uint64) {
	w.U32(typ)
	w.U32(flags)
	w.U64(off)  // p_offset
	w.U64(off)  // p_vaddr
	w.U64(off)  // p_paddr
	w.U64(size) // p_filesz
	w.U64(size) // p_memsz
	w.U64(align)
}

func shdr(w *le.Writer, name int, typ, flags uint32, off, size int, link, info uint32, align, entsize uint64) {
	w.U32(uint32(name))
	w.U32(typ)
	w.U64(uint64(flags))
	w.U64(uint64(off)) // sh_addr
	w.U64(uint64(off)) // sh_offset
	w.U64(uint64(size))
	w.U32(link)
	w.U32(info)
	w.U64(align)
	w.U64(entsize)
}

// verdef writes one Elf64_Verdef and its one Elf64_Verdaux; next says another follows.
func verdef(w *le.Writer, flags, ndx uint16, hash uint32, name int, next bool) {
	w.U16(1) // vd_version
	w.U16(flags)
	w.U16(ndx)
	w.U16(1) // vd_cnt
	w.U32(hash)
	w.U32(verdefSize) // vd_aux: right after
	if next {
		w.U32(verdefSize + verdauxSz)
	} else {
		w.U32(0)
	}
	w.U32(uint32(name)) // vda_name
	w.U32(0)            // vda_next
}

func align(n, a int) int { return (n + a - 1) / a * a }

// Patch replaces every 8-byte Magic in code with addr (the parameters' address), and returns
// how many it replaced.
func Patch(code []byte, addr uint64) int {
	count := 0
	for i := 0; i+8 <= len(code); i++ {
		if le64(code[i:]) == Magic {
			put64(code[i:], addr)
			count++
			i += 7
		}
	}
	return count
}

// PatchMoves is Patch for arm64, where the assembler builds a 64-bit constant in a register with
// MOVZ and three MOVKs (Arm ARM C6.2.234, C6.2.232: sf=1, hw selects the 16-bit half, imm16 at
// bits 5-20, Rd at bits 0-4): it replaces every such sequence that builds Magic with one that
// builds addr, and returns how many it replaced.
func PatchMoves(code []byte, addr uint64) int {
	const (
		movz = 0xd2800000
		movk = 0xf2800000
		op   = 0xff800000 // the opcode and sf bits, without hw
	)
	count := 0
	for i := 0; i+16 <= len(code); i += 4 {
		rd := binary.LittleEndian.Uint32(code[i:]) & 31
		match := true
		for hw := 0; hw < 4 && match; hw++ {
			w := binary.LittleEndian.Uint32(code[i+4*hw:])
			want := uint32(movk)
			if hw == 0 {
				want = movz
			}
			half := uint32(uint64(Magic) >> (16 * hw) & 0xffff)
			match = w&op == want && (w>>21)&3 == uint32(hw) && (w>>5)&0xffff == half && w&31 == rd
		}
		if !match {
			continue
		}
		for hw := 0; hw < 4; hw++ {
			w := binary.LittleEndian.Uint32(code[i+4*hw:])
			w = w&^(0xffff<<5) | uint32(addr>>(16*hw)&0xffff)<<5
			binary.LittleEndian.PutUint32(code[i+4*hw:], w)
		}
		count++
		i += 12
	}
	return count
}
