package vdso

import "encoding/binary"

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

	w := &writer{b: page}
	// ELF header.
	w.bytes([]byte{0x7f, 'E', 'L', 'F', 2 /* ELFCLASS64 */, 1 /* ELFDATA2LSB */, evCurrent, 0 /* ELFOSABI_NONE */})
	w.off = 16
	w.u16(etDyn)
	w.u16(machine)
	w.u32(evCurrent)
	w.u64(uint64(codeAt[0])) // e_entry: nothing runs it; Linux's points at the text too
	w.u64(phOff)
	w.u64(uint64(shOff))
	w.u32(0) // e_flags
	w.u16(ehdrSize)
	w.u16(phdrSize)
	w.u16(2)
	w.u16(shdrSize)
	w.u16(uint16(len(shNames)))
	w.u16(uint16(len(shNames) - 1)) // e_shstrndx: .shstrtab, the last

	// Program headers: the whole page, and the dynamic section in it.
	phdr(w, ptLoad, pfR|pfX, 0, PageSize, PageSize)
	phdr(w, ptDynamic, pfR, dynOff, ndyn*dynSize, 8)

	// Dynamic section.
	for _, d := range [ndyn][2]uint64{
		{dtHash, uint64(hashOff)}, {dtStrtab, uint64(dynstrOff)}, {dtSymtab, uint64(symOff)},
		{dtStrsz, uint64(dynstrSize)}, {dtSyment, symSize}, {dtVersym, uint64(versymOff)},
		{dtVerdef, uint64(verdefOff)}, {dtVerdefnum, 2}, {dtNull, 0},
	} {
		w.u64(d[0])
		w.u64(d[1])
	}

	// Symbols: the null one, then the functions (global, in .text, section 7).
	w.off = symOff + symSize
	for i, f := range funcs {
		w.u32(uint32(nameAt[i]))
		w.u8(stbGlobal<<4 | sttFunc)
		w.u8(0)  // st_other: default visibility
		w.u16(7) // st_shndx: .text
		w.u64(uint64(codeAt[i]))
		w.u64(uint64(len(f.Code)))
	}

	// DT_HASH with one bucket: the chain runs through every symbol.
	w.off = hashOff
	w.u32(1)
	w.u32(uint32(nsym))
	w.u32(1) // bucket 0: the first function
	w.u32(0) // chain[0]: the null symbol
	for i := 1; i < nsym; i++ {
		if i+1 < nsym {
			w.u32(uint32(i + 1))
		} else {
			w.u32(0)
		}
	}

	// Symbol versions: the null symbol local (0), every function version 2.
	w.off = versymOff
	w.u16(0)
	for i := 0; i < n; i++ {
		w.u16(2)
	}

	// Version definitions: the base (the object itself), then version.
	w.off = verdefOff
	verdef(w, verFlgBase, 1, elfHash(soname), sonameAt, true)
	verdef(w, 0, 2, elfHash(version), versionAt, false)

	// String tables.
	w.off = dynstrOff + 1
	w.str(soname)
	w.str(version)
	for _, f := range funcs {
		w.str(f.Name)
	}
	w.off = shstrOff
	for _, s := range shNames {
		w.str(s)
	}

	// Section headers.
	w.off = shOff + shdrSize // the null section
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
		w.off = codeAt[i]
		w.bytes(f.Code)
	}
	return !w.bad
}

func phdr(w *writer, typ, flags uint32, off, size, align uint64) {
	w.u32(typ)
	w.u32(flags)
	w.u64(off)  // p_offset
	w.u64(off)  // p_vaddr
	w.u64(off)  // p_paddr
	w.u64(size) // p_filesz
	w.u64(size) // p_memsz
	w.u64(align)
}

func shdr(w *writer, name int, typ, flags uint32, off, size int, link, info uint32, align, entsize uint64) {
	w.u32(uint32(name))
	w.u32(typ)
	w.u64(uint64(flags))
	w.u64(uint64(off)) // sh_addr
	w.u64(uint64(off)) // sh_offset
	w.u64(uint64(size))
	w.u32(link)
	w.u32(info)
	w.u64(align)
	w.u64(entsize)
}

// verdef writes one Elf64_Verdef and its one Elf64_Verdaux; next says another follows.
func verdef(w *writer, flags, ndx uint16, hash uint32, name int, next bool) {
	w.u16(1) // vd_version
	w.u16(flags)
	w.u16(ndx)
	w.u16(1) // vd_cnt
	w.u32(hash)
	w.u32(verdefSize) // vd_aux: right after
	if next {
		w.u32(verdefSize + verdauxSz)
	} else {
		w.u32(0)
	}
	w.u32(uint32(name)) // vda_name
	w.u32(0)            // vda_next
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
