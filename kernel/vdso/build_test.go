package vdso

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"testing"
)

func testFuncs() []Func {
	return []Func{
		{"__vdso_clock_gettime", []byte{0x48, 0xb8, 0x41, 0x52, 0x41, 0x50, 0x4f, 0x53, 0x44, 0x56, 0xc3}}, // MOVQ $Magic, AX; RET
		{"__vdso_gettimeofday", []byte{0x31, 0xc0, 0xc3}},                                                  // XORL AX, AX; RET
	}
}

// TestBuildReadsBack builds a vDSO and reads it with debug/elf: the header, the dynamic
// symbols with their version, and the code where the symbols say.
func TestBuildReadsBack(t *testing.T) {
	page := make([]byte, PageSize)
	funcs := testFuncs()
	var at [MaxFuncs]int
	if !Build(page, MachineAMD64, "LINUX_2.6", funcs, at[:]) {
		t.Fatal("Build failed")
	}
	f, err := elf.NewFile(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	if f.Class != elf.ELFCLASS64 || f.Type != elf.ET_DYN || f.Machine != elf.EM_X86_64 {
		t.Fatalf("header: %v %v %v", f.Class, f.Type, f.Machine)
	}
	syms, err := f.DynamicSymbols()
	if err != nil {
		t.Fatal(err)
	}
	if len(syms) != len(funcs) {
		t.Fatalf("%d dynamic symbols, want %d", len(syms), len(funcs))
	}
	for i, s := range syms {
		if s.Name != funcs[i].Name || s.Version != "LINUX_2.6" || elf.ST_TYPE(s.Info) != elf.STT_FUNC || elf.ST_BIND(s.Info) != elf.STB_GLOBAL {
			t.Errorf("symbol %d: %+v", i, s)
		}
		if !bytes.Equal(page[s.Value:s.Value+s.Size], funcs[i].Code) || int(s.Value) != at[i] {
			t.Errorf("%s: the code at %#x is not the function's", s.Name, s.Value)
		}
	}
	text := f.Section(".text")
	if text == nil || text.Flags&elf.SHF_EXECINSTR == 0 {
		t.Fatal("no executable .text")
	}
	if n := Patch(page[at[0]:at[0]+len(funcs[0].Code)], 0x1234); n != 1 || binary.LittleEndian.Uint64(page[at[0]+2:]) != 0x1234 {
		t.Fatalf("Patch replaced %d", n)
	}
}

// TestRuntimeLookup resolves the functions the way the Go runtime does (runtime/vdso_elf64.go
// and vdso_linux.go): the first PT_LOAD's offset, PT_DYNAMIC, DT_HASH's chains, DT_VERSYM and
// DT_VERDEF's hashed version names.
func TestRuntimeLookup(t *testing.T) {
	for _, c := range []struct {
		machine uint16
		version string
	}{{MachineAMD64, "LINUX_2.6"}, {MachineARM64, "LINUX_2.6.39"}} {
		page := make([]byte, PageSize)
		funcs := testFuncs()
		var at [MaxFuncs]int
		if !Build(page, c.machine, c.version, funcs, at[:]) {
			t.Fatal("Build failed")
		}
		for i, fn := range funcs {
			got, ok := runtimeLookup(t, page, fn.Name, c.version)
			if !ok || got != uint64(at[i]) {
				t.Errorf("%s@%s: found %v at %#x, want %#x", fn.Name, c.version, ok, got, at[i])
			}
		}
		if _, ok := runtimeLookup(t, page, funcs[0].Name, "LINUX_9"); ok {
			t.Error("a symbol resolved under a version the vDSO does not define")
		}
	}
}

// runtimeLookup is the runtime's algorithm, on the page at address 0.
func runtimeLookup(t *testing.T, p []byte, name, version string) (uint64, bool) {
	le16 := func(o uint64) uint16 { return binary.LittleEndian.Uint16(p[o:]) }
	le32 := func(o uint64) uint32 { return binary.LittleEndian.Uint32(p[o:]) }
	cstr := func(o uint64) string { return string(p[o : o+uint64(bytes.IndexByte(p[o:], 0))]) }
	phoff, phnum := le64(p[32:]), le16(56)
	var loadOffset, dyn uint64
	foundLoad := false
	for i := uint64(0); i < uint64(phnum); i++ {
		ph := phoff + i*phdrSize
		switch le32(ph) {
		case ptLoad:
			if !foundLoad {
				foundLoad = true
				loadOffset = le64(p[ph+8:]) - le64(p[ph+16:])
			}
		case ptDynamic:
			dyn = le64(p[ph+8:])
		}
	}
	if !foundLoad || dyn == 0 {
		t.Fatal("no PT_LOAD or PT_DYNAMIC")
	}
	var strtab, symtab, hash, versym, verdef uint64
	for d := dyn; le64(p[d:]) != dtNull; d += dynSize {
		v := loadOffset + le64(p[d+8:])
		switch le64(p[d:]) {
		case dtStrtab:
			strtab = v
		case dtSymtab:
			symtab = v
		case dtHash:
			hash = v
		case dtVersym:
			versym = v
		case dtVerdef:
			verdef = v
		}
	}
	// vdsoFindVersion.
	ver := int32(-1)
	for def := verdef; ; {
		if le16(def+2)&verFlgBase == 0 {
			aux := def + uint64(le32(def+12))
			if le32(def+8) == elfHash(version) && cstr(strtab+uint64(le32(aux))) == version {
				ver = int32(le16(def+4) & 0x7fff)
				break
			}
		}
		next := le32(def + 16)
		if next == 0 {
			break
		}
		def += uint64(next)
	}
	// vdsoParseSymbols with DT_HASH.
	nbucket := le32(hash)
	bucket := hash + 8
	chain := bucket + uint64(nbucket)*4
	for i := le32(bucket + uint64(elfHash(name)%nbucket)*4); i != 0; i = le32(chain + uint64(i)*4) {
		sym := symtab + uint64(i)*symSize
		info, shndx := p[sym+4], le16(sym+6)
		if info&0xf != sttFunc || info>>4 != stbGlobal || shndx == 0 {
			continue
		}
		if cstr(strtab+uint64(le32(sym))) != name {
			continue
		}
		if int32(le16(versym+uint64(i)*2)&0x7fff) != ver {
			continue
		}
		return loadOffset + le64(p[sym+8:]), true
	}
	return 0, false
}

func TestBuildRefuses(t *testing.T) {
	var at [MaxFuncs]int
	big := []Func{{"f", make([]byte, PageSize)}}
	if Build(make([]byte, PageSize), MachineAMD64, "V", big, at[:]) {
		t.Error("code larger than the page accepted")
	}
	if Build(make([]byte, PageSize), MachineAMD64, "V", nil, at[:]) {
		t.Error("no functions accepted")
	}
	if Build(make([]byte, 100), MachineAMD64, "V", testFuncs(), at[:]) {
		t.Error("a short page accepted")
	}
}

func TestElfHash(t *testing.T) {
	// Values the runtime hard-codes for the symbols it looks up (runtime/vdso_linux_amd64.go,
	// vdso_linux_arm64.go).
	for _, c := range []struct {
		s    string
		want uint32
	}{{"LINUX_2.6", 0x3ae75f6}, {"__vdso_clock_gettime", 0xd35ec75}, {"__vdso_gettimeofday", 0x315ca59},
		{"LINUX_2.6.39", 0x75fcb89}, {"__kernel_clock_gettime", 0xb0cd725}} {
		if got := elfHash(c.s); got != c.want {
			t.Errorf("elfHash(%q) = %#x, want %#x", c.s, got, c.want)
		}
	}
}

// TestPatchMoves patches the sequence the arm64 assembler makes of MOVD $Magic, R2 (as
// `go tool objdump` shows it: MOVZ $0x5241, R2; MOVK $0x5041<<16; MOVK $0x534f<<32; MOVK
// $0x5644<<48), and leaves other code alone.
func TestPatchMoves(t *testing.T) {
	code := []byte{}
	for _, w := range []uint32{0x71007c1f, 0xd28a4822, 0xf2aa0822, 0xf2ca69e2, 0xf2eac882, 0x52811e63} {
		code = binary.LittleEndian.AppendUint32(code, w)
	}
	const addr = 0x0000_7fff_f7ff_efc0
	if n := PatchMoves(code, addr); n != 1 {
		t.Fatalf("PatchMoves replaced %d sequences, want 1", n)
	}
	var got uint64
	for hw := 0; hw < 4; hw++ {
		w := binary.LittleEndian.Uint32(code[4+4*hw:])
		if w&31 != 2 || (w>>21)&3 != uint32(hw) {
			t.Fatalf("instruction %d lost its register or half: %#x", hw, w)
		}
		got |= uint64(w>>5&0xffff) << (16 * hw)
	}
	if got != addr {
		t.Fatalf("the sequence builds %#x, want %#x", got, addr)
	}
	if binary.LittleEndian.Uint32(code[0:]) != 0x71007c1f || binary.LittleEndian.Uint32(code[20:]) != 0x52811e63 {
		t.Fatal("the instructions around it changed")
	}
	if PatchMoves(code, addr) != 0 {
		t.Fatal("a patched sequence matched again")
	}
}
