package wire

import (
	"bytes"
	"errors"
	"io"
)

// Frame is one frame read from a stream.
type Frame struct {
	Header
	Offset  int64  // of the frame's magic in the stream
	Payload []byte // owned by the caller
}

// Reader reads frames from a stream (a socket or a recorded file). It
// verifies each frame; on a bad magic, version, length or CRC, or a frame cut
// off by the end of the input, it returns a *FrameError naming the offset,
// skips to the next magic and carries on with the next call to Next. Every
// byte of the input is either part of a returned frame or covered by exactly
// one FrameError's [Offset, Offset+Skipped).
//
// Resynchronisation restarts the search one byte after the start of the bad
// frame, so a corrupted length can never swallow the intact frames after it.
// On a live stream, a corrupted length makes Next wait for up to MaxPayload
// bytes before the CRC check can reject the frame.
type Reader struct {
	r    io.Reader
	buf  []byte // buf[pos:] is read but not consumed
	pos  int
	off  int64 // stream offset of buf[pos]
	eof  bool
	rerr error // sticky read error other than io.EOF
}

// NewReader returns a Reader reading from r.
func NewReader(r io.Reader) *Reader {
	return &Reader{r: r}
}

// Offset returns the stream offset of the next unread byte.
func (r *Reader) Offset() int64 { return r.off }

const readChunk = 64 << 10

// fill tries to buffer at least n unread bytes and returns how many are
// buffered (fewer only at the end of the input or on a read error).
func (r *Reader) fill(n int) int {
	for len(r.buf)-r.pos < n && !r.eof && r.rerr == nil {
		if r.pos > 0 && r.pos >= len(r.buf)/2 {
			r.buf = r.buf[:copy(r.buf, r.buf[r.pos:])]
			r.pos = 0
		}
		need := n - (len(r.buf) - r.pos)
		if need < readChunk {
			need = readChunk
		}
		if cap(r.buf)-len(r.buf) < need {
			nb := make([]byte, len(r.buf)-r.pos, len(r.buf)-r.pos+need)
			copy(nb, r.buf[r.pos:])
			r.buf, r.pos = nb, 0
		}
		m, err := r.r.Read(r.buf[len(r.buf):cap(r.buf)])
		r.buf = r.buf[:len(r.buf)+m]
		if errors.Is(err, io.EOF) {
			r.eof = true
		} else if err != nil {
			r.rerr = err
		}
	}
	return len(r.buf) - r.pos
}

func (r *Reader) discard(n int) {
	r.pos += n
	r.off += int64(n)
}

// Next returns the next intact frame, a *FrameError for bytes it had to
// skip, io.EOF at the end of the input, or the underlying reader's error.
func (r *Reader) Next() (*Frame, error) {
	avail := r.fill(HeaderSize)
	if avail == 0 {
		if r.rerr != nil {
			return nil, r.rerr
		}
		return nil, io.EOF
	}
	start := r.off
	b := r.buf[r.pos:]
	if avail < len(Magic) || !bytes.Equal(b[:len(Magic)], []byte(Magic)) {
		if avail < len(Magic) && bytes.HasPrefix([]byte(Magic), b[:avail]) {
			return nil, r.skipAll(start, ErrTruncated)
		}
		return nil, r.resync(start, ErrBadMagic)
	}
	if avail < HeaderSize {
		return nil, r.skipAll(start, ErrTruncated)
	}
	h := parseHeader(b)
	if b[offVersion] != Version {
		return nil, r.resync(start, ErrVersion)
	}
	if h.Length > MaxPayload {
		return nil, r.resync(start, ErrTooLarge)
	}
	total := HeaderSize + int(h.Length)
	if r.fill(total) < total {
		return nil, r.resync(start, ErrTruncated)
	}
	b = r.buf[r.pos : r.pos+total]
	if Checksum(b, b[HeaderSize:]) != h.CRC {
		return nil, r.resync(start, ErrBadCRC)
	}
	f := &Frame{Header: h, Offset: start, Payload: append([]byte(nil), b[HeaderSize:]...)}
	r.discard(total)
	return f, nil
}

// resync skips the byte at start and everything up to the next magic, and
// returns the error covering the skipped bytes.
func (r *Reader) resync(start int64, cause error) error {
	r.discard(1)
	for {
		avail := r.fill(len(Magic))
		i := bytes.Index(r.buf[r.pos:], []byte(Magic))
		if i >= 0 {
			r.discard(i)
			break
		}
		if avail < len(Magic) && (r.eof || r.rerr != nil) {
			r.discard(avail)
			break
		}
		// Keep a tail that may be the start of a magic split across reads.
		keep := len(Magic) - 1
		r.discard(avail - keep)
	}
	return &FrameError{Offset: start, Skipped: r.off - start, Err: cause}
}

// skipAll consumes the rest of the input, which is too short to hold a frame.
func (r *Reader) skipAll(start int64, cause error) error {
	r.discard(len(r.buf) - r.pos)
	return &FrameError{Offset: start, Skipped: r.off - start, Err: cause}
}

// ReadHeader is a convenience for tools that only peek: it decodes and
// checks a 24-byte header (magic and version) without the CRC.
func ReadHeader(b []byte) (Header, error) {
	if len(b) < HeaderSize {
		return Header{}, ErrTruncated
	}
	if !bytes.Equal(b[:len(Magic)], []byte(Magic)) {
		return Header{}, ErrBadMagic
	}
	if b[offVersion] != Version {
		return Header{}, ErrVersion
	}
	return parseHeader(b), nil
}
