package symtab

import (
	"encoding/binary"
	"strings"
)

// A synthetic pclntab, written by a small reference writer that follows
// cmd/link/internal/ld/pcln.go. Tests control every byte of it, so they can
// predict every answer and corrupt any field.

// run says that a pc-value table has value val up to (not including) byte
// offset end from the function's entry.
type run struct {
	val int32
	end uint32
}

type synthInl struct {
	funcID   uint8
	name     string
	parentPC int32
}

type synthFunc struct {
	name   string
	size   uint32 // bytes, a multiple of the quantum
	funcID uint8
	file   []run // indexes into synth.files
	line   []run
	inlIdx []run // nil: no inline tree
	inl    []synthInl
}

type synth struct {
	quantum uint32
	files   []string
	funcs   []synthFunc
	align   uint64 // alignment of go:func.*; 8 if 0
}

// synthText is the runtime.text the tests pass to New for synthetic tables.
const synthText = 0x10000

// layout is where build put things, for tests to check against.
type layout struct {
	gofunc  uint64
	entries []uint32
	end     uint32
}

func (s *synth) build() ([]byte, layout) {
	var lay layout
	le := binary.LittleEndian
	const header = 8 + 8*8

	// funcnametab: the functions' names, a filler, then inline-only names.
	// The filler makes inline records' name offsets large, as they are in
	// real images (findGoFunc relies on that).
	var names []byte
	nameOff := map[string]uint32{}
	addName := func(n string) uint32 {
		if off, ok := nameOff[n]; ok {
			return off
		}
		nameOff[n] = uint32(len(names))
		names = append(append(names, n...), 0)
		return nameOff[n]
	}
	for _, f := range s.funcs {
		addName(f.name)
	}
	addName(strings.Repeat("~", 1024))
	for _, f := range s.funcs {
		for _, c := range f.inl {
			addName(c.name)
		}
	}

	var filetab, cutab []byte
	for _, name := range s.files {
		cutab = le.AppendUint32(cutab, uint32(len(filetab)))
		filetab = append(append(filetab, name...), 0)
	}

	pctab := []byte{0} // offset 0 means "no table"
	encode := func(runs []run) uint32 {
		if runs == nil {
			return 0
		}
		off := uint32(len(pctab))
		val, pc := int32(-1), uint32(0)
		for _, r := range runs {
			d := r.val - val
			pctab = binary.AppendUvarint(pctab, uint64(uint32(d<<1^d>>31)))
			pctab = binary.AppendUvarint(pctab, uint64((r.end-pc)/s.quantum))
			val, pc = r.val, r.end
		}
		return off
	}

	funcnames := uint64(header)
	cu := funcnames + uint64(len(names))
	files := cu + uint64(len(cutab))
	type tables struct{ file, line, inl uint32 }
	tabs := make([]tables, len(s.funcs))
	for i, f := range s.funcs {
		tabs[i] = tables{encode(f.file), encode(f.line), encode(f.inlIdx)}
		pctab = append(pctab, 0)
	}
	pc := files + uint64(len(filetab))
	for (pc+uint64(len(pctab)))%8 != 0 { // the functab is pointer-aligned
		pctab = append(pctab, 0)
	}
	fn := pc + uint64(len(pctab))

	// functab: the ftab, then the _func records, pointer-aligned.
	nfunc := len(s.funcs)
	functab := make([]byte, nfunc*8+4)
	var gofunc []byte
	text := uint32(0)
	for i, f := range s.funcs {
		for len(functab)%8 != 0 {
			functab = append(functab, 0)
		}
		le.PutUint32(functab[i*8:], text)
		le.PutUint32(functab[i*8+4:], uint32(len(functab)))
		lay.entries = append(lay.entries, text)
		rec := make([]byte, funcSize)
		le.PutUint32(rec[funcEntryOff:], text)
		le.PutUint32(rec[funcNameOff:], nameOff[f.name])
		le.PutUint32(rec[funcPCFile:], tabs[i].file)
		le.PutUint32(rec[funcPCLn:], tabs[i].line)
		rec[funcFuncID] = f.funcID
		if f.inlIdx != nil {
			le.PutUint32(rec[funcNPCData:], 3)
			rec[funcNFuncData] = 4
			rec = le.AppendUint32(rec, 0)
			rec = le.AppendUint32(rec, 0)
			rec = le.AppendUint32(rec, tabs[i].inl)
			rec = le.AppendUint32(rec, ^uint32(0))
			rec = le.AppendUint32(rec, ^uint32(0))
			rec = le.AppendUint32(rec, ^uint32(0))
			rec = le.AppendUint32(rec, uint32(len(gofunc)))
			for _, c := range f.inl {
				gofunc = append(gofunc, c.funcID, 0, 0, 0)
				gofunc = le.AppendUint32(gofunc, nameOff[c.name])
				gofunc = le.AppendUint32(gofunc, uint32(c.parentPC))
				gofunc = le.AppendUint32(gofunc, 1000+uint32(len(gofunc))) // startLine
			}
		}
		functab = append(functab, rec...)
		text += f.size
	}
	le.PutUint32(functab[nfunc*8:], text)
	lay.end = text

	b := make([]byte, header)
	le.PutUint32(b, magicGo120)
	b[6], b[7] = byte(s.quantum), 8
	for i, v := range []uint64{uint64(nfunc), uint64(len(s.files)), 0, funcnames, cu, files, pc, fn} {
		le.PutUint64(b[8+8*i:], v)
	}
	b = append(b, names...)
	b = append(b, cutab...)
	b = append(b, filetab...)
	b = append(b, pctab...)
	b = append(b, functab...)
	align := s.align
	if align == 0 {
		align = 8
	}
	for uint64(len(b))%align != 0 {
		b = append(b, 0)
	}
	lay.gofunc = uint64(len(b))
	b = append(b, gofunc...)
	return b, lay
}

// valueAt is the reference decoder of a run list: the value at byte offset
// off from the entry, -1 past the end or without a table.
func valueAt(runs []run, off uint32) int32 {
	for _, r := range runs {
		if off < r.end {
			return r.val
		}
	}
	return -1
}

// modelFrame is the reference answer for InlinedAt(entry+off, depth), with
// inline trees in use or (noInline) not found.
func (s *synth) modelFrame(fi int, off uint32, depth int, noInline bool) (name, file string, line int32, inlined, ok bool) {
	f := s.funcs[fi]
	ix := valueAt(f.inlIdx, off)
	if noInline {
		ix = -1
	}
	for range depth {
		if ix < 0 {
			return "", "", 0, false, false
		}
		off = uint32(f.inl[ix].parentPC)
		ix = valueAt(f.inlIdx, off)
	}
	name = f.name
	if ix >= 0 {
		name = f.inl[ix].name
	}
	fileno, line := valueAt(f.file, off), valueAt(f.line, off)
	if fileno >= 0 && line >= 0 {
		file = s.files[fileno]
	} else {
		line = 0
	}
	return name, file, line, ix >= 0, true
}

// sampleSynth is a small fixed table: a function with a two-deep inline
// tree, an assembly-like function without one, and a function with no line
// table at all.
func sampleSynth(quantum uint32) *synth {
	q := quantum
	return &synth{
		quantum: q,
		files:   []string{"main.go", "lib/lib.go", "asm.s"},
		funcs: []synthFunc{
			{
				name: "main.main", size: 16 * q,
				file:   []run{{0, 4 * q}, {1, 12 * q}, {0, 16 * q}},
				line:   []run{{10, 2 * q}, {11, 4 * q}, {40, 8 * q}, {50, 12 * q}, {12, 16 * q}},
				inlIdx: []run{{-1, 4 * q}, {0, 8 * q}, {1, 12 * q}, {-1, 16 * q}},
				inl: []synthInl{
					{name: "lib.Outer", parentPC: int32(3 * q)},
					{name: "lib.inner", parentPC: int32(5 * q)},
				},
			},
			{
				name: "runtime.asmcgocall", size: 8 * q, funcID: 2,
				file: []run{{2, 8 * q}},
				line: []run{{100, 3 * q}, {101, 8 * q}},
			},
			{name: "go:textmarker", size: 4 * q},
			{
				name: "main.(*T).M", size: 4 * q, funcID: funcIDWrapper,
				file: []run{{0, 4 * q}},
				line: []run{{1, 4 * q}},
			},
		},
	}
}
