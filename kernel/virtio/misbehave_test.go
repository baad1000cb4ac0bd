package virtio

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// rawCtl places arbitrary bytes in the next control receive buffer and claims written bytes.
func (f *fakeDevice) rawCtl(msg []byte, written uint32) {
	e, ok := f.pop(ctlRxQueue)
	if !ok {
		f.dropped++
		return
	}
	copy(f.buf(e), msg)
	f.push(ctlRxQueue, e.id, written)
}

func ctlBytes(id uint32, event, value uint16, extra []byte) []byte {
	b := binary.LittleEndian.AppendUint32(nil, id)
	b = binary.LittleEndian.AppendUint16(b, event)
	b = binary.LittleEndian.AppendUint16(b, value)
	return append(b, extra...)
}

func TestMisbehavingDevice(t *testing.T) {
	long := bytes.Repeat([]byte("n"), MaxNameLen+1)
	for _, ver := range versions {
		for _, tc := range []struct {
			name  string
			act   func(r *rig)
			check func(t *testing.T, r *rig)
		}{
			{"used id out of range", func(r *rig) { r.dev.push(5, 200, 0) }, func(t *testing.T, r *rig) {
				// Nothing was in flight, so the used index ran ahead: the queue is abandoned.
				if r.d.Stats.BrokenQueues != 1 {
					t.Errorf("stats %+v", r.d.Stats)
				}
				if _, err := r.d.Send(r.dev, 1, r.put(0, []byte("x")), 1); err != ErrBroken {
					t.Errorf("Send on broken queue = %v", err)
				}
			}},
			{"used id not in flight", func(r *rig) {
				r.dev.throttle = true
				r.d.Send(r.dev, 1, r.put(0, []byte("ab")), 2)
				r.d.Send(r.dev, 1, r.put(2, []byte("cd")), 2)
				r.dev.push(5, 77, 0)
			}, func(t *testing.T, r *rig) {
				if r.d.Stats.BadUsedID != 1 || r.d.InFlight(1) != 2 {
					t.Errorf("stats %+v in flight %d", r.d.Stats, r.d.InFlight(1))
				}
			}},
			{"used length beyond the buffer", func(r *rig) {
				e, _ := r.dev.pop(6)
				copy(r.dev.buf(e), "abc")
				r.dev.push(6, e.id, 1<<20)
			}, func(t *testing.T, r *rig) {
				if r.d.Stats.BadUsedLen != 1 || r.d.Buffered(2) != portRxBufSize {
					t.Errorf("stats %+v buffered %d", r.d.Stats, r.d.Buffered(2))
				}
			}},
			{"unknown control event", func(r *rig) { r.dev.sendCtl(1, 99, 1, nil) }, func(t *testing.T, r *rig) {
				if r.d.Stats.UnknownControl != 1 {
					t.Errorf("stats %+v", r.d.Stats)
				}
			}},
			{"short control message", func(r *rig) { r.dev.rawCtl([]byte{1, 0, 0}, 3) }, func(t *testing.T, r *rig) {
				if r.d.Stats.BadControl != 1 {
					t.Errorf("stats %+v", r.d.Stats)
				}
			}},
			{"control length beyond the buffer", func(r *rig) {
				r.dev.rawCtl(ctlBytes(1, ctlPortName, 1, append(bytes.Repeat([]byte("z"), ctlRxBufSize), 0)), 1<<30)
			}, func(t *testing.T, r *rig) {
				if r.d.Stats.BadUsedLen != 1 || r.d.FindPort("org.unitrace.data") != -1 {
					t.Errorf("stats %+v", r.d.Stats)
				}
			}},
			{"port beyond the table", func(r *rig) { r.dev.sendCtl(30, ctlDeviceAdd, 1, nil) }, func(t *testing.T, r *rig) {
				last := r.dev.ctlRecv[len(r.dev.ctlRecv)-1]
				if r.d.Stats.BadControl != 1 || last != [3]uint32{30, ctlPortReady, 0} {
					t.Errorf("stats %+v, last reply %v", r.d.Stats, last)
				}
			}},
			{"events for an absent port", func(r *rig) {
				r.dev.sendCtl(3, ctlPortOpen, 1, nil)
				r.dev.sendCtl(3, ctlPortName, 1, []byte("ghost\x00"))
				r.dev.sendCtl(3, ctlConsolePort, 1, nil)
			}, func(t *testing.T, r *rig) {
				if r.d.Stats.BadControl != 3 || r.d.FindPort("ghost") != -1 {
					t.Errorf("stats %+v", r.d.Stats)
				}
			}},
			{"name too long", func(r *rig) { r.dev.sendCtl(1, ctlPortName, 1, long) }, func(t *testing.T, r *rig) {
				if r.d.Stats.LongNames != 1 || r.d.FindPort(string(long)) != -1 || r.d.FindPort("org.unitrace.data") != -1 {
					t.Errorf("stats %+v", r.d.Stats)
				}
			}},
			{"name without terminator", func(r *rig) { r.dev.sendCtl(1, ctlPortName, 1, []byte("bare")) }, func(t *testing.T, r *rig) {
				if r.d.FindPort("bare") != 1 {
					t.Errorf("unterminated name not taken")
				}
			}},
		} {
			t.Run(ver.name+"/"+tc.name, func(t *testing.T) {
				r := newRig(t, ver.v)
				handshake(t, r)
				tc.act(r)
				r.d.Interrupt(r.dev)
				tc.check(t, r)
				if err := r.guardsIntact(); err != nil {
					t.Error(err)
				}
				checkInvariants(t, r.d)
			})
		}
	}
}

// checkInvariants checks each queue of a console.
func checkInvariants(t testing.TB, d *Device) {
	t.Helper()
	for n := range d.queues {
		checkQueue(t, n, &d.queues[n])
	}
}

// checkQueue checks a queue's free list against its in-use flags, and its chains: each head
// in flight links through in-use descriptors that head nothing, every in-use descriptor
// belongs to exactly one chain, and chains counts the heads.
func checkQueue(t testing.TB, n int, q *queue) {
	t.Helper()
	if q.size == 0 {
		return
	}
	free := 0
	seen := map[uint16]bool{}
	for id, i := q.freeHead, 0; i < int(q.numFree); id, i = q.next[id], i+1 {
		if id >= q.size || q.inUse[id] || seen[id] {
			t.Fatalf("queue %d: bad free list at %d (id %d)", n, i, id)
		}
		seen[id] = true
		free++
	}
	inUse, heads := 0, 0
	owned := map[uint16]bool{}
	for i := uint16(0); i < q.size; i++ {
		if q.inUse[i] {
			inUse++
		}
		if !q.head[i] {
			continue
		}
		heads++
		if !q.inUse[i] {
			t.Fatalf("queue %d: head %d not in use", n, i)
		}
		for d, k := i, 0; d != noLink; d, k = q.link[d], k+1 {
			if d >= q.size || !q.inUse[d] || owned[d] || (k > 0 && q.head[d]) {
				t.Fatalf("queue %d: chain of %d broken at %d", n, i, d)
			}
			owned[d] = true
		}
	}
	if free+inUse != int(q.size) || len(owned) != inUse || heads != int(q.chains) {
		t.Fatalf("queue %d: %d free + %d in use (%d in chains, %d heads, chains %d), size %d",
			n, free, inUse, len(owned), heads, q.chains, q.size)
	}
}
