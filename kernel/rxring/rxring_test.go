package rxring

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

func TestFIFOAndWrap(t *testing.T) {
	var r Ring
	var want []byte
	next := byte(0)
	out := make([]byte, 1000)
	for round := 0; round < 20; round++ { // crosses the end of buf many times
		for i := 0; i < 700; i++ {
			if !r.Put(next) {
				t.Fatalf("Put refused with %d bytes waiting", r.Len())
			}
			want = append(want, next)
			next++
		}
		n, _ := r.Read(out)
		if !bytes.Equal(out[:n], want[:n]) {
			t.Fatalf("round %d: read %v..., want %v...", round, out[:4], want[:4])
		}
		want = want[n:]
	}
	if r.Len() != len(want) || r.Free() != Size-len(want) {
		t.Errorf("Len %d Free %d, want %d waiting", r.Len(), r.Free(), len(want))
	}
}

func TestFullStopsAndResumes(t *testing.T) {
	var r Ring
	for i := 0; i < Size-1; i++ {
		r.Put(byte(i))
	}
	if r.StopReceiver() {
		t.Fatal("StopReceiver with a byte of room left")
	}
	if !r.Put(1) || r.Put(2) {
		t.Fatal("the last byte must fit and the one after must not")
	}
	if !r.StopReceiver() || !r.Stopped() {
		t.Fatal("a full ring must stop the receiver")
	}
	if r.StopReceiver() {
		t.Error("StopReceiver twice: the interrupt is already off")
	}
	// Reading less than ResumeRoom keeps it stopped.
	buf := make([]byte, ResumeRoom-1)
	if n, resume := r.Read(buf); n != len(buf) || resume || !r.Stopped() {
		t.Fatalf("Read %d resume %v stopped %v", n, resume, r.Stopped())
	}
	if n, resume := r.Read(buf[:1]); n != 1 || !resume || r.Stopped() {
		t.Fatalf("Read to ResumeRoom free: n %d resume %v stopped %v", n, resume, r.Stopped())
	}
	if _, resume := r.Read(buf); resume {
		t.Error("resume reported twice")
	}
}

func TestEmptyRead(t *testing.T) {
	var r Ring
	if n, resume := r.Read(make([]byte, 8)); n != 0 || resume {
		t.Errorf("empty Read = %d, %v", n, resume)
	}
	if n, _ := r.Read(nil); n != 0 {
		t.Errorf("Read(nil) = %d", n)
	}
}

// TestModel drives a Ring and a plain slice with the same random operations, as the interrupt
// handler and readers would (fill until the UART is empty or the ring full, stop if asked, read,
// resume if told), and checks that every byte comes out once, in order, and that the receiver
// is off exactly while the model says the ring filled and has not drained to ResumeRoom.
func TestModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	stops := 0
	for run := 0; run < 200; run++ {
		var r Ring
		var model []byte
		receiving := true // the model's receive interrupt
		var sent, got []byte
		out := make([]byte, 3*Size)
		for step := 0; step < 300; step++ {
			if rng.IntN(2) == 0 && receiving {
				// An interrupt: the UART has a burst of bytes.
				for k := rng.IntN(400); k > 0; k-- {
					c := byte(rng.Uint32())
					if !r.Put(c) {
						break // the rest stays in the UART
					}
					model = append(model, c)
					sent = append(sent, c)
				}
				if r.StopReceiver() {
					receiving = false
					stops++
				}
				if len(model) == Size && receiving {
					t.Fatalf("run %d: full ring, receiver on", run)
				}
			} else {
				want := rng.IntN(64) // a slow reader, so that the ring fills
				if rng.IntN(8) == 0 {
					want = rng.IntN(len(out))
				}
				n, resume := r.Read(out[:want])
				if n != min(want, len(model)) {
					t.Fatalf("run %d: Read(%d) = %d with %d waiting", run, want, n, len(model))
				}
				got = append(got, out[:n]...)
				model = model[n:]
				if resume {
					if receiving || Size-len(model) < ResumeRoom {
						t.Fatalf("run %d: resume with receiver %v and %d free", run, receiving, Size-len(model))
					}
					receiving = true
				}
			}
			if r.Len() != len(model) || r.Stopped() == receiving {
				t.Fatalf("run %d step %d: Len %d (model %d), stopped %v (model receiving %v)", run, step, r.Len(), len(model), r.Stopped(), receiving)
			}
		}
		got = append(got, model...)
		if !bytes.Equal(got, sent) {
			t.Fatalf("run %d: bytes out differ from bytes in", run)
		}
	}
	if stops == 0 {
		t.Error("the ring never filled: the model did not reach the receiver's stop")
	}
}

// TestPeekDiscard: a peek leaves the bytes in the ring; discarding them is what frees room and
// turns a stopped receiver on again.
func TestPeekDiscard(t *testing.T) {
	var r Ring
	for i := 0; i < Size; i++ {
		r.Put(byte(i))
	}
	r.StopReceiver()
	buf := make([]byte, ResumeRoom)
	if n := r.Peek(buf); n != ResumeRoom || buf[1] != 1 || r.Len() != Size || !r.Stopped() {
		t.Fatalf("Peek = %d, byte 1 %d, Len %d, stopped %v: want the bytes copied and kept", n, buf[1], r.Len(), r.Stopped())
	}
	if r.Discard(ResumeRoom-1) || !r.Stopped() {
		t.Fatal("resumed below ResumeRoom free")
	}
	if !r.Discard(1) || r.Stopped() || r.Len() != Size-ResumeRoom {
		t.Fatalf("Discard to ResumeRoom free: stopped %v, Len %d", r.Stopped(), r.Len())
	}
	if r.Discard(2 * Size); r.Len() != 0 {
		t.Errorf("Discard past the end left %d bytes", r.Len())
	}
	if n, _ := r.Read(buf); n != 0 {
		t.Errorf("Read after discarding everything = %d", n)
	}
}
