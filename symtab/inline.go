package symtab

// An inline tree (FUNCDATA_InlTree) is an array of runtime.inlinedCall
// records in go:func.*, written by cmd/link/internal/ld/pcln.go:genInlTreeSym:
//
//	funcID uint8, 3 zero bytes, nameOff int32, parentPc int32, startLine int32
//
// A function's PCDATA_InlTreeIndex table maps each pc to the record of the
// innermost call inlined there, or -1 in the function's own code.
const (
	inlCallSize      = 16
	inlCallFuncID    = 0
	inlCallNameOff   = 4
	inlCallParentPC  = 8
	inlCallStartLine = 12
)

// maxInlineDepth bounds inline walks, so that a corrupt tree whose parent
// links form a cycle cannot make InlinedAt loop for ever. Go's inliner stays
// far below it.
const maxInlineDepth = 100

// inlCall is one decoded inlinedCall record.
type inlCall struct {
	funcID   uint8
	nameOff  int32
	parentPC int32
}

// inlineIndex returns the inline tree record in effect at text offset off
// of f, or -1 for f's own code (also when the tree is unknown or corrupt).
func (t *Table) inlineIndex(f fun, off uint64) (int32, uint64) {
	if t.gofunc == 0 {
		return -1, 0
	}
	tree := t.funcdataOffset(f, funcdataInlTree)
	if tree == ^uint32(0) {
		return -1, 0
	}
	ix, ok := t.pcvalue(f, t.pcdataOffset(f, pcdataInlTreeIndex), off)
	if !ok || ix < 0 {
		return -1, 0
	}
	return ix, t.gofunc + uint64(tree) + uint64(ix)*inlCallSize
}

// inlCallAt decodes the inlinedCall record at position pos of the table.
func (t *Table) inlCallAt(pos uint64) (inlCall, bool) {
	if pos < t.gofunc || !t.functab.contains(pos, inlCallSize) {
		return inlCall{}, false
	}
	name, _ := le32(t.tab, pos+inlCallNameOff)
	parent, _ := le32(t.tab, pos+inlCallParentPC)
	return inlCall{funcID: t.tab[pos+inlCallFuncID], nameOff: int32(name), parentPC: int32(parent)}, true
}

// findGoFunc locates go:func.* inside the table. The pcHeader does not
// record where it starts, and the runtime gets it from moduledata instead,
// which the kernel cannot reach. The linker places it right after the last
// _func record (the records are laid out in ftab order), aligned to the
// largest alignment of the funcdata it holds: 8 or 16 in practice. Each
// candidate alignment is tried against a sample of inline trees, and the one
// under which they all decode as well-formed trees is taken. It returns 0
// (inline walking off) when no candidate, or more than one, passes.
func (t *Table) findGoFunc() uint64 {
	last, ok := t.funcRecord(t.nfunc - 1)
	if !ok {
		return 0
	}
	npcdata := uint64(t.field(fun{rec: last}, funcNPCData))
	nfuncdata := uint64(t.tab[last+funcNFuncData])
	end := last + funcSize + 4*(npcdata+nfuncdata)
	found := uint64(0)
	prev := uint64(0)
	for align := uint64(4); align <= 64; align *= 2 {
		c := (end + align - 1) &^ (align - 1)
		if c == prev {
			continue
		}
		prev = c
		if !t.plausibleGoFunc(c) {
			continue
		}
		if found != 0 {
			return 0
		}
		found = c
	}
	return found
}

// Limits on the work findGoFunc does, so that New stays cheap.
const (
	sampleTrees   = 32 // inline trees checked per candidate
	sampleRecords = 8  // records checked per tree
)

// plausibleGoFunc reports whether the inline trees of a sample of functions
// across the table are well formed when go:func.* starts at position base.
func (t *Table) plausibleGoFunc(base uint64) bool {
	stride := t.nfunc/256 + 1
	checked := 0
	for i := uint64(0); i < t.nfunc && checked < sampleTrees; i += stride {
		rec, ok := t.funcRecord(i)
		entry, ok1 := t.ftabEntry(i)
		end, ok2 := t.ftabEntry(i + 1)
		if !ok || !ok1 || !ok2 {
			return false
		}
		f := fun{rec: rec, entry: entry, end: end}
		tree := t.funcdataOffset(f, funcdataInlTree)
		if tree == ^uint32(0) || end <= entry { // race builds have zero-size markers
			continue
		}
		used := t.pcmax(f, t.pcdataOffset(f, pcdataInlTreeIndex))
		for j := int32(0); j <= used && j < sampleRecords; j++ {
			if !t.plausibleInlCall(f, base+uint64(tree)+uint64(j)*inlCallSize, j) {
				return false
			}
		}
		checked++
	}
	return checked > 0
}

// plausibleInlCall reports whether the record at pos looks like record j of
// f's inline tree as the compiler writes it (cmd/internal/obj/pcln.go adds a
// call's parent before the call): zero padding, a funcID in the small range
// Go uses, a name offset that starts a funcnametab string, a start line (the
// line of a func keyword, so at least 1, which rejects zero padding), and a
// parent pc inside f where the innermost inlined call has a smaller index
// than j (or is f's own code).
func (t *Table) plausibleInlCall(f fun, pos uint64, j int32) bool {
	if !t.functab.contains(pos, inlCallSize) || t.tab[pos+1]|t.tab[pos+2]|t.tab[pos+3] != 0 || t.tab[pos] >= 64 {
		return false
	}
	name, _ := le32(t.tab, pos+inlCallNameOff)
	parent, _ := le32(t.tab, pos+inlCallParentPC)
	start, _ := le32(t.tab, pos+inlCallStartLine)
	nameAt := t.funcnames.start + uint64(name)
	if !t.funcnames.contains(nameAt, 1) || (name != 0 && t.tab[nameAt-1] != 0) || int32(start) <= 0 {
		return false
	}
	if int32(parent) < 0 || f.entry+uint64(parent) >= f.end {
		return false
	}
	ix, ok := t.pcvalue(f, t.pcdataOffset(f, pcdataInlTreeIndex), f.entry+uint64(parent))
	return ok && ix < j
}
