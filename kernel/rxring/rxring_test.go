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

// TestEnd: the end of input, one case at a time: a read is at end of file only once every byte
// before the end is read, and stays there; an end below what came in, or a second, different
// one, is refused and changes nothing; bytes past the end are dropped.
func TestEnd(t *testing.T) {
	var r Ring
	if r.AtEnd() || r.Readable() {
		t.Fatal("an empty ring without an end must be neither at its end nor readable")
	}
	for i := 0; i < 10; i++ {
		r.Put(byte(i))
	}
	if r.SetEnd(9) || r.AtEnd() {
		t.Fatal("an end below the bytes that came in was taken")
	}
	if !r.SetEnd(12) || !r.SetEnd(12) || r.SetEnd(13) {
		t.Fatal("SetEnd(12), again 12, then 13: want true, true, false")
	}
	buf := make([]byte, 16)
	if n, _ := r.Read(buf); n != 10 || r.AtEnd() || r.Readable() {
		t.Fatalf("read %d of 12, at end %v, readable %v: want 10, two bytes still to come", n, r.AtEnd(), r.Readable())
	}
	for _, c := range []byte{10, 11, 12, 13} { // the last two are past the end
		if !r.Put(c) {
			t.Fatalf("Put(%d) refused", c)
		}
	}
	if r.Len() != 2 || r.Received() != 12 {
		t.Fatalf("Len %d Received %d: want the two bytes before the end, none after", r.Len(), r.Received())
	}
	if n, _ := r.Read(buf); n != 2 || buf[0] != 10 || buf[1] != 11 {
		t.Fatalf("read %d bytes %v, want 10 and 11", n, buf[:n])
	}
	for range 3 {
		if !r.AtEnd() || !r.Readable() {
			t.Fatal("every byte before the end read: want at end and readable")
		}
		if n, _ := r.Read(buf); n != 0 {
			t.Fatalf("read %d bytes at the end", n)
		}
	}
	var empty Ring
	if !empty.SetEnd(0) || !empty.AtEnd() || !empty.Readable() {
		t.Error("an empty input must be at its end at once")
	}
}

// TestEndModel runs the UART's bursts, the readers and the launcher's end, at random moments,
// against a model: a host that sends an input of a random length in bursts (as far as the ring
// has room and the receiver is on) and says its length at any moment before, during or after
// the bytes, and sometimes sends bytes past it. The reader must get exactly the input, in order,
// then end of file for good; until then, an empty ring is not at its end (a non-blocking read is
// EAGAIN, a blocking one waits) and readiness is exactly "bytes wait or at the end".
func TestEndModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	early := 0 // runs told the end before every byte came
	for run := 0; run < 500; run++ {
		var r Ring
		input := make([]byte, rng.IntN(3*Size))
		for i := range input {
			input[i] = byte(rng.Uint32())
		}
		sent := 0         // bytes of input the UART has handed to the ring (the rest wait in the host)
		told := false     // the host has said the input's length
		receiving := true // the model's receive interrupt
		var got []byte    // what the reader has read
		out := make([]byte, 2*Size)
		for step := 0; step < 5000 && !(r.AtEnd() && step > 50); step++ {
			switch rng.IntN(3) {
			case 0: // a burst from the UART
				if !receiving {
					break
				}
				for k := rng.IntN(300); k > 0 && sent < len(input) && r.Free() > 0; k-- {
					r.Put(input[sent])
					sent++
				}
				if told && sent == len(input) && rng.IntN(4) == 0 {
					r.Put('!') // a confused host: past the end
				}
				if r.StopReceiver() {
					receiving = false
				}
			case 1: // the host's end, any time
				if !told && rng.IntN(4) == 0 {
					if !r.SetEnd(uint64(len(input))) {
						t.Fatalf("run %d: SetEnd(%d) refused with %d received", run, len(input), r.Received())
					}
					told = true
					if sent < len(input) {
						early++
					}
					if len(input) > 0 && r.SetEnd(uint64(len(input)-1)) {
						t.Fatalf("run %d: a second, different end was taken", run)
					}
				}
			default: // a read
				want := rng.IntN(200)
				if rng.IntN(8) == 0 {
					want = rng.IntN(len(out))
				}
				waiting := sent - len(got)
				atEnd := told && len(got) == len(input)
				if r.AtEnd() != atEnd || r.Readable() != (waiting > 0 || atEnd) {
					t.Fatalf("run %d step %d: at end %v readable %v; model: %d waiting, end told %v, %d of %d read",
						run, step, r.AtEnd(), r.Readable(), waiting, told, len(got), len(input))
				}
				n, resume := r.Read(out[:want])
				if n != min(want, waiting) {
					t.Fatalf("run %d: Read(%d) = %d with %d waiting", run, want, n, waiting)
				}
				got = append(got, out[:n]...)
				if resume {
					receiving = true
				}
			}
			if r.Received() != uint64(sent) {
				t.Fatalf("run %d: Received %d, model %d", run, r.Received(), sent)
			}
		}
		if !r.AtEnd() {
			t.Fatalf("run %d: not at the end after its steps: %d of %d bytes sent, %d read, end told %v", run, sent, len(input), len(got), told)
		}
		if !bytes.Equal(got, input) {
			t.Fatalf("run %d: read %d bytes, not the %d-byte input", run, len(got), len(input))
		}
		if n, _ := r.Read(out); n != 0 || !r.AtEnd() || !r.Readable() {
			t.Fatalf("run %d: after the end, Read = %d, at end %v", run, n, r.AtEnd())
		}
	}
	if early < 50 {
		t.Errorf("only %d runs were told the end before every byte came: the model misses the case", early)
	}
}
