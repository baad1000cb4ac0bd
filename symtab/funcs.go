package symtab

// fun is one physical function found in the table: where its _func record
// is and the text offsets it covers.
type fun struct {
	rec   uint64 // position of the _func record in the table
	entry uint64 // entry offset from runtime.text
	end   uint64 // entry offset of the next function (or the end of text)
}

// findFunc returns the function whose text holds pc, and pc as an offset
// from runtime.text. Like the runtime's findfunc, a pc in the padding after a
// function belongs to that function.
func (t *Table) findFunc(pc uintptr) (fun, uint64, bool) {
	if t.nfunc == 0 || pc < t.text {
		return fun{}, 0, false
	}
	off := uint64(pc - t.text)
	first, ok1 := t.ftabEntry(0)
	last, ok2 := t.ftabEntry(t.nfunc)
	if !ok1 || !ok2 || off < first || off >= last {
		return fun{}, 0, false
	}
	// Binary search for the last function whose entry is <= off. A corrupt,
	// unsorted ftab makes this pick a wrong function, never loop or fault.
	lo, hi := uint64(0), t.nfunc
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		e, ok := t.ftabEntry(mid)
		if !ok {
			return fun{}, 0, false
		}
		if e <= off {
			lo = mid
		} else {
			hi = mid
		}
	}
	entry, ok1 := t.ftabEntry(lo)
	end, ok2 := t.ftabEntry(lo + 1)
	rec, ok3 := t.funcRecord(lo)
	if !ok1 || !ok2 || !ok3 || entry > off || off >= end {
		return fun{}, 0, false
	}
	// The record repeats the entry offset; a mismatch means the ftab and
	// the records disagree, so neither can be trusted.
	if e, _ := le32(t.tab, rec+funcEntryOff); uint64(e) != entry {
		return fun{}, 0, false
	}
	return fun{rec: rec, entry: entry, end: end}, off, true
}

// field reads the 32-bit field at offset at of f's _func record.
func (t *Table) field(f fun, at uint64) uint32 {
	v, _ := le32(t.tab, f.rec+at)
	return v
}

// pcdataOffset returns the pctab offset of f's pcdata table k, 0 if none.
func (t *Table) pcdataOffset(f fun, k uint64) uint32 {
	if k >= uint64(t.field(f, funcNPCData)) {
		return 0
	}
	return t.field(f, funcSize+4*k)
}

// funcdataOffset returns the go:func.* offset of f's funcdata k, ^0 if none
// (the linker's marker for a missing entry).
func (t *Table) funcdataOffset(f fun, k uint64) uint32 {
	if f.rec+funcNFuncData >= uint64(len(t.tab)) || k >= uint64(t.tab[f.rec+funcNFuncData]) {
		return ^uint32(0)
	}
	npcdata := uint64(t.field(f, funcNPCData))
	return t.field(f, funcSize+4*npcdata+4*k)
}

// name returns the function name at offset nameOff of funcnametab.
func (t *Table) name(nameOff int32) ([]byte, bool) {
	if nameOff < 0 {
		return nil, false
	}
	return cstring(t.tab, t.funcnames, uint64(nameOff))
}

// file returns the name of file number fileno of f's compilation unit.
func (t *Table) file(f fun, fileno int32) ([]byte, bool) {
	if fileno < 0 {
		return nil, false
	}
	idx := uint64(t.field(f, funcCUOffset)) + uint64(fileno)
	pos := t.cutab.start + 4*idx
	if !t.cutab.contains(pos, 4) {
		return nil, false
	}
	off, ok := le32(t.tab, pos)
	if !ok || off == ^uint32(0) {
		return nil, false
	}
	return cstring(t.tab, t.filetab, uint64(off))
}

// fileLine returns the source position of the instruction at text offset
// off inside f.
func (t *Table) fileLine(f fun, off uint64) ([]byte, int32, bool) {
	fileno, ok1 := t.pcvalue(f, t.field(f, funcPCFile), off)
	line, ok2 := t.pcvalue(f, t.field(f, funcPCLn), off)
	if !ok1 || !ok2 || line < 0 {
		return nil, 0, false
	}
	file, ok := t.file(f, fileno)
	if !ok {
		return nil, 0, false
	}
	return file, line, true
}
