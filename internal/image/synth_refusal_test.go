package image

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"testing"
)

// Offsets into synthImage's headers, as the ELF64 format defines them.
const (
	ehType    = 16
	ehMachine = 18
	phStart   = 64 // program header 0; each is 56 bytes
	phSize    = 56
	goNoteOff = 0x100
)

// renameSection overwrites a section's name in .shstrtab (same length or
// shorter), which is how the tests plant sections the linker never makes.
func renameSection(t *testing.T, data []byte, old, new string) {
	t.Helper()
	i := bytes.Index(data, []byte("\x00"+old+"\x00"))
	if i < 0 || len(new) > len(old) {
		t.Fatalf("cannot rename %s to %s", old, new)
	}
	copy(data[i+1:i+1+len(old)], make([]byte, len(old)))
	copy(data[i+1:], new)
}

func TestSynthImageIsValid(t *testing.T) {
	data := synthImage()
	info, err := Patch(data, synthSpec())
	if err != nil {
		t.Fatal(err)
	}
	if !info.PVH || info.Entry != 0x1001a0 || info.NoteDesc != 83 || len(info.BuildID) != 20 {
		t.Fatalf("info %+v", info)
	}
}

func TestSynthRefusals(t *testing.T) {
	le := binary.LittleEndian
	tests := []struct {
		name   string
		mutate func(t *testing.T, b []byte) []byte
		want   error
	}{
		{"empty", func(t *testing.T, b []byte) []byte { return nil }, ErrNotELF},
		{"text file", func(t *testing.T, b []byte) []byte { return []byte("#!/bin/sh\necho hi\n") }, ErrNotELF},
		{"truncated", func(t *testing.T, b []byte) []byte { return b[:40] }, ErrNotELF},
		{"ELF32", func(t *testing.T, b []byte) []byte { b[elf.EI_CLASS] = byte(elf.ELFCLASS32); return b }, ErrNotELF64},
		{"big endian", func(t *testing.T, b []byte) []byte { b[elf.EI_DATA] = byte(elf.ELFDATA2MSB); return b }, ErrNotELF64},
		{"wrong machine", func(t *testing.T, b []byte) []byte { le.PutUint16(b[ehMachine:], uint16(elf.EM_386)); return b }, ErrWrongMachine},
		{"PIE", func(t *testing.T, b []byte) []byte { le.PutUint16(b[ehType:], uint16(elf.ET_DYN)); return b }, ErrNotStatic},
		{"interpreter", func(t *testing.T, b []byte) []byte {
			le.PutUint32(b[phStart+phSize:], uint32(elf.PT_INTERP)) // was the PT_NOTE
			return b
		}, ErrNotStatic},
		{"dynamic section", func(t *testing.T, b []byte) []byte {
			le.PutUint32(b[phStart+phSize:], uint32(elf.PT_DYNAMIC))
			return b
		}, ErrNotStatic},
		{"gcc comment", func(t *testing.T, b []byte) []byte { renameSection(t, b, ".strtab", ".init"); return b }, ErrExternalLink},
		{"libc note", func(t *testing.T, b []byte) []byte {
			renameSection(t, b, ".note.gnu.build-id", ".note.ABI-tag")
			return b
		}, ErrExternalLink},
		{"cgo symbol", func(t *testing.T, b []byte) []byte {
			i := bytes.Index(b, []byte(synthEntry))
			copy(b[i:], "x_cgo_init\x00")
			return b
		}, ErrExternalLink},
		{"first load elsewhere", func(t *testing.T, b []byte) []byte {
			le.PutUint64(b[phStart+16:], 0x400000)
			le.PutUint64(b[phStart+24:], 0x400000)
			return b
		}, ErrLoadAddress},
		{"physical address elsewhere", func(t *testing.T, b []byte) []byte { le.PutUint64(b[phStart+24:], 0); return b }, ErrLoadAddress},
		{"no load segment", func(t *testing.T, b []byte) []byte { le.PutUint32(b[phStart:], uint32(elf.PT_NULL)); return b }, ErrLoadAddress},
		{"entry symbol missing", func(t *testing.T, b []byte) []byte {
			i := bytes.Index(b, []byte(synthEntry))
			b[i+len(synthEntry)-1] = 'X'
			return b
		}, ErrNoEntrySymbol},
		{"e_entry elsewhere", func(t *testing.T, b []byte) []byte { le.PutUint64(b[24:], 0x101000); return b }, ErrEntryMismatch},
		{"no Go note", func(t *testing.T, b []byte) []byte {
			renameSection(t, b, ".note.go.buildid", ".note.go.xuildid")
			return b
		}, ErrNoGoNote},
		{"foreign note", func(t *testing.T, b []byte) []byte { le.PutUint32(b[goNoteOff+8:], 1); return b }, ErrNoGoNote},
		{"note name too long", func(t *testing.T, b []byte) []byte { le.PutUint32(b[goNoteOff:], 8); return b }, ErrNoGoNote},
		{"note descriptor too small", func(t *testing.T, b []byte) []byte { le.PutUint32(b[goNoteOff+4:], 4); return b }, ErrNoteTooSmall},
		{"note descriptor past the section", func(t *testing.T, b []byte) []byte { le.PutUint32(b[goNoteOff+4:], 200); return b }, ErrNoteTooSmall},
		{"note section too small", func(t *testing.T, b []byte) []byte {
			sec := sectionHeader(b, 1)
			le.PutUint64(sec[32:], 20)
			return b
		}, ErrNoteTooSmall},
		{"no PT_NOTE", func(t *testing.T, b []byte) []byte { le.PutUint32(b[phStart+phSize:], uint32(elf.PT_NULL)); return b }, ErrNoteNotInSegment},
		{"PT_NOTE too short", func(t *testing.T, b []byte) []byte { le.PutUint64(b[phStart+phSize+32:], 16); return b }, ErrNoteNotInSegment},
		{"no GNU build id", func(t *testing.T, b []byte) []byte {
			renameSection(t, b, ".note.gnu.build-id", ".note.gnu.xuild-id")
			return b
		}, ErrNoGNUBuildID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := tt.mutate(t, synthImage())
			before := bytes.Clone(data)
			_, err := Patch(data, synthSpec())
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if !bytes.Equal(before, data) {
				t.Error("a refused image was modified")
			}
		})
	}
}

// sectionHeader returns the bytes of section header i.
func sectionHeader(b []byte, i int) []byte {
	off := binary.LittleEndian.Uint64(b[40:])
	return b[off+uint64(64*i):]
}
