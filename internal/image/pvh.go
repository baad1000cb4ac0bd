package image

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"

	"github.com/unitrace/unitrace/goroutines"
	"github.com/unitrace/unitrace/kernel/vdso"
	"github.com/unitrace/unitrace/trace/imageid"
)

// Patch checks data as Inspect does and, when spec asks for it, rewrites the
// Go build-id note in place into the PVH entry note QEMU looks for
// (XEN_ELFNOTE_PHYS32_ENTRY). The note keeps its size, so no other byte of
// the file moves: n_namesz stays 4 with the name "Xen\0", n_type becomes 18
// and the descriptor becomes the entry address (little-endian, 8 bytes)
// followed by zeros. Patching a patched image is a no-op.
//
// It also writes the GNU build ID into the guest's build-id slot, and lays the vDSO out in the
// kernel's vDSO slot from the kernel's own code, and fills the kernel's goroutine-layout slot
// from the image's DWARF, when the image has them.
func Patch(data []byte, spec Spec) (Info, error) {
	info, err := Inspect(data, spec)
	if err != nil {
		return info, err
	}
	if info.IDSlot >= 0 && !imageid.Fill(data[info.IDSlot:info.IDSlot+imageid.Size], info.BuildID) {
		return info, fmt.Errorf("%w: a build id of %d bytes does not fit", ErrBadIDSlot, len(info.BuildID))
	}
	if info.VDSOSlot >= 0 || info.GoLayoutSlot >= 0 {
		f, err := elf.NewFile(bytes.NewReader(data))
		if err != nil {
			return info, fmt.Errorf("%w: %v", ErrNotELF, err)
		}
		if info.VDSOSlot >= 0 {
			if err := fillVDSO(f, data, info.VDSOSlot, spec.Arch); err != nil {
				return info, err
			}
		}
		if info.GoLayoutSlot >= 0 {
			info.GoLayoutRefused = fillGoLayout(f, data, info.GoLayoutSlot)
		}
	}
	if !spec.PVHNote {
		return info, nil
	}
	note := data[info.NoteOffset:]
	binary.LittleEndian.PutUint32(note[8:], pvhNoteType)
	copy(note[noteHeaderSize:], pvhNoteName)
	desc := note[noteHeaderSize+noteNameSize : noteHeaderSize+noteNameSize+info.NoteDesc]
	clear(desc)
	binary.LittleEndian.PutUint64(desc, info.Entry)
	info.PVH = true
	return info, nil
}

// PatchFile applies Patch to the file at path. The file is rewritten only if
// it is valid; an invalid file is left as it was.
func PatchFile(path string, spec Spec) (Info, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Info{}, err
	}
	info, err := Patch(data, spec)
	if err != nil {
		return info, fmt.Errorf("%s: %w", path, err)
	}
	// Only the note's and the slots' bytes changed: write just those.
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return info, err
	}
	if spec.PVHNote {
		end := info.NoteOffset + noteHeaderSize + noteNameSize + int64(info.NoteDesc)
		if _, err := f.WriteAt(data[info.NoteOffset:end], info.NoteOffset); err != nil {
			f.Close()
			return info, err
		}
	}
	if info.IDSlot >= 0 {
		if _, err := f.WriteAt(data[info.IDSlot:info.IDSlot+imageid.Size], info.IDSlot); err != nil {
			f.Close()
			return info, err
		}
	}
	if info.VDSOSlot >= 0 {
		if _, err := f.WriteAt(data[info.VDSOSlot:info.VDSOSlot+vdso.PageSize], info.VDSOSlot); err != nil {
			f.Close()
			return info, err
		}
	}
	if info.GoLayoutSlot >= 0 {
		if _, err := f.WriteAt(data[info.GoLayoutSlot:info.GoLayoutSlot+goroutines.SlotSize], info.GoLayoutSlot); err != nil {
			f.Close()
			return info, err
		}
	}
	return info, f.Close()
}
