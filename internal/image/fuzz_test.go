package image

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// FuzzPatch feeds arbitrary files to the builder's checks: they must refuse
// or accept without panicking, and whatever they accept must come out as a
// well-formed PVH image that a second Patch leaves unchanged.
func FuzzPatch(f *testing.F) {
	valid := synthImage()
	f.Add(valid)
	f.Add(valid[:0x100])
	f.Add([]byte("\x7fELF"))
	patched := bytes.Clone(valid)
	if _, err := Patch(patched, synthSpec()); err != nil {
		f.Fatal(err)
	}
	f.Add(patched)
	f.Fuzz(func(t *testing.T, data []byte) {
		spec := synthSpec()
		info, err := Patch(data, spec)
		if err != nil {
			return
		}
		note := data[info.NoteOffset:]
		if string(note[12:16]) != "Xen\x00" || binary.LittleEndian.Uint32(note[8:]) != pvhNoteType ||
			binary.LittleEndian.Uint64(note[16:]) != info.Entry {
			t.Fatalf("accepted image has note %x", note[:24])
		}
		again := bytes.Clone(data)
		if _, err := Patch(again, spec); err != nil || !bytes.Equal(again, data) {
			t.Fatalf("second patch: %v, changed %v", err, !bytes.Equal(again, data))
		}
	})
}
