package fd

import (
	"testing"

	"github.com/unitrace/unitrace/kernel/abi"
)

func TestFIFOOpen(t *testing.T) {
	var tb Table
	tb.Init()
	const key = 42
	if _, _, _, _, errno := tb.OpenFIFO(key, O_WRONLY|O_NONBLOCK); errno != abi.ENXIO {
		t.Fatalf("O_WRONLY|O_NONBLOCK without a reader: errno %d, want ENXIO", errno)
	}
	if _, _, _, _, errno := tb.OpenFIFO(key, 3); errno != abi.EINVAL {
		t.Fatalf("access mode 3: errno %d, want EINVAL", errno)
	}
	r, p, partner, wait, errno := tb.OpenFIFO(key, O_RDONLY)
	if errno != 0 || !wait || partner != 0 {
		t.Fatalf("O_RDONLY = fd %d, partner %d, wait %v, errno %d; want a wait for the first writer", r, partner, wait, errno)
	}
	w, p2, partner, wait, errno := tb.OpenFIFO(key, O_WRONLY|O_NONBLOCK)
	if errno != 0 || wait || p2 != p {
		t.Fatalf("O_WRONLY with a reader = fd %d, pipe %d (want %d), wait %v, errno %d", w, p2, p, wait, errno)
	}
	if got, ok := tb.FIFOPartnerOpens(r); !ok || got != 1 {
		t.Fatalf("reader's partner opens = %d, %v; want 1", got, ok)
	}
	if n, errno := tb.PipeWrite(w, []byte("hi")); n != 2 || errno != 0 {
		t.Fatalf("write = %d, %d", n, errno)
	}
	// Another FIFO is another pipe; the same one shares the bytes.
	other, po, _, _, _ := tb.OpenFIFO(key+1, O_RDWR)
	if po == p {
		t.Fatal("two FIFOs share a pipe")
	}
	r2, _, _, wait, _ := tb.OpenFIFO(key, O_RDONLY|O_NONBLOCK)
	if wait {
		t.Fatal("O_NONBLOCK reader waits")
	}
	buf := make([]byte, 4)
	if n, errno := tb.PipeRead(r2, buf); n != 2 || errno != 0 || string(buf[:2]) != "hi" {
		t.Fatalf("read through a second reader = %d, %d, %q", n, errno, buf[:n])
	}
	if got, _ := tb.Fcntl(other, F_GETFL, 0); got != O_RDWR {
		t.Fatalf("O_RDWR FIFO's F_GETFL = %#x, want O_RDWR", got)
	}
	// O_RDWR: reads and writes itself, no end of file, no broken pipe.
	if n, errno := tb.PipeWrite(other, []byte("x")); n != 1 || errno != 0 {
		t.Fatalf("O_RDWR write = %d, %d", n, errno)
	}
	if n, errno := tb.PipeRead(other, buf); n != 1 || errno != 0 {
		t.Fatalf("O_RDWR read = %d, %d", n, errno)
	}
	if _, errno := tb.PipeRead(other, buf); errno != abi.EAGAIN {
		t.Fatalf("O_RDWR read of an empty FIFO: errno %d, want EAGAIN", errno)
	}
	d, errno := tb.Dup(other, 0, false)
	if errno != 0 {
		t.Fatal(errno)
	}
	tb.Close(other)
	if _, errno := tb.PipeWrite(d, []byte("y")); errno != 0 {
		t.Fatalf("write through a dup of an O_RDWR FIFO after the original closed: errno %d", errno)
	}
	tb.Close(d)
	if tb.pipes[po].inUse() || tb.pipes[po].fifo != 0 {
		t.Fatal("the O_RDWR FIFO's pipe outlives its descriptors")
	}
	// The last writer gone: end of file; all gone: the next open gets a fresh pipe.
	tb.Close(w)
	if n, errno := tb.PipeRead(r, buf); n != 0 || errno != 0 {
		t.Fatalf("read with no writer = %d, %d; want end of file", n, errno)
	}
	tb.Close(r)
	tb.Close(r2)
	if tb.pipes[p].inUse() {
		t.Fatal("the FIFO's pipe outlives its ends")
	}
	w, _, partner, wait, _ = tb.OpenFIFO(key, O_WRONLY)
	if !wait || partner != 0 {
		t.Fatalf("a blocking writer of a fresh FIFO: wait %v partner %d", wait, partner)
	}
	tb.Close(w)
	checkInvariants(t, &tb)
}
