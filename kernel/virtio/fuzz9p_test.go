package virtio

import (
	"encoding/binary"
	"testing"
)

// FuzzNineP lets random bytes play a misbehaving virtio-9p device: they scribble over the
// used ring, complete requests in any order with any used length and raise arbitrary
// interrupt status, while the driver sends and harvests. The driver must not panic, must keep
// its free list and chains consistent, must report each request it sent at most once, with a
// used length within its reply buffer, and must not write outside the memory it was given.
func FuzzNineP(f *testing.F) {
	f.Add(uint8(1), []byte{})
	f.Add(uint8(2), []byte{2, 10, 20, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 5, 1, 4, 0, 0, 0, 0, 0})
	f.Add(uint8(1), []byte{2, 1, 1, 0, 0, 0, 0, 0, 2, 1, 1, 0, 0, 0, 0, 0, 4, 1, 0, 0, 255, 255, 0, 0, 6, 8, 0, 0, 0, 0, 0, 0})
	f.Add(uint8(2), []byte{2, 1, 1, 0, 0, 0, 0, 0, 1, 0, 1, 0, 9, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 6, 8, 0, 0, 0, 0, 0, 0})
	f.Add(uint8(1), []byte{7, 0, 0, 0, 0, 0, 0, 0, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 40, 0, 0, 0, 5, 3, 2, 0, 0, 0, 0, 0})
	f.Fuzz(runNinePFuzz)
}

func runNinePFuzz(t *testing.T, version uint8, ops []byte) {
	const bufSize = 256
	r := newNineRig(t, uint32(version%2)+1, "fuzz")
	r.init(t)
	r.dev.nine.serve = echo
	inFlight := map[Token]uint32{} // token → reply buffer length
	arg := func(i int) byte {
		if i < len(ops) {
			return ops[i]
		}
		return 0
	}
	harvest := func(out []NineCompletion, n int) {
		for _, c := range out[:n] {
			max, ok := inFlight[c.Token]
			if !ok {
				t.Fatalf("completion of token %#x, not in flight", c.Token)
			}
			if c.Len > max {
				t.Fatalf("token %#x: used length %d beyond its reply buffer of %d", c.Token, c.Len, max)
			}
			delete(inFlight, c.Token)
			if !r.d.Done(c.Token) {
				t.Fatalf("token %#x completed but not done", c.Token)
			}
		}
	}
	var out [MaxQueueSize]NineCompletion
	for i := 0; i < len(ops); i += 8 {
		op, a, b, c := arg(i)%8, arg(i+1), arg(i+2), arg(i+3)
		w := binary.LittleEndian.Uint32([]byte{arg(i + 4), arg(i + 5), arg(i + 6), arg(i + 7)})
		q := &r.d.q
		_, _, used, _, _ := r.dev.rings(0)
		switch op {
		case 0: // scribble the used index
			binary.LittleEndian.PutUint16(r.mem.bytes(used+2, 2), uint16(w))
		case 1: // scribble a used entry
			e := r.mem.bytes(used+4+8*uint64(b%uint8(q.size)), 8)
			binary.LittleEndian.PutUint32(e, uint32(c)|uint32(a)<<8)
			binary.LittleEndian.PutUint32(e[4:], w)
		case 2: // a request
			s := int(c) % (scratch / bufSize / 2)
			resp := uint32(b)%bufSize + 1
			tok, err := r.d.Send(r.dev, r.slot(2*s, bufSize), uint32(a)%bufSize+1, r.slot(2*s+1, bufSize), resp)
			if err == OK {
				if _, dup := inFlight[tok]; dup {
					t.Fatalf("token %#x handed out twice", tok)
				}
				inFlight[tok] = resp
			} else if err != ErrQueueFull && err != ErrBroken {
				t.Fatalf("Send: %v", err)
			}
		case 3: // the device answers a held request
			if n := len(r.dev.nine.held); n > 0 {
				r.dev.release(int(a) % n)
			}
		case 4: // the device answers with any used length
			if n := len(r.dev.nine.held); n > 0 {
				k := int(a) % n
				h := r.dev.nine.held[k]
				r.dev.nine.held = append(r.dev.nine.held[:k], r.dev.nine.held[k+1:]...)
				r.dev.push(0, h.head, w)
			}
		case 5:
			r.dev.intStatus = uint32(a)
			n, _, _ := r.d.Interrupt(r.dev, out[:int(b)%len(out)])
			harvest(out[:], n)
		case 6:
			n, _ := r.d.Poll(r.dev, out[:int(a)%len(out)])
			harvest(out[:], n)
		case 7:
			r.dev.nine.hold = !r.dev.nine.hold
		}
		r.guardsIntact(t)
		checkQueue(t, 0, &r.d.q)
		if !r.d.Broken() && r.d.InFlight() != len(inFlight) {
			t.Fatalf("driver has %d requests in flight, the test %d", r.d.InFlight(), len(inFlight))
		}
	}
}
