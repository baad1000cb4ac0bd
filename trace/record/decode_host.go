package record

// Host-only code: the decoder allocates and returns errors through
// interfaces, so it breaks the kernel-mode rules on purpose. The guest never
// calls anything in a *_host.go file; kernel-mode checks may skip them.

import (
	"errors"
	"fmt"
	"io"
)

// Sentinel causes of a *FormatError.
var (
	ErrTruncated  = errors.New("record extends past the end of the data")
	ErrBadSize    = errors.New("record size is not a multiple of 8 or is smaller than the header")
	ErrStackSize  = errors.New("stack does not fit in the record")
	ErrShortFixed = errors.New("fixed-schema record has too few arguments")
)

// FormatError reports a malformed record at a byte offset.
type FormatError struct {
	Offset int64 // of the record's first byte, in the caller's coordinates
	Err    error // one of the sentinels above
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("record at offset %d: %v", e.Offset, e.Err)
}

func (e *FormatError) Unwrap() error { return e.Err }

// Decoder walks a run of whole records, such as the records of a DATA
// payload or a ring snapshot. PAD records are skipped. It never panics; after
// the first malformed record it returns that error and then io.EOF, because a
// bad size leaves no way to find the next record.
type Decoder struct {
	data []byte
	off  int
	base int64
	err  error
}

// NewDecoder decodes data; base is the offset of data[0] in the caller's
// coordinates (a file offset), used in Record.Offset and FormatError.Offset.
func NewDecoder(data []byte, base int64) *Decoder {
	return &Decoder{data: data, base: base}
}

// Next returns the next record, io.EOF after the last one, or a
// *FormatError.
func (d *Decoder) Next() (Record, error) {
	for {
		if d.err != nil {
			return Record{}, io.EOF
		}
		if d.off >= len(d.data) {
			return Record{}, io.EOF
		}
		r, n, err := decodeOne(d.data[d.off:])
		if err != nil {
			d.err = err
			return Record{}, &FormatError{Offset: d.base + int64(d.off), Err: err}
		}
		r.Offset = d.base + int64(d.off)
		d.off += n
		if r.TPID == TPPad {
			continue
		}
		return r, nil
	}
}

// decodeOne decodes the record at the start of b and returns its size.
func decodeOne(b []byte) (Record, int, error) {
	if len(b) < PadMinSize {
		return Record{}, 0, ErrTruncated
	}
	size := int(get16(b, OffSize))
	id := TPID(get16(b, OffTPID))
	if size%Align != 0 || size < PadMinSize {
		return Record{}, 0, ErrBadSize
	}
	if size > len(b) {
		return Record{}, 0, ErrTruncated
	}
	if id == TPPad {
		return Record{Header: Header{Size: uint16(size), TPID: TPPad}, Raw: b[:size]}, size, nil
	}
	if size < HeaderSize {
		return Record{}, 0, ErrBadSize
	}
	h := Header{
		Size:    uint16(size),
		TPID:    id,
		Flags:   Flags(b[OffFlags]),
		NFrames: b[OffNFrames],
		CPU:     get16(b, OffCPU),
		TS:      get64(b, OffTS),
		TID:     get32(b, OffTID),
		Seq:     get32(b, OffSeq),
	}
	nargs := h.NArgs()
	if nargs < 0 {
		return Record{}, 0, ErrStackSize
	}
	if min, fixed := FixedArgs(id); fixed && nargs < min {
		return Record{}, 0, ErrShortFixed
	}
	words := make([]uint64, nargs+int(h.NFrames))
	for i := range words {
		words[i] = get64(b, HeaderSize+SlotSize*i)
	}
	return Record{Header: h, Args: words[:nargs:nargs], Stack: words[nargs:], Raw: b[:size]}, size, nil
}
