package ctl

import "github.com/unitrace/unitrace/decimal"

// Writer builds one JSON object in a caller's buffer without allocating.
// If the buffer is too small it stops writing and End reports failure, so a
// reply is either whole or not sent.
//
//	w := ctl.NewWriter(buf)
//	w.Uint("id", id)
//	w.Bool("ok", true)
//	n, ok := w.End()
type Writer struct {
	buf  []byte
	n    int
	full bool
}

// NewWriter starts an object in buf. (A constructor rather than a Reset
// method: storing a slice through a pointer would need a write barrier.)
func NewWriter(buf []byte) Writer {
	w := Writer{buf: buf}
	w.byte('{')
	return w
}

// End closes the object and returns its length, or ok false if buf was
// too small.
func (w *Writer) End() (n int, ok bool) {
	w.byte('}')
	if w.full {
		return 0, false
	}
	return w.n, true
}

// Uint writes "key":v.
func (w *Writer) Uint(key string, v uint64) {
	w.key(key)
	var d decimal.Digits
	w.bytes(d.Uint(v))
}

// Bool writes "key":true or false.
func (w *Writer) Bool(key string, v bool) {
	w.key(key)
	if v {
		w.str("true")
	} else {
		w.str("false")
	}
}

// String writes "key":"s", escaping '"' and '\\' and replacing bytes
// outside printable ASCII with '?', so the result always parses.
func (w *Writer) String(key string, s []byte) {
	w.key(key)
	w.byte('"')
	for _, b := range s {
		switch {
		case b == '"' || b == '\\':
			w.byte('\\')
			w.byte(b)
		case b < 0x20 || b > 0x7e:
			w.byte('?')
		default:
			w.byte(b)
		}
	}
	w.byte('"')
}

// Text is String for a constant text.
func (w *Writer) Text(key, s string) {
	w.key(key)
	w.byte('"')
	for i := 0; i < len(s); i++ {
		b := s[i]
		switch {
		case b == '"' || b == '\\':
			w.byte('\\')
			w.byte(b)
		case b < 0x20 || b > 0x7e:
			w.byte('?')
		default:
			w.byte(b)
		}
	}
	w.byte('"')
}

func (w *Writer) key(k string) {
	if w.n > 1 {
		w.byte(',')
	}
	w.byte('"')
	w.str(k)
	w.byte('"')
	w.byte(':')
}

func (w *Writer) byte(b byte) {
	if w.n >= len(w.buf) {
		w.full = true
		return
	}
	w.buf[w.n] = b
	w.n++
}

func (w *Writer) bytes(b []byte) {
	for _, c := range b {
		w.byte(c)
	}
}

func (w *Writer) str(s string) {
	for i := 0; i < len(s); i++ {
		w.byte(s[i])
	}
}

// EncodeOK writes {"id":id,"ok":true} into dst.
func EncodeOK(dst []byte, id uint32) (int, bool) {
	w := NewWriter(dst)
	w.Uint("id", uint64(id))
	w.Bool("ok", true)
	return w.End()
}

// EncodeError writes {"id":id,"error":"<e's message>"} into dst.
func EncodeError(dst []byte, id uint32, e Err) (int, bool) {
	w := NewWriter(dst)
	w.Uint("id", uint64(id))
	w.Text("error", e.Message())
	return w.End()
}

// Encode writes c as a command that Parse reads back as c (host tools
// build commands with it). Fields absent from c.Has are left out.
func (c *Command) Encode(dst []byte) (int, bool) {
	w := NewWriter(dst)
	w.Uint("id", uint64(c.ID))
	w.Text("cmd", c.Op.String())
	if c.Has&HasMatch != 0 {
		w.String("match", c.Pattern())
	}
	if c.Has&HasStack != 0 {
		w.Bool("stack", c.Stack)
	}
	if c.Has&HasRing != 0 {
		if c.Ring == RingFlight {
			w.Text("ring", "flight")
		} else {
			w.Text("ring", "stream")
		}
	}
	if c.Has&HasSize != 0 {
		w.Uint("size", c.Size)
	}
	if c.Has&HasHz != 0 {
		w.Uint("hz", uint64(c.Hz))
	}
	if c.Has&HasForce != 0 {
		w.Bool("force", c.Force)
	}
	if c.Has&HasSig != 0 {
		w.Uint("sig", uint64(c.Sig))
	}
	if c.Has&HasTotal != 0 {
		w.Uint("total", c.Total)
	}
	if c.Has&HasProbe != 0 {
		w.Uint("probe", uint64(c.Probe))
	}
	if c.Has&HasSite != 0 {
		var hex [2 * MaxSite]byte
		const digits = "0123456789abcdef"
		n := min(int(c.SiteLen), MaxSite)
		for i, b := range c.Site[:n] {
			hex[2*i], hex[2*i+1] = digits[b>>4], digits[b&15]
		}
		w.String("site", hex[:2*n])
	}
	return w.End()
}
