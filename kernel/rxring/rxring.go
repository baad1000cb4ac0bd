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

// Ring is a byte FIFO of Size bytes with the receiver's stopped state.
type Ring struct {
	buf     [Size]byte
	head    uint32 // total bytes ever put, mod 2^32
	tail    uint32 // total bytes ever read, mod 2^32
	stopped bool   // the receive interrupt is off because the ring filled
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

// Put appends c and reports whether there was room for it.
//
//go:nosplit
func (r *Ring) Put(c byte) bool {
	if r.Len() >= Size {
		return false
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
	r.tail += uint32(min(n, r.Len()))
	if r.stopped && r.Free() >= ResumeRoom {
		r.stopped = false
		return true
	}
	return false
}
