package record

// Header is a record's fixed 24-byte header. It holds no pointers, so the
// guest can build one on the stack in interrupt context.
type Header struct {
	Size    uint16
	TPID    TPID
	Flags   Flags
	NFrames uint8
	CPU     uint16
	TS      uint64
	TID     uint32
	Seq     uint32
}

// NArgs returns the number of argument slots the header's size implies, or
// -1 if the size cannot hold the header and stack.
func (h *Header) NArgs() int {
	n := int(h.Size) - HeaderSize - SlotSize*int(h.NFrames)
	if n < 0 || n%SlotSize != 0 {
		return -1
	}
	return n / SlotSize
}

// Size returns the size of a record with nargs slots and nframes stack words,
// or 0 if it cannot be encoded (negative counts, more than MaxFrames frames,
// larger than MaxSize).
//
//go:nosplit
func Size(nargs, nframes int) int {
	if nargs < 0 || nframes < 0 || nframes > MaxFrames || nargs > MaxSize/SlotSize {
		return 0
	}
	n := HeaderSize + SlotSize*(nargs+nframes)
	if n > MaxSize {
		return 0
	}
	return n
}

// PutHeader writes h at the start of b. It fails if b is shorter than
// h.Size, h.Size is not a valid record size or the stack does not fit.
//
//go:nosplit
func PutHeader(b []byte, h Header) bool {
	if int(h.Size) < HeaderSize || h.Size%Align != 0 || len(b) < int(h.Size) ||
		HeaderSize+SlotSize*int(h.NFrames) > int(h.Size) {
		return false
	}
	put16(b, OffSize, h.Size)
	put16(b, OffTPID, uint16(h.TPID))
	b[OffFlags] = byte(h.Flags)
	b[OffNFrames] = h.NFrames
	put16(b, OffCPU, h.CPU)
	put64(b, OffTS, h.TS)
	put32(b, OffTID, h.TID)
	put32(b, OffSeq, h.Seq)
	return true
}

// PutArg writes argument slot i of the record at the start of b, whose
// header is already written. It fails if slot i is outside the args.
//
//go:nosplit
func PutArg(b []byte, i int, v uint64) bool {
	off, ok := argOffset(b, i, 1)
	if !ok {
		return false
	}
	put64(b, off, v)
	return true
}

// PutString writes s into StrSlots slots starting at slot i, NUL-padded and
// cut to StrBytes. It returns ok=false if the slots are outside the args
// (nothing is written), and truncated=true if s was cut: the caller then sets
// ArgsTrunc.
//
//go:nosplit
func PutString(b []byte, i int, s string) (ok, truncated bool) {
	off, ok := argOffset(b, i, StrSlots)
	if !ok {
		return false, false
	}
	n := len(s)
	if n > StrBytes {
		n = StrBytes
		truncated = true
	}
	for j := 0; j < StrBytes; j++ {
		var c byte
		if j < n {
			c = s[j]
		}
		b[off+j] = c
	}
	return true, truncated
}

// PutFrame writes stack word j of the record at the start of b, whose
// header is already written.
//
//go:nosplit
func PutFrame(b []byte, j int, pc uint64) bool {
	if len(b) < HeaderSize {
		return false
	}
	size := int(get16(b, OffSize))
	nframes := int(b[OffNFrames])
	if j < 0 || j >= nframes || size > len(b) || size < HeaderSize+SlotSize*nframes {
		return false
	}
	put64(b, size-SlotSize*(nframes-j), pc)
	return true
}

// argOffset returns the byte offset of n slots starting at slot i, checked
// against the header already written at the start of b.
//
//go:nosplit
func argOffset(b []byte, i, n int) (int, bool) {
	if len(b) < HeaderSize || i < 0 {
		return 0, false
	}
	size := int(get16(b, OffSize))
	nframes := int(b[OffNFrames])
	end := size - SlotSize*nframes // end of the args
	if size > len(b) || end < HeaderSize || i > (end-HeaderSize)/SlotSize-n {
		return 0, false
	}
	return HeaderSize + SlotSize*i, true
}

// EncodePad fills all of b with PAD records (several if b is longer than
// MaxSize) and returns len(b), or 0 if len(b) is not a multiple of Align.
// Only the size and tpid of a PAD are meaningful; the rest is left as is.
//
//go:nosplit
func EncodePad(b []byte) int {
	if len(b)%Align != 0 {
		return 0
	}
	for off := 0; off < len(b); {
		n := len(b) - off
		if n > MaxSize {
			n = MaxSize // the rest is a multiple of Align, so >= PadMinSize
		}
		put16(b, off+OffSize, uint16(n))
		put16(b, off+OffTPID, uint16(TPPad))
		off += n
	}
	return len(b)
}
