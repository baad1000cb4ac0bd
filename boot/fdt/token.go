package fdt

// Structure block tokens (spec 5.4.1), big-endian words.
const (
	tokBeginNode = 0x1
	tokEndNode   = 0x2
	tokProp      = 0x3
	tokNop       = 0x4
	tokEnd       = 0x9
)

// Span is Len bytes at offset Off of the blob: where a property value, a
// name or the command line lies. It holds no pointer, so a Machine that
// holds Spans can live in a global.
type Span struct {
	Off, Len uint32
}

// Bytes is the span's bytes in blob, a view that aliases it, or nil if the
// span does not lie inside blob (a span from another blob).
func (s Span) Bytes(blob []byte) []byte {
	end := uint64(s.Off) + uint64(s.Len)
	if end > uint64(len(blob)) {
		return nil
	}
	return blob[s.Off:end]
}

// blocks are the absolute bounds of the structure and strings blocks.
type blocks struct {
	structStart, structEnd int
	strStart, strEnd       int
}

func (b Blob) blocks() (blocks, Err) {
	h, err := b.Header()
	if err != OK {
		return blocks{}, err
	}
	return blocks{
		structStart: int(h.OffStruct),
		structEnd:   int(h.OffStruct) + int(h.SizeStruct),
		strStart:    int(h.OffStrings),
		strEnd:      int(h.OffStrings) + int(h.SizeStrings),
	}, OK
}

// token is one decoded structure token.
type token struct {
	kind  uint32
	at    int  // offset of the token word
	next  int  // offset of the following token
	name  Span // BEGIN_NODE: the node's name; PROP: the property's name (both without NUL)
	value Span // PROP: the value
}

// token decodes the token at off. Every field it returns has been checked:
// the token and its payload lie inside the structure block, names end in a
// NUL inside their block, and next > at, so a loop over tokens ends.
func (b Blob) token(k blocks, off int) (token, Err) {
	t := token{at: off}
	if off < k.structStart || off%4 != 0 || off > k.structEnd-4 {
		return t, ErrToken
	}
	t.kind, _ = be32(b, off)
	switch t.kind {
	case tokEndNode, tokNop, tokEnd:
		t.next = off + 4
	case tokBeginNode:
		n, ok := cstring(b, off+4, k.structEnd)
		if !ok {
			return t, ErrNodeName
		}
		t.name = Span{Off: uint32(off + 4), Len: uint32(n)}
		t.next = align4(off + 4 + n + 1)
	case tokProp:
		if off > k.structEnd-12 {
			return t, ErrToken
		}
		size, _ := be32(b, off+4)
		nameOff, _ := be32(b, off+8)
		if uint64(size) > uint64(k.structEnd-(off+12)) {
			return t, ErrPropBounds
		}
		if uint64(nameOff) >= uint64(k.strEnd-k.strStart) {
			return t, ErrPropName
		}
		n, ok := cstring(b, k.strStart+int(nameOff), k.strEnd)
		if !ok {
			return t, ErrPropName
		}
		t.name = Span{Off: uint32(k.strStart + int(nameOff)), Len: uint32(n)}
		t.value = Span{Off: uint32(off + 12), Len: size}
		t.next = align4(off + 12 + int(size))
	default:
		return t, ErrToken
	}
	return t, OK
}

// cstring is the length of the NUL-terminated string at off, which must end
// before end.
func cstring(b []byte, off, end int) (int, bool) {
	if end > len(b) {
		end = len(b)
	}
	for i := off; i >= 0 && i < end; i++ {
		if b[i] == 0 {
			return i - off, true
		}
	}
	return 0, false
}

// align4 rounds up to a token boundary. The structure block's end is
// 4-aligned (Header checks it), so the result never passes the end when
// its argument does not.
func align4(n int) int { return (n + 3) &^ 3 }

// equal reports whether the span holds exactly s.
func (b Blob) equal(sp Span, s string) bool { return spanEqual(b, sp, s) }

func spanEqual[S ~string | ~[]byte](b Blob, sp Span, s S) bool {
	v := sp.Bytes(b)
	return v != nil && string(v) == string(s)
}
