// Package imageid is the contract between the image builder and the guest about the image's
// identity. The guest reports its GNU build id in HELLO so the host can check that it
// symbolizes with the right ELF file. The id's note sits in the page the amd64 boot code uses
// as its scratch stack, so the guest cannot read it there; instead the builder, after linking,
// finds the slot variable by its symbol and writes the id into it.
package imageid

// Symbol is the linker symbol of the slot (a Slot in the image's data).
const Symbol = "github.com/unitrace/unitrace/trace.imageBuildID"

// Magic is what an unfilled slot starts with, Filled what a filled one starts with.
const (
	Magic  = "unitrace:buildid"
	Filled = "unitrace:filled:"
	MaxID  = 64 // bytes of id the slot holds
)

// Slot is the slot's layout: a marker, the id's length, the id.
type Slot struct {
	Marker [16]byte
	Len    uint8
	ID     [MaxID]byte
}

// Size is the slot's size in bytes: what the builder overwrites.
const Size = 16 + 1 + MaxID

// Fill writes id into slot, a Size-byte slice of the image holding an unfilled or filled slot.
// It returns false if slot is not one or id is too long.
func Fill(slot, id []byte) bool {
	if len(slot) < Size || len(id) > MaxID || (string(slot[:16]) != Magic && string(slot[:16]) != Filled) {
		return false
	}
	copy(slot, Filled)
	slot[16] = uint8(len(id))
	clear(slot[17:Size])
	copy(slot[17:], id)
	return true
}

// Read returns the id in a filled slot, or nil.
func (s *Slot) Read() []byte {
	if string(s.Marker[:]) != Filled || int(s.Len) > MaxID {
		return nil
	}
	return s.ID[:s.Len]
}
