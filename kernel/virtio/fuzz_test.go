package virtio

import (
	"bytes"
	"encoding/binary"
	"math/rand"
	"testing"
)

// FuzzDevice lets random bytes play a misbehaving device: they scribble over the used rings and
// the control buffers, send arbitrary control messages and interrupt status, while the driver
// sends and receives. The driver must not panic, must keep its free lists consistent, and must
// not write outside the memory it was given.
func FuzzDevice(f *testing.F) {
	f.Add(uint8(1), []byte{})
	f.Add(uint8(2), []byte{0, 5, 0xff, 0xff, 7, 1, 2, 3})
	f.Add(uint8(1), []byte{1, 3, 4, 200, 0, 0, 0, 0, 16, 0, 7, 0})
	f.Add(uint8(2), []byte{3, 1, 7, 1, 'o', 'r', 'g', 0, 4, 1, 9, 7, 0, 0})
	f.Add(uint8(1), []byte{4, 2, 100, 6, 2, 50, 5, 2, 10, 7, 1, 1})
	f.Fuzz(runFuzzBody)
}

// runFuzzBody plays ops, eight bytes each, against a driver after the handshake.
func runFuzzBody(t *testing.T, version uint8, ops []byte) {
	{
		r := newRig(t, uint32(version%2)+1)
		handshake(t, r)
		r.dev.setHost(2, true)
		r.d.Interrupt(r.dev)
		arg := func(i int) byte {
			if i < len(ops) {
				return ops[i]
			}
			return 0
		}
		for i := 0; i < len(ops); i += 8 {
			op, a, b, c := arg(i)%8, arg(i+1), arg(i+2), arg(i+3)
			w := binary.LittleEndian.Uint32([]byte{arg(i + 4), arg(i + 5), arg(i + 6), arg(i + 7)})
			switch op {
			case 0: // scribble a used index
				q := &r.d.queues[int(a)%numQueues]
				if q.size != 0 {
					binary.LittleEndian.PutUint16(r.mem.bytes(uint64(q.used-r.cfg.DirectMap)+2, 2), uint16(w))
				}
			case 1: // scribble a used entry
				q := &r.d.queues[int(a)%numQueues]
				if q.size != 0 {
					e := r.mem.bytes(uint64(q.used-r.cfg.DirectMap)+4+8*uint64(b%uint8(q.size)), 8)
					binary.LittleEndian.PutUint32(e, uint32(c))
					binary.LittleEndian.PutUint32(e[4:], w)
				}
			case 2: // scribble control receive buffers
				off := uint64(r.cfg.MemPA) + ctlRxOffset + uint64(a)%ctlRxBufs*ctlRxBufSize + uint64(b)%ctlRxBufSize
				binary.LittleEndian.PutUint32(r.mem.bytes(off, 4), w)
			case 3: // an arbitrary control message
				r.dev.sendCtl(uint32(a)%8, uint16(b)%10, uint16(c), binary.LittleEndian.AppendUint32(nil, w)[:c%5])
			case 4:
				r.d.Send(r.dev, int(a%6)-1, r.put(int(b)*16, []byte{c}), uint32(c)%64+1)
			case 5:
				var buf [100]byte
				r.d.Receive(r.dev, int(a%6)-1, buf[:int(b)%len(buf)])
			case 6:
				switch b % 3 {
				case 0:
					r.dev.hostWrite(2, bytes.Repeat([]byte{c}, int(w%3000)))
				case 1:
					r.dev.throttle = !r.dev.throttle
				case 2:
					r.dev.drain(1)
				}
			case 7:
				r.dev.intStatus = uint32(a)
				r.d.Interrupt(r.dev)
			}
			r.d.Poll(r.dev)
			if err := r.guardsIntact(); err != nil {
				t.Fatalf("op %d: %v", i/8, err)
			}
			checkInvariants(t, r.d)
		}
	}
}

// TestModel drives both ports with random traffic against a reference: everything sent
// reaches the host in order, every token completes once the host reads, and the guest receives
// exactly the bytes the host wrote.
func TestModel(t *testing.T) {
	for _, ver := range versions {
		for seed := int64(0); seed < 20; seed++ {
			rng := rand.New(rand.NewSource(seed))
			r := newRig(t, ver.v)
			handshake(t, r)
			r.dev.setHost(2, true)
			r.d.Interrupt(r.dev)
			var sent, written, received []byte
			var toks []Token
			off := 0
			for step := 0; step < 400; step++ {
				switch rng.Intn(6) {
				case 0, 1:
					n := 1 + rng.Intn(200)
					if off+n > scratch {
						break
					}
					data := make([]byte, n)
					rng.Read(data)
					tok, err := r.d.Send(r.dev, 1, r.put(off, data), uint32(n))
					if err == ErrQueueFull {
						break
					}
					if err != OK {
						t.Fatalf("seed %d: Send: %v", seed, err)
					}
					off += n
					sent = append(sent, data...)
					toks = append(toks, tok)
				case 2:
					r.dev.throttle = rng.Intn(2) == 0
					if !r.dev.throttle {
						r.dev.drain(1)
					}
				case 3:
					data := make([]byte, rng.Intn(1500))
					rng.Read(data)
					written = append(written, data...)
					r.dev.hostWrite(2, data)
				case 4:
					buf := make([]byte, rng.Intn(2000))
					n, err := r.d.Receive(r.dev, 2, buf)
					if err != OK {
						t.Fatalf("seed %d: Receive: %v", seed, err)
					}
					received = append(received, buf[:n]...)
				case 5:
					r.d.Interrupt(r.dev)
				}
			}
			r.dev.throttle = false
			r.dev.drain(1)
			r.d.Interrupt(r.dev)
			for len(received) < len(written) {
				buf := make([]byte, 4096)
				n, _ := r.d.Receive(r.dev, 2, buf)
				received = append(received, buf[:n]...)
				if n == 0 && !r.d.Interrupt(r.dev).Any() {
					t.Fatalf("seed %d: receive stalled at %d of %d", seed, len(received), len(written))
				}
			}
			if !bytes.Equal(r.dev.port(1).out, sent) {
				t.Fatalf("seed %d: host read %d bytes, guest sent %d (or they differ)", seed, len(r.dev.port(1).out), len(sent))
			}
			for i, tok := range toks {
				if !r.d.Done(1, tok) {
					t.Fatalf("seed %d: token %d not done", seed, i)
				}
			}
			if !bytes.Equal(received, written) {
				t.Fatalf("seed %d: received bytes differ", seed)
			}
			if r.d.Stats != (Stats{}) {
				t.Fatalf("seed %d: stats %+v from a well-behaved device", seed, r.d.Stats)
			}
			checkInvariants(t, r.d)
		}
	}
}
