package profile

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"sort"
	"strings"

	"github.com/unitrace/unitrace/kernel/vdso"

	"github.com/unitrace/unitrace/internal/tracefile"
	"github.com/unitrace/unitrace/symtab"
	"github.com/unitrace/unitrace/trace/wire"
)

// Image is the ELF that produced a recording, opened for profiling: its
// pclntab (symbols, inline trees, SP deltas, function flags), its code bytes
// and its symbol table. Every method takes and returns run-time addresses,
// the ones in the recording; Slide converts them to the ELF's.
type Image struct {
	Path    string
	BuildID []byte    // GNU build id, nil if none
	Arch    wire.Arch // from the ELF header
	Slide   int64     // run-time text start minus the ELF's (HELLO's text_start)

	table    symtab.Table
	pclntab  []byte // kept so the table's slices stay valid
	text     []byte // .text contents
	textAddr uint64 // .text address in the ELF
	textOff  uint64 // .text offset in the file
	elfText  uint64 // runtime.text in the ELF: the pclntab's base
	funcs    []elf.Symbol
	frames   map[frameKey][]Frame
	// waitReasons are the runtime's names of its wait reasons (runtime.waitReasonStrings),
	// read from the image: a GOROUTINE record carries the index.
	waitReasons []string
}

type frameKey struct {
	pc    uint64
	exact bool
}

// OpenImage reads the pclntab, code and symbols of a Go ELF image.
func OpenImage(path string) (*Image, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	im := &Image{Path: path, frames: map[frameKey][]Frame{}}
	switch f.Machine {
	case elf.EM_X86_64:
		im.Arch = wire.ArchAMD64
	case elf.EM_AARCH64:
		im.Arch = wire.ArchARM64
	default:
		return nil, fmt.Errorf("%s: machine %v is neither amd64 nor arm64", path, f.Machine)
	}
	ti, err := tracefile.OpenImage(path) // build id and runtime.text, found the same way as list -b
	if err != nil {
		return nil, err
	}
	im.BuildID, im.elfText = ti.BuildID, ti.Text
	sec := f.Section(".gopclntab")
	if im.pclntab, err = sec.Data(); err != nil {
		return nil, fmt.Errorf("%s: reading .gopclntab: %w", path, err)
	}
	tab, ok := symtab.New(im.pclntab, uintptr(ti.Text))
	if !ok {
		return nil, fmt.Errorf("%s: .gopclntab is not a pclntab this tool can read", path)
	}
	im.table = tab
	if text := f.Section(".text"); text != nil && text.Type != elf.SHT_NOBITS {
		if im.text, err = text.Data(); err != nil {
			return nil, fmt.Errorf("%s: reading .text: %w", path, err)
		}
		im.textAddr, im.textOff = text.Addr, text.Offset
	}
	if syms, err := f.Symbols(); err == nil {
		im.waitReasons = readWaitReasons(f, syms)
		for _, s := range syms {
			if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Value != 0 {
				im.funcs = append(im.funcs, s)
			}
		}
	}
	return im, nil
}

// WaitReason is the runtime's name of wait reason i in this image ("" if it has none).
func (im *Image) WaitReason(i uint8) string {
	if int(i) >= len(im.waitReasons) {
		return ""
	}
	return im.waitReasons[i]
}

// readWaitReasons reads the array of strings runtime.waitReasonStrings from the image's data:
// each entry a (pointer, length) pair whose bytes lie in a loaded section. It returns nil when
// the image has no such array or one it cannot read whole.
func readWaitReasons(f *elf.File, syms []elf.Symbol) []string {
	for _, s := range syms {
		if s.Name != "runtime.waitReasonStrings" {
			continue
		}
		arr, ok := sectionBytes(f, s.Value, s.Size)
		if !ok || s.Size%16 != 0 || s.Size > 16*256 {
			return nil
		}
		out := make([]string, s.Size/16)
		for i := range out {
			p, n := binary.LittleEndian.Uint64(arr[16*i:]), binary.LittleEndian.Uint64(arr[16*i+8:])
			if n == 0 {
				continue
			}
			b, ok := sectionBytes(f, p, n)
			if !ok || n > 256 {
				return nil
			}
			out[i] = string(b)
		}
		return out
	}
	return nil
}

// sectionBytes returns the size bytes at address addr of a section with contents.
func sectionBytes(f *elf.File, addr, size uint64) ([]byte, bool) {
	for _, sec := range f.Sections {
		if sec.Type == elf.SHT_NOBITS || sec.Addr == 0 || addr < sec.Addr || addr+size > sec.Addr+sec.Size || addr+size < addr {
			continue
		}
		b := make([]byte, size)
		if _, err := sec.ReadAt(b, int64(addr-sec.Addr)); err != nil {
			return nil, false
		}
		return b, true
	}
	return nil, false
}

// OpenFor opens the image that produced a recording, with the checks of
// tracefile.OpenFor: path when it is not empty, else the image the HOST
// frame names; unless force is set, an image whose GNU build id differs
// from HELLO's is refused. It adopts HELLO's text start.
func OpenFor(path string, tr *tracefile.Trace, force bool) (*Image, error) {
	ti, err := tracefile.OpenFor(path, tr.Host, tr.Hello, force)
	if err != nil {
		return nil, err
	}
	im, err := OpenImage(ti.Path)
	if err != nil {
		return nil, err
	}
	im.Adopt(tr.Hello)
	return im, nil
}

// Adopt takes the run-time text start from HELLO (a relocated guest).
func (im *Image) Adopt(h *wire.Hello) {
	if h != nil && h.TextStart != 0 {
		im.Slide = int64(h.TextStart - im.elfText)
	}
}

// elfAddr converts a run-time address to the ELF's.
func (im *Image) elfAddr(pc uint64) uint64 { return pc - uint64(im.Slide) }

// Frame is one logical frame: a physical function or a function inlined
// into it.
type Frame struct {
	Func    string // symbol name; "0x..." (the address) when no function holds it
	File    string
	Line    int
	Inlined bool // inlined into the next frame
	Wrapper bool // autogenerated code, hidden by the views unless it is the leaf
	Known   bool // a function holds the address
}

// Frames symbolizes one stack word, innermost frame first. exact says the
// word is the sampled instruction itself; any other word is a return
// address and is looked up at pc-1, inside the call (symtab's CallPC: at pc
// itself when it is a function's entry, which follows no call). The result is shared:
// do not modify it.
func (im *Image) Frames(pc uint64, exact bool) []Frame {
	k := frameKey{pc, exact}
	if fr, ok := im.frames[k]; ok {
		return fr
	}
	look := im.elfAddr(pc)
	if !exact {
		look = uint64(im.table.CallPC(uintptr(look)))
	}
	var out []Frame
	for depth := 0; ; depth++ {
		f, ok := im.table.InlinedAt(uintptr(look), depth)
		if !ok {
			break
		}
		out = append(out, Frame{Func: string(f.Name), File: string(f.File), Line: int(f.Line),
			Inlined: f.Inlined, Wrapper: f.Wrapper, Known: true})
		if !f.Inlined {
			break
		}
	}
	switch {
	case len(out) > 0:
	case vdso.Contains(pc):
		out = append(out, Frame{Func: vdso.Name, Known: true}) // the kernel's clock code, outside the image
	default:
		out = append(out, Frame{Func: fmt.Sprintf("%#x", pc)})
	}
	im.frames[k] = out
	return out
}

// Func describes the physical function holding a pc, in run-time addresses.
type Func struct {
	Name       string
	Entry, End uint64 // End includes the padding up to the next function
	ID         uint8  // abi.FuncID
	Flag       symtab.FuncFlag
}

// Func returns the physical function holding pc.
func (im *Image) Func(pc uint64) (Func, bool) {
	f, ok := im.table.FuncAt(uintptr(im.elfAddr(pc)))
	if !ok {
		return Func{}, false
	}
	s := uint64(im.Slide)
	return Func{Name: string(f.Name), Entry: uint64(f.Entry) + s, End: uint64(f.End) + s, ID: f.ID, Flag: f.Flag}, true
}

// CallPC returns, in run-time addresses, where to look up the return address
// ret: inside the call it follows (symtab's CallPC).
func (im *Image) CallPC(ret uint64) uint64 {
	if ret == 0 {
		return 0
	}
	return uint64(im.table.CallPC(uintptr(im.elfAddr(ret)))) + uint64(im.Slide)
}

// SPDelta returns the pclntab SP delta at the instruction pc.
func (im *Image) SPDelta(pc uint64) (int32, bool) {
	return im.table.SPDelta(uintptr(im.elfAddr(pc)))
}

// Code returns the image's bytes for the run-time range [start, end), and
// false when the range is not inside .text.
func (im *Image) Code(start, end uint64) ([]byte, bool) {
	s, e := im.elfAddr(start), im.elfAddr(end)
	if s < im.textAddr || e < s || e-im.textAddr > uint64(len(im.text)) {
		return nil, false
	}
	return im.text[s-im.textAddr : e-im.textAddr], true
}

// CallBefore reports whether the instruction that ends at ra is a call, so
// that ra is a return address. known is false when the image's code is not
// available there.
func (im *Image) CallBefore(ra uint64) (call, known bool) {
	const longest = 15 // an x86 instruction; arm64 needs 4
	start := max(ra-min(ra, longest), im.textAddr+uint64(im.Slide))
	code, ok := im.Code(start, ra)
	if !ok || len(code) == 0 {
		return false, false
	}
	return callEndsAt(im.Arch, code), true
}

// FuncsNamed returns the functions whose symbol name is name or ends in
// "."+name or "/"+name, from the ELF symbol table, sorted by address.
func (im *Image) FuncsNamed(name string) []Func {
	var out []Func
	seen := map[uint64]bool{}
	for _, s := range im.funcs {
		// Assembly functions' ELF names carry their ABI; the pclntab's do not.
		if !nameMatches(strings.TrimSuffix(s.Name, ".abi0"), name) {
			continue
		}
		f, ok := im.Func(s.Value + uint64(im.Slide))
		if ok && !seen[f.Entry] && nameMatches(f.Name, name) {
			seen[f.Entry] = true
			out = append(out, f)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Entry < out[j].Entry })
	return out
}

// nameMatches says whether a symbol name selects the function named by the
// user: the whole name, or its last path element or package-qualified
// suffix ("leaf" and "main.leaf" both select "main.leaf").
func nameMatches(sym, want string) bool {
	if want == "" {
		return false
	}
	if sym == want {
		return true
	}
	return strings.HasSuffix(sym, "."+want) || strings.HasSuffix(sym, "/"+want)
}

// mappingRange returns the run-time text range and its file offset, for
// the pprof Mapping.
func (im *Image) mappingRange() (start, limit, offset uint64) {
	s := uint64(im.Slide)
	return im.textAddr + s, im.textAddr + uint64(len(im.text)) + s, im.textOff
}
