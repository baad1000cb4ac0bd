package wire

import (
	"errors"
	"io"
)

// ErrPayloadTooLarge is returned by Writer for a payload over MaxPayload.
var ErrPayloadTooLarge = errors.New("payload exceeds the 1 MiB frame limit")

// Writer writes frames to one port, numbering them with the port's frame
// sequence (0, 1, 2, ...). Each frame goes out in a single Write call, so a
// transport that preserves writes never interleaves two frames. It is not
// safe for concurrent use.
type Writer struct {
	w   io.Writer
	seq uint32
	buf []byte
}

// NewWriter returns a Writer whose first frame has sequence number 0.
func NewWriter(w io.Writer) *Writer {
	return &Writer{w: w}
}

// Seq returns the sequence number the next frame will carry.
func (w *Writer) Seq() uint32 { return w.seq }

// WriteFrame writes one frame. A frame whose Write fails still consumes its
// sequence number, so the host sees the gap.
func (w *Writer) WriteFrame(typ Type, flags uint16, payload []byte) error {
	if len(payload) > MaxPayload {
		return ErrPayloadTooLarge
	}
	w.buf = AppendFrame(w.buf[:0], typ, flags, w.seq, payload)
	w.seq++
	_, err := w.w.Write(w.buf)
	return err
}

// WriteMessage encodes m and writes it as one frame.
func (w *Writer) WriteMessage(m Message) error {
	p, err := m.AppendPayload(nil)
	if err != nil {
		return err
	}
	return w.WriteFrame(m.FrameType(), 0, p)
}
