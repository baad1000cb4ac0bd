package tracefile

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/unitrace/unitrace/kernel/vdso"

	"github.com/unitrace/unitrace/symtab"
	"github.com/unitrace/unitrace/trace/wire"
)

// Image is the ELF that produced a recording, opened for symbolization.
type Image struct {
	Path    string
	BuildID []byte // GNU build id, nil if the ELF has none
	Text    uint64 // runtime.text
	table   symtab.Table
	pclntab []byte // kept so the table's slices stay valid
	slide   int64  // run-time text start minus the ELF's, from HELLO
}

// ErrBuildID is the cause of the error for an image whose GNU build id is not
// the one in the recording's HELLO.
var ErrBuildID = errors.New("image build id does not match the recording")

// OpenImage reads the pclntab, text start and GNU build id of an ELF.
func OpenImage(path string) (*Image, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	im := &Image{Path: path, BuildID: gnuBuildID(f)}
	sec := f.Section(".gopclntab")
	if sec == nil {
		return nil, fmt.Errorf("%s: no .gopclntab section: not a Go image", path)
	}
	if im.pclntab, err = sec.Data(); err != nil {
		return nil, fmt.Errorf("%s: reading .gopclntab: %w", path, err)
	}
	if text := f.Section(".text"); text != nil {
		im.Text = text.Addr
	}
	if syms, err := f.Symbols(); err == nil {
		for _, s := range syms {
			if s.Name == "runtime.text" {
				im.Text = s.Value
				break
			}
		}
	}
	if im.Text == 0 {
		return nil, fmt.Errorf("%s: no runtime.text symbol and no .text section", path)
	}
	tab, ok := symtab.New(im.pclntab, uintptr(im.Text))
	if !ok {
		return nil, fmt.Errorf("%s: .gopclntab is not a pclntab this tool can read", path)
	}
	im.table = tab
	return im, nil
}

// gnuBuildID returns the descriptor of the first NT_GNU_BUILD_ID note in
// the ELF's note sections.
func gnuBuildID(f *elf.File) []byte {
	const ntGNUBuildID = 3
	for _, s := range f.Sections {
		if s.Type != elf.SHT_NOTE {
			continue
		}
		b, err := s.Data()
		if err != nil {
			continue
		}
		for len(b) >= 12 {
			namesz := binary.LittleEndian.Uint32(b[0:])
			descsz := binary.LittleEndian.Uint32(b[4:])
			typ := binary.LittleEndian.Uint32(b[8:])
			nameEnd := 12 + align4(uint64(namesz))
			descEnd := nameEnd + align4(uint64(descsz))
			if nameEnd+uint64(descsz) > uint64(len(b)) {
				break
			}
			name := b[12 : 12+namesz]
			if typ == ntGNUBuildID && bytes.Equal(name, []byte("GNU\x00")) {
				return bytes.Clone(b[nameEnd : nameEnd+uint64(descsz)])
			}
			if descEnd > uint64(len(b)) {
				break
			}
			b = b[descEnd:]
		}
	}
	return nil
}

func align4(n uint64) uint64 { return (n + 3) &^ 3 }

// Check compares the image with the recording's HELLO: it returns an error
// wrapping ErrBuildID when the GNU build ids differ (or the image has none),
// and otherwise adopts HELLO's text start, in case the guest was relocated.
func (im *Image) Check(h *wire.Hello) error {
	if h == nil {
		return errors.New("the recording has no HELLO frame: cannot tell which image produced it")
	}
	if !bytes.Equal(im.BuildID, h.BuildID) {
		return fmt.Errorf("%s has GNU build id %q, the recording's HELLO says %q: %w (rebuild the recording or pass the right -elf; -force symbolizes anyway)",
			im.Path, BuildIDHex(im.BuildID), BuildIDHex(h.BuildID), ErrBuildID)
	}
	im.Adopt(h)
	return nil
}

// Adopt takes the text start from HELLO without checking the build id.
func (im *Image) Adopt(h *wire.Hello) {
	if h != nil && h.TextStart != 0 {
		im.slide = int64(h.TextStart - im.Text)
	}
}

// Frame is one symbolized frame; a pc in inlined code gives several, the
// innermost first.
type Frame struct {
	PC      uint64 // the stack word
	Func    string // "?" when no function holds the pc
	File    string
	Line    int
	Inlined bool // inlined into the next frame
}

// Frames symbolizes one stack word. exact says the pc is the faulting or
// sampled instruction itself (PC0_EXACT); every other word is a return
// address and is looked up at pc-1, inside the call instruction (symtab's
// CallPC: at pc itself when it is a function's entry, which follows no call).
func (im *Image) Frames(pc uint64, exact bool) []Frame {
	look := pc - uint64(im.slide)
	if !exact {
		look = uint64(im.table.CallPC(uintptr(look)))
	}
	var out []Frame
	for depth := 0; ; depth++ {
		f, ok := im.table.InlinedAt(uintptr(look), depth)
		if !ok {
			break
		}
		out = append(out, Frame{PC: pc, Func: string(f.Name), File: string(f.File), Line: int(f.Line), Inlined: f.Inlined})
		if !f.Inlined {
			break
		}
	}
	if len(out) == 0 {
		name := "?"
		if vdso.Contains(pc) {
			name = vdso.Name // the kernel's clock code, outside the image
		}
		out = append(out, Frame{PC: pc, Func: name})
	}
	return out
}

// OpenFor opens the image that produced a recording: path when it is not
// empty, else the image the HOST frame names. Unless force is set, it
// refuses an image whose build id differs from HELLO's.
func OpenFor(path string, host *Host, hello *wire.Hello, force bool) (*Image, error) {
	if path == "" {
		if host == nil || host.Image == "" {
			return nil, errors.New("the recording does not name its image (no HOST frame): pass -elf IMAGE")
		}
		path = host.Image
	}
	im, err := OpenImage(path)
	if err != nil {
		return nil, err
	}
	if force {
		im.Adopt(hello)
		return im, nil
	}
	if err := im.Check(hello); err != nil {
		return nil, err
	}
	return im, nil
}

// ReadBuildID returns the GNU build id of an ELF, nil if it has none.
func ReadBuildID(path string) ([]byte, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return gnuBuildID(f), nil
}
