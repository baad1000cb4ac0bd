package image

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
)

// Reasons the builder refuses an ELF file. Errors returned by Inspect and
// Patch wrap exactly one of them, with the details in the message.
var (
	ErrNotELF           = errors.New("not an ELF file")
	ErrNotELF64         = errors.New("not a little-endian 64-bit ELF file")
	ErrWrongMachine     = errors.New("wrong machine")
	ErrNotStatic        = errors.New("not a statically linked executable")
	ErrExternalLink     = errors.New("linked by an external linker")
	ErrNoGoNote         = errors.New("no .note.go.buildid note")
	ErrNoteTooSmall     = errors.New(".note.go.buildid is too small for the PVH entry note")
	ErrBadIDSlot        = errors.New("the build-id slot is not what the tracer declares")
	ErrNoteNotInSegment = errors.New(".note.go.buildid is outside every PT_NOTE segment")
	ErrNoEntrySymbol    = errors.New("entry symbol missing")
	ErrEntryMismatch    = errors.New("ELF entry point is not the entry symbol")
	ErrLoadAddress      = errors.New("first PT_LOAD segment at the wrong address")
	ErrNoGNUBuildID     = errors.New("no GNU build-id note")
)

// Note types and names this package reads or writes.
const (
	goNoteSection  = ".note.go.buildid"
	gnuNoteSection = ".note.gnu.build-id"
	goNoteType     = 4  // ELF_NOTE_GOBUILDID_TAG (cmd/link)
	gnuBuildIDType = 3  // NT_GNU_BUILD_ID
	pvhNoteType    = 18 // XEN_ELFNOTE_PHYS32_ENTRY
	noteHeaderSize = 12 // n_namesz, n_descsz, n_type
	noteNameSize   = 4  // "Go\0\0", "Xen\0" and "GNU\0" all take 4 bytes
	pvhEntrySize   = 8  // QEMU reads the PVH desc as a size_t on ELF64
)

var (
	goNoteName  = []byte("Go\x00\x00")
	pvhNoteName = []byte("Xen\x00")
	gnuNoteName = []byte("GNU\x00")
)

// Info describes a valid image.
type Info struct {
	Entry       uint64 // e_entry, the address of the entry symbol
	EntrySymbol string // the symbol table's name for it (may end in .abi0)
	LoadAddr    uint64 // address of the first PT_LOAD
	NoteOffset  int64  // file offset of the .note.go.buildid note header
	NoteDesc    int    // size of that note's descriptor in bytes
	PVH         bool   // the note already is the PVH entry note
	BuildID     []byte // the GNU build ID: the image's identity
	IDSlot      int64  // file offset of the guest's build-id slot (package imageid), -1 if none
	VDSOSlot    int64  // file offset of the kernel's vDSO slot (kernel/vdso.Slot), -1 if none
	// GoLayoutSlot is the file offset of the kernel's goroutine-layout slot (package
	// goroutines), -1 if none; GoLayoutRefused, after Patch, why the builder could not fill
	// it ("" when it did): the kernel then refuses to sweep the goroutines.
	GoLayoutSlot    int64
	GoLayoutRefused string
}

// Inspect checks that data is an image for spec and describes it. It never
// modifies data.
func Inspect(data []byte, spec Spec) (Info, error) {
	var info Info
	if len(data) < 4 || !bytes.Equal(data[:4], []byte(elf.ELFMAG)) {
		return info, ErrNotELF
	}
	if len(data) > elf.EI_DATA && (elf.Class(data[elf.EI_CLASS]) != elf.ELFCLASS64 || elf.Data(data[elf.EI_DATA]) != elf.ELFDATA2LSB) {
		return info, fmt.Errorf("%w: it is %v, %v", ErrNotELF64, elf.Class(data[elf.EI_CLASS]), elf.Data(data[elf.EI_DATA]))
	}
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		return info, fmt.Errorf("%w: %v", ErrNotELF, err)
	}
	if f.Class != elf.ELFCLASS64 || f.Data != elf.ELFDATA2LSB {
		return info, fmt.Errorf("%w: it is %v, %v", ErrNotELF64, f.Class, f.Data)
	}
	if f.Machine != spec.Machine {
		return info, fmt.Errorf("%w: the file is for %v, %s needs %v", ErrWrongMachine, f.Machine, spec.Arch, spec.Machine)
	}
	if err := checkStatic(f); err != nil {
		return info, err
	}
	if err := checkInternalLink(f); err != nil {
		return info, err
	}
	if info.LoadAddr, err = checkFirstLoad(f, spec); err != nil {
		return info, err
	}
	if info.EntrySymbol, info.Entry, err = checkEntry(f, spec); err != nil {
		return info, err
	}
	if err := inspectGoNote(f, data, &info); err != nil {
		return info, err
	}
	if info.BuildID, err = gnuBuildID(f, data); err != nil {
		return info, err
	}
	if info.IDSlot, err = findIDSlot(f, data); err != nil {
		return info, err
	}
	if info.VDSOSlot, err = findVDSOSlot(f, data); err != nil {
		return info, err
	}
	if info.GoLayoutSlot, err = findGoLayoutSlot(f, data); err != nil {
		return info, err
	}
	return info, nil
}

func checkStatic(f *elf.File) error {
	if f.Type != elf.ET_EXEC {
		return fmt.Errorf("%w: ELF type is %v, want ET_EXEC (no PIE, no shared objects)", ErrNotStatic, f.Type)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			return fmt.Errorf("%w: it has a %v segment (build with CGO_ENABLED=0 and no -linkmode=external)", ErrNotStatic, p.Type)
		}
	}
	return nil
}

// Traces an external (C) linker and libc leave that Go's internal linker
// never produces.
var (
	externalSections = []string{".interp", ".dynamic", ".init", ".fini", ".comment", ".note.ABI-tag", ".note.gnu.property"}
	externalSymbols  = []string{"x_cgo_init", "__libc_start_main", "_start"} // the runtime itself defines _cgo_init
)

func checkInternalLink(f *elf.File) error {
	for _, name := range externalSections {
		if f.Section(name) != nil {
			return fmt.Errorf("%w: it has a %s section (only Go's internal linker is supported)", ErrExternalLink, name)
		}
	}
	syms, _ := f.Symbols() // a missing table is reported by checkEntry
	for _, s := range syms {
		for _, name := range externalSymbols {
			if s.Name == name {
				return fmt.Errorf("%w: it defines %s (cgo or libc start-up code)", ErrExternalLink, name)
			}
		}
	}
	return nil
}

func checkFirstLoad(f *elf.File, spec Spec) (uint64, error) {
	want := spec.LoadAddr()
	for _, p := range f.Progs {
		if p.Type != elf.PT_LOAD {
			continue
		}
		if p.Vaddr != want || p.Paddr != want {
			return 0, fmt.Errorf("%w: it starts at vaddr %#x paddr %#x, want %#x (link with -T %#x -R %#x)",
				ErrLoadAddress, p.Vaddr, p.Paddr, want, spec.TextAddr, spec.Rounding)
		}
		return want, nil
	}
	return 0, fmt.Errorf("%w: the file has no PT_LOAD segment", ErrLoadAddress)
}

func checkEntry(f *elf.File, spec Spec) (string, uint64, error) {
	syms, err := f.Symbols()
	if err != nil {
		return "", 0, fmt.Errorf("%w: no symbol table (%v); never strip an image (-s -w)", ErrNoEntrySymbol, err)
	}
	for _, s := range syms {
		// An assembly function that also has a Go declaration appears
		// as name.abi0 next to a Go-ABI wrapper called name; -E names
		// the ABI0 one.
		if s.Name != spec.EntrySymbol && s.Name != spec.EntrySymbol+".abi0" {
			continue
		}
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Value != f.Entry {
			continue
		}
		if spec.PVHNote && f.Entry >= 1<<32 {
			return "", 0, fmt.Errorf("%w: the PVH entry %#x is above 4 GiB", ErrEntryMismatch, f.Entry)
		}
		return s.Name, f.Entry, nil
	}
	for _, s := range syms {
		if s.Name == spec.EntrySymbol || s.Name == spec.EntrySymbol+".abi0" {
			return "", 0, fmt.Errorf("%w: e_entry is %#x but %s is at %#x (link with -E %s)",
				ErrEntryMismatch, f.Entry, s.Name, s.Value, spec.EntrySymbol)
		}
	}
	return "", 0, fmt.Errorf("%w: %s is not in the symbol table; does the program import %s?",
		ErrNoEntrySymbol, spec.EntrySymbol, KernelImportPath)
}

// inspectGoNote finds the note the PVH rewrite reuses and checks that QEMU
// will see it: it must lie in a PT_NOTE segment, which is what QEMU scans.
func inspectGoNote(f *elf.File, data []byte, info *Info) error {
	s := f.Section(goNoteSection)
	if s == nil || s.Type != elf.SHT_NOTE {
		return fmt.Errorf("%w: build with the Go build ID kept (never -ldflags=-buildid=)", ErrNoGoNote)
	}
	off, size := s.Offset, s.FileSize
	if off > uint64(len(data)) || size > uint64(len(data))-off {
		return fmt.Errorf("%w: the section lies past the end of the file", ErrNoGoNote)
	}
	if size < noteHeaderSize+noteNameSize+pvhEntrySize {
		return fmt.Errorf("%w: the section has %d bytes", ErrNoteTooSmall, size)
	}
	note := data[off : off+size]
	namesz := binary.LittleEndian.Uint32(note[0:])
	descsz := binary.LittleEndian.Uint32(note[4:])
	typ := binary.LittleEndian.Uint32(note[8:])
	name := note[noteHeaderSize : noteHeaderSize+noteNameSize]
	switch {
	case namesz == noteNameSize && typ == goNoteType && bytes.Equal(name, goNoteName):
	case namesz == noteNameSize && typ == pvhNoteType && bytes.Equal(name, pvhNoteName):
		info.PVH = true
	default:
		return fmt.Errorf("%w: the section holds a note named %q of type %d", ErrNoGoNote, name, typ)
	}
	if descsz < pvhEntrySize || uint64(descsz) > size-noteHeaderSize-noteNameSize {
		return fmt.Errorf("%w: descriptor of %d bytes in a %d-byte section", ErrNoteTooSmall, descsz, size)
	}
	if !inNoteSegment(f, off, noteHeaderSize+noteNameSize+uint64(descsz)) {
		return fmt.Errorf("%w: file range %#x+%#x", ErrNoteNotInSegment, off, size)
	}
	info.NoteOffset, info.NoteDesc = int64(off), int(descsz)
	return nil
}

func inNoteSegment(f *elf.File, off, size uint64) bool {
	for _, p := range f.Progs {
		if p.Type == elf.PT_NOTE && off >= p.Off && off-p.Off <= p.Filesz && size <= p.Filesz-(off-p.Off) {
			return true
		}
	}
	return false
}

func gnuBuildID(f *elf.File, data []byte) ([]byte, error) {
	s := f.Section(gnuNoteSection)
	if s == nil {
		return nil, fmt.Errorf("%w: link with -B gobuildid", ErrNoGNUBuildID)
	}
	off, size := s.Offset, s.FileSize
	if off > uint64(len(data)) || size > uint64(len(data))-off || size < noteHeaderSize+noteNameSize {
		return nil, fmt.Errorf("%w: malformed %s section", ErrNoGNUBuildID, gnuNoteSection)
	}
	note := data[off : off+size]
	descsz := uint64(binary.LittleEndian.Uint32(note[4:]))
	if binary.LittleEndian.Uint32(note[0:]) != noteNameSize || binary.LittleEndian.Uint32(note[8:]) != gnuBuildIDType ||
		!bytes.Equal(note[noteHeaderSize:noteHeaderSize+noteNameSize], gnuNoteName) ||
		descsz == 0 || descsz > size-noteHeaderSize-noteNameSize {
		return nil, fmt.Errorf("%w: malformed %s note", ErrNoGNUBuildID, gnuNoteSection)
	}
	start := uint64(noteHeaderSize + noteNameSize)
	return bytes.Clone(note[start : start+descsz]), nil
}
