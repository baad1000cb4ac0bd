// Package rxring is the console's receive ring: the bytes the UART's interrupt handler took
// from the hardware, waiting for a read(2) of the console.
//
// Nothing is dropped. When the ring fills, the receiver must stop: the handler turns the
// UART's receive interrupt off (StopReceiver says when), the UART's own FIFO fills, and the
// emulator's serial backend stops taking input from the host, which waits. A reader that makes
// room turns the receiver on again (Read says when): not at the first free byte but once
// ResumeRoom bytes are free, so that a reader taking one byte at a time does not turn the
// interrupt on and off for every byte.
//
// A serial line has no end of file, so the input's end is told apart: SetEnd gives the number of
// bytes the input holds in all (the launcher counts what it fed the line and says so over the
// control port). From then on a reader that has taken that many bytes is at end of file (AtEnd),
// for good, as a read of a pipe whose writer has gone; before it the ring behaves as without an
// end. A ring never holds a byte past the end: Put drops it (the host said there are no more, and
// keeping them would only fill the ring).
//
// The package is kernel-mode Go: a Ring holds only integers and a fixed array, never allocates
// and never panics. It does no locking: the caller serialises every call (the kernel lock
// covers both the interrupt handler and the readers). Its zero value is an empty ring with
// the receiver on.
package rxring

// Size is the ring's capacity: a page, Linux's N_TTY_BUF_SIZE (4096).
const Size = 4096

// ResumeRoom is the free space at which a stopped receiver is turned on again: a quarter of
// the ring, many FIFOs' worth (a 16550's and a PL011's FIFOs hold 16 bytes).
const ResumeRoom = Size / 4

// Ring is a byte FIFO of Size bytes with the receiver's stopped state and the input's end.
type Ring struct {
	buf     [Size]byte
	head    uint32 // total bytes ever put, mod 2^32
	tail    uint32 // total bytes ever read, mod 2^32
	stopped bool   // the receive interrupt is off because the ring filled
	ended   bool   // SetEnd has given the input's length
	taken   uint64 // bytes ever read (discarded): an input may pass 2^32 bytes
	end     uint64 // the input's length, once ended
}

// Len is the number of bytes waiting.
//
//go:nosplit
func (r *Ring) Len() int { return int(r.head - r.tail) }

// Free is the room left.
//
//go:nosplit
func (r *Ring) Free() int { return Size - r.Len() }

// Stopped reports whether the receiver is off (StopReceiver was true and no Read has turned it
// on again).
//
//go:nosplit
func (r *Ring) Stopped() bool { return r.stopped }

// Put appends c and reports whether there was room for it. A byte past the input's end is
// dropped, and Put reports true: it is gone from the UART as a byte put is.
//
//go:nosplit
func (r *Ring) Put(c byte) bool {
	if r.Len() >= Size {
		return false
	}
	if r.ended && r.Received() >= r.end {
		return true
	}
	r.buf[r.head%Size] = c
	r.head++
	return true
}

// StopReceiver is asked by the interrupt handler after it has drained what it could: it
// reports whether the handler must turn the receive interrupt off now, because the ring is
// full (a level-triggered receive interrupt that nobody drains would fire forever), and
// records that it is off.
//
//go:nosplit
func (r *Ring) StopReceiver() bool {
	if r.stopped || r.Free() > 0 {
		return false
	}
	r.stopped = true
	return true
}

// Read moves up to len(dst) waiting bytes into dst and returns how many: Peek, then Discard.
//
//go:nosplit
func (r *Ring) Read(dst []byte) (n int, resume bool) {
	n = r.Peek(dst)
	return n, r.Discard(n)
}

// Peek copies up to len(dst) waiting bytes into dst, oldest first, and returns how many; they
// stay in the ring. A reader whose copy to the program can fail peeks, copies, and discards
// only then, so that a fault loses no byte.
//
//go:nosplit
func (r *Ring) Peek(dst []byte) int {
	n := 0
	for t := r.tail; n < len(dst) && t != r.head; t++ {
		dst[n] = r.buf[t%Size]
		n++
	}
	return n
}

// Discard drops the n oldest bytes (at most Len). resume reports that the receiver was stopped
// and there is now ResumeRoom free: the caller turns the receive interrupt on again (after
// taking what the UART holds meanwhile).
//
//go:nosplit
func (r *Ring) Discard(n int) (resume bool) {
	n = max(min(n, r.Len()), 0)
	r.tail += uint32(n)
	r.taken += uint64(n)
	if r.stopped && r.Free() >= ResumeRoom {
		r.stopped = false
		return true
	}
	return false
}

// Received is how many bytes ever came in: those read and those waiting (bytes dropped past the
// end not counted).
//
//go:nosplit
func (r *Ring) Received() uint64 { return r.taken + uint64(r.Len()) }

// SetEnd records that the input holds total bytes in all, and reports whether it could: total
// must not be below what already came in, and a second end must be the first one (the launcher
// says it once; anything else is a confused host, and the ring keeps the semantics it had).
//
//go:nosplit
func (r *Ring) SetEnd(total uint64) bool {
	if r.ended {
		return total == r.end
	}
	if total < r.Received() {
		return false
	}
	r.end, r.ended = total, true
	return true
}

// AtEnd reports whether a read is at end of file: the input's end is known and every byte before
// it has been read. It stays so: a read after end of file keeps returning 0.
//
//go:nosplit
func (r *Ring) AtEnd() bool { return r.ended && r.taken >= r.end }

// Readable reports whether a read would not wait: bytes wait, or the input is at its end.
//
//go:nosplit
func (r *Ring) Readable() bool { return r.Len() > 0 || r.AtEnd() }
