package virtio

import (
	"bytes"
	"encoding/binary"
	"math/rand"
	"strings"
	"testing"
)

// echo answers a request with "R" and the request's bytes, as far as the reply buffer holds.
func echo(req, resp []byte) uint32 {
	n := copy(resp, "R")
	n += copy(resp[n:], req)
	return uint32(n)
}

func TestFindDevices(t *testing.T) {
	top := uintptr(MicrovmBase + 23*SlotSize)
	w := window{23: {DeviceID9P, 1}, 22: {DeviceIDConsole, 1}, 21: {DeviceID9P, 2}, 3: {DeviceID9P, 7}}
	var out [4]uintptr
	if n := FindDevices(w, MicrovmBase, MicrovmSlots, DeviceID9P, out[:]); n != 3 ||
		out[0] != top || out[1] != top-2*SlotSize || out[2] != MicrovmBase+3*SlotSize {
		t.Errorf("FindDevices = %d %#x", n, out[:n])
	}
	if n := FindDevices(w, MicrovmBase, MicrovmSlots, DeviceID9P, out[:2]); n != 2 || out[1] != top-2*SlotSize {
		t.Errorf("FindDevices into 2 = %d %#x", n, out[:n])
	}
	if n := FindDevices(w, MicrovmBase, MicrovmSlots, DeviceIDConsole, out[:]); n != 1 || out[0] != top-SlotSize {
		t.Errorf("FindDevices console = %d %#x", n, out[:n])
	}
	if n := FindDevices(window{}, MicrovmBase, MicrovmSlots, DeviceID9P, out[:]); n != 0 {
		t.Errorf("FindDevices in an empty window = %d", n)
	}
	if n := FindDevices(w, MicrovmBase, MicrovmSlots, DeviceID9P, nil); n != 0 {
		t.Errorf("FindDevices into nothing = %d", n)
	}
}

func TestNinePInit(t *testing.T) {
	for _, ver := range versions {
		t.Run(ver.name, func(t *testing.T) {
			r := newNineRig(t, ver.v, "share")
			r.init(t)
			wantStatus := []uint32{0, 1, 3, 3 | 4}
			wantFeat := uint64(1 << Feature9PMountTag)
			if ver.v == VersionModern {
				wantStatus = []uint32{0, 1, 3, 3 | 8, 3 | 8 | 4}
				wantFeat |= 1 << FeatureVersion1
			}
			if !equalU32(r.dev.statusLog, wantStatus) {
				t.Errorf("status writes %#x, want %#x", r.dev.statusLog, wantStatus)
			}
			if r.dev.driverFeat != wantFeat {
				t.Errorf("driver features %#x, want %#x", r.dev.driverFeat, wantFeat)
			}
			if q := r.dev.queues[0]; !q.ready || q.num != MaxQueueSize {
				t.Errorf("request queue %+v", q)
			}
			if !r.d.Ready() || r.d.Version() != ver.v || r.d.InFlight() != 0 || r.d.Broken() {
				t.Errorf("ready %v version %d in flight %d", r.d.Ready(), r.d.Version(), r.d.InFlight())
			}
			var tag [MaxMountTagLen]byte
			if n := r.d.MountTag(tag[:]); string(tag[:n]) != "share" || r.d.MountTagLen() != 5 {
				t.Errorf("mount tag %q", tag[:n])
			}
			if r.dev.nine.wordReads != 0 {
				t.Errorf("%d 32-bit configuration reads", r.dev.nine.wordReads)
			}
			r.guardsIntact(t)
		})
	}
}

func TestNinePInitFailures(t *testing.T) {
	for _, ver := range versions {
		for _, tc := range []struct {
			name    string
			setup   func(r *nineRig)
			err     Err
			failed  bool // FAILED must be set
			modOnly bool
		}{
			{"no mount tag feature", func(r *nineRig) { r.dev.offered &^= 1 << Feature9PMountTag }, ErrNoMountTag, true, false},
			{"no VERSION_1", func(r *nineRig) { r.dev.offered &^= 1 << FeatureVersion1 }, ErrNoVersion1, true, true},
			{"FEATURES_OK refused", func(r *nineRig) { r.dev.refuseFeatOK = true }, ErrFeaturesRefused, true, true},
			{"no request queue", func(r *nineRig) { r.dev.queueNumMax = 0 }, ErrQueueUnavailable, true, false},
			{"a console", func(r *nineRig) { r.dev.devID = DeviceIDConsole }, ErrNotNineP, false, false},
			{"bad version", func(r *nineRig) { r.dev.version = 3 }, ErrVersion, false, false},
			{"bad magic", func(r *nineRig) { r.cfg.Base += SlotSize }, ErrBadMagic, false, false},
			{"memory too small", func(r *nineRig) { r.cfg.MemSize = NinePMemSize - 1 }, ErrMemory, false, false},
			{"memory misaligned", func(r *nineRig) { r.cfg.MemPA += 8 }, ErrMemory, false, false},
			{"memory wraps", func(r *nineRig) { r.cfg.MemPA = ^uintptr(0) &^ (pageSize - 1) }, ErrMemory, false, false},
		} {
			if tc.modOnly && ver.v != VersionModern {
				continue
			}
			t.Run(ver.name+"/"+tc.name, func(t *testing.T) {
				r := newNineRig(t, ver.v, "tag")
				tc.setup(r)
				if err := r.d.Init(r.dev, r.dev, r.cfg); err != tc.err {
					t.Fatalf("Init = %v, want %v", err, tc.err)
				}
				if got := r.dev.status&statusFailed != 0; got != tc.failed {
					t.Errorf("FAILED set = %v, want %v (status %#x)", got, tc.failed, r.dev.status)
				}
				if r.dev.status&statusDriverOK != 0 || r.d.Ready() {
					t.Errorf("driver came up after %v", tc.err)
				}
				if _, err := r.d.Send(r.dev, r.slot(0, 64), 7, r.slot(1, 64), 64); err != ErrNotReady {
					t.Errorf("Send after failed Init = %v", err)
				}
				if n, more, raised := r.d.Interrupt(r.dev, make([]NineCompletion, 4)); n != 0 || more || raised {
					t.Errorf("Interrupt after failed Init = %d %v %v", n, more, raised)
				}
				r.guardsIntact(t)
			})
		}
	}
}

func TestNinePLegacyQueuePFNLimit(t *testing.T) {
	r := newNineRig(t, VersionLegacy, "tag")
	r.cfg.MemPA = 1 << 44 // page number 1<<32: beyond QueuePFN
	if err := r.d.Init(r.dev, r.dev, r.cfg); err != ErrMemory {
		t.Errorf("Init with memory above 16 TiB = %v", err)
	}
}

func TestMountTag(t *testing.T) {
	for _, ver := range versions {
		for _, n := range []int{0, 1, 2, 3, 4, 5, 6, 7, 31, MaxMountTagLen} {
			tag := strings.Repeat("abcdefghijklmnopqrstuvwxyz0123456789", 8)[:n]
			r := newNineRig(t, ver.v, tag)
			r.init(t)
			var got [MaxMountTagLen + 8]byte
			if m := r.d.MountTag(got[:]); string(got[:m]) != tag || r.d.MountTagLen() != n {
				t.Errorf("%s: tag of %d bytes read as %q", ver.name, n, got[:m])
			}
			if r.d.Stats != (Stats{}) {
				t.Errorf("%s: tag of %d bytes: stats %+v", ver.name, n, r.d.Stats)
			}
			if n > 2 {
				var short [2]byte
				if m := r.d.MountTag(short[:]); m != 2 || string(short[:]) != tag[:2] {
					t.Errorf("%s: MountTag into 2 bytes = %d %q", ver.name, m, short)
				}
			}
		}
	}
}

func TestMountTagMisreported(t *testing.T) {
	for _, ver := range versions {
		t.Run(ver.name, func(t *testing.T) {
			// tag_len claims more than the configuration window can hold: the driver reads to
			// the window's end (QEMU's all-ones past the configuration size) and counts it.
			r := newNineRig(t, ver.v, "")
			r.dev.nine.config = append(binary.LittleEndian.AppendUint16(nil, 0xffff), "short"...)
			r.init(t)
			var got [MaxMountTagLen]byte
			m := r.d.MountTag(got[:])
			if m != MaxMountTagLen || string(got[:5]) != "short" || got[5] != 0xff || r.d.Stats.BadConfig != 1 {
				t.Errorf("tag %d bytes %q, stats %+v", m, got[:8], r.d.Stats)
			}
			// The device works regardless.
			r.dev.nine.serve = echo
			if _, err := r.d.Send(r.dev, r.slot(0, 64), 1, r.slot(1, 64), 64); err != OK {
				t.Errorf("Send: %v", err)
			}
		})
	}
}

func TestMountTagGeneration(t *testing.T) {
	// The modern interface's ConfigGeneration changes while the tag is read: the driver reads
	// it again.
	r := newNineRig(t, VersionModern, "old-tag")
	r.dev.nine.swapAfter, r.dev.nine.swapTo = 3, tagConfig("new")
	r.init(t)
	var got [MaxMountTagLen]byte
	if m := r.d.MountTag(got[:]); string(got[:m]) != "new" {
		t.Errorf("tag %q after a generation change", got[:m])
	}
}

func TestNinePRoundTrip(t *testing.T) {
	for _, ver := range versions {
		t.Run(ver.name, func(t *testing.T) {
			r := newNineRig(t, ver.v, "tag")
			r.init(t)
			r.dev.nine.serve = echo
			req, resp := r.slot(0, 256), r.slot(1, 256)
			r.put(req, []byte("Tversion"))
			tok, err := r.d.Send(r.dev, req, 8, resp, 256)
			if err != OK {
				t.Fatalf("Send: %v", err)
			}
			if r.d.Done(tok) || r.d.InFlight() != 1 {
				t.Errorf("done before the interrupt: in flight %d", r.d.InFlight())
			}
			var out [4]NineCompletion
			n, more, raised := r.d.Interrupt(r.dev, out[:])
			if n != 1 || more || !raised || out[0] != (NineCompletion{tok, 9}) {
				t.Fatalf("Interrupt = %d %v %v %+v", n, more, raised, out[:n])
			}
			if got := r.get(resp, 9); string(got) != "RTversion" {
				t.Errorf("reply %q", got)
			}
			if !r.d.Done(tok) || r.d.InFlight() != 0 || r.dev.intStatus != 0 {
				t.Errorf("after completion: done %v in flight %d status %#x", r.d.Done(tok), r.d.InFlight(), r.dev.intStatus)
			}
			// A shared line raised by someone else: not ours, nothing harvested.
			if n, more, raised := r.d.Interrupt(r.dev, out[:]); n != 0 || more || raised {
				t.Errorf("second Interrupt = %d %v %v", n, more, raised)
			}
			// A reply that fills the buffer exactly, and a one-byte reply buffer.
			r.put(req, bytes.Repeat([]byte{'x'}, 255))
			tok, _ = r.d.Send(r.dev, req, 255, resp, 256)
			if n, _ := r.d.Poll(r.dev, out[:]); n != 1 || out[0] != (NineCompletion{tok, 256}) {
				t.Errorf("full reply: %+v", out[:n])
			}
			tok, _ = r.d.Send(r.dev, req, 255, resp, 1)
			if n, _ := r.d.Poll(r.dev, out[:]); n != 1 || out[0] != (NineCompletion{tok, 1}) {
				t.Errorf("one-byte reply: %+v", out[:n])
			}
			for _, b := range []struct {
				req, resp uint32
				reqPA     uintptr
			}{{0, 64, req}, {8, 0, req}, {8, 64, ^uintptr(0) - 4}} {
				if _, err := r.d.Send(r.dev, b.reqPA, b.req, resp, b.resp); err != ErrBadBuffer {
					t.Errorf("Send(%d, %d) = %v", b.req, b.resp, err)
				}
			}
			if r.d.Stats != (Stats{}) || r.dev.nine.badChains != 0 {
				t.Errorf("stats %+v, bad chains %d", r.d.Stats, r.dev.nine.badChains)
			}
			checkQueue(t, 0, &r.d.q)
			r.guardsIntact(t)
		})
	}
}

func TestNinePManyInFlight(t *testing.T) {
	for _, ver := range versions {
		t.Run(ver.name, func(t *testing.T) {
			r := newNineRig(t, ver.v, "tag")
			r.init(t)
			r.dev.nine.serve = echo
			r.dev.nine.hold = true
			const bufSize = 128
			tokens := map[Token]int{}
			for i := 0; ; i++ {
				req := r.slot(2*i, bufSize)
				r.put(req, []byte{byte(i), byte(i >> 8)})
				tok, err := r.d.Send(r.dev, req, uint32(1+i%2), r.slot(2*i+1, bufSize), bufSize)
				if err == ErrQueueFull {
					break
				}
				if err != OK || i > MaxQueueSize/2 {
					t.Fatalf("Send %d: %v", i, err)
				}
				tokens[tok] = i
			}
			if len(tokens) != MaxQueueSize/2 || r.d.InFlight() != MaxQueueSize/2 || len(r.dev.nine.held) != MaxQueueSize/2 {
				t.Fatalf("%d requests in flight before full, want %d", len(tokens), MaxQueueSize/2)
			}
			checkQueue(t, 0, &r.d.q)
			// The device answers in a random order; completions come out in that order, a few
			// per call.
			rng := rand.New(rand.NewSource(1))
			var order []int
			for len(r.dev.nine.held) > 0 {
				i := rng.Intn(len(r.dev.nine.held))
				order = append(order, int(r.dev.nine.held[i].req.addr-uint64(r.bufs))/(2*bufSize))
				r.dev.release(i)
			}
			var got []int
			out := make([]NineCompletion, 5)
			for calls := 0; ; calls++ {
				n, more, raised := r.d.Interrupt(r.dev, out)
				if calls == 0 && (!raised || !more || n != len(out)) {
					t.Fatalf("first Interrupt = %d %v %v", n, more, raised)
				}
				for _, c := range out[:n] {
					i, ok := tokens[c.Token]
					if !ok {
						t.Fatalf("completion of unknown token %#x", c.Token)
					}
					delete(tokens, c.Token)
					if want := uint32(2 + i%2); c.Len != want {
						t.Errorf("request %d: used length %d, want %d", i, c.Len, want)
					}
					reply := r.get(r.slot(2*i+1, bufSize), c.Len)
					if reply[0] != 'R' || reply[1] != byte(i) {
						t.Errorf("request %d: reply %x", i, reply)
					}
					got = append(got, i)
				}
				if !more {
					break
				}
			}
			if len(tokens) != 0 || len(got) != len(order) {
				t.Fatalf("%d requests never completed", len(tokens))
			}
			for k := range got {
				if got[k] != order[k] {
					t.Fatalf("completion %d is request %d, the device answered %d", k, got[k], order[k])
				}
			}
			checkQueue(t, 0, &r.d.q)
			if r.d.InFlight() != 0 || r.d.q.numFree != MaxQueueSize {
				t.Errorf("in flight %d, free %d", r.d.InFlight(), r.d.q.numFree)
			}
			// Every descriptor is free again; reused descriptors get new tokens.
			r.dev.nine.hold = false
			for i := 0; i < MaxQueueSize; i++ {
				tok, err := r.d.Send(r.dev, r.slot(0, bufSize), 1, r.slot(1, bufSize), bufSize)
				if err != OK {
					t.Fatalf("resend %d: %v", i, err)
				}
				if n, _ := r.d.Poll(r.dev, out); n != 1 || out[0].Token != tok {
					t.Fatalf("resend %d: %+v", i, out[:n])
				}
			}
			if r.d.Stats != (Stats{}) || r.dev.nine.badChains != 0 {
				t.Errorf("stats %+v, bad chains %d", r.d.Stats, r.dev.nine.badChains)
			}
			r.guardsIntact(t)
		})
	}
}

// TestNinePSmallQueue runs with the device's QueueNumMax below MaxQueueSize.
func TestNinePSmallQueue(t *testing.T) {
	r := newNineRig(t, VersionModern, "tag")
	r.dev.queueNumMax = 5 // rounded down to 4: two requests
	r.init(t)
	r.dev.nine.hold = true
	for i := 0; i < 3; i++ {
		_, err := r.d.Send(r.dev, r.slot(0, 64), 1, r.slot(1, 64), 64)
		if want := map[bool]Err{true: OK, false: ErrQueueFull}[i < 2]; err != want {
			t.Errorf("Send %d = %v, want %v", i, err, want)
		}
	}
	if r.dev.queues[0].num != 4 {
		t.Errorf("queue size %d", r.dev.queues[0].num)
	}
}

func TestNinePMisbehaving(t *testing.T) {
	for _, ver := range versions {
		for _, tc := range []struct {
			name  string
			act   func(r *nineRig) // two requests are held when it runs
			check func(t *testing.T, r *nineRig, got []NineCompletion)
		}{
			{"used id not in flight", func(r *nineRig) { r.dev.push(0, 77, 0) }, func(t *testing.T, r *nineRig, got []NineCompletion) {
				if r.d.Stats.BadUsedID != 1 || r.d.InFlight() != 2 || len(got) != 0 {
					t.Errorf("stats %+v in flight %d got %v", r.d.Stats, r.d.InFlight(), got)
				}
			}},
			{"used id out of range", func(r *nineRig) { r.dev.push(0, 1000, 0) }, func(t *testing.T, r *nineRig, got []NineCompletion) {
				if r.d.Stats.BadUsedID != 1 || r.d.InFlight() != 2 {
					t.Errorf("stats %+v in flight %d", r.d.Stats, r.d.InFlight())
				}
			}},
			{"id of a chain's reply descriptor", func(r *nineRig) {
				r.dev.push(0, uint16(r.dev.nine.held[0].resp.id), 4)
				r.dev.release(1)
			}, func(t *testing.T, r *nineRig, got []NineCompletion) {
				// The bad entry is skipped; the real completion after it still counts.
				if r.d.Stats.BadUsedID != 1 || r.d.InFlight() != 1 || len(got) != 1 {
					t.Errorf("stats %+v in flight %d got %v", r.d.Stats, r.d.InFlight(), got)
				}
			}},
			{"a chain completed twice", func(r *nineRig) {
				c := r.dev.nine.held[0]
				r.dev.release(0)
				r.dev.push(0, c.head, 1)
			}, func(t *testing.T, r *nineRig, got []NineCompletion) {
				if r.d.Stats.BadUsedID != 1 || r.d.InFlight() != 1 || len(got) != 1 {
					t.Errorf("stats %+v in flight %d got %v", r.d.Stats, r.d.InFlight(), got)
				}
			}},
			{"used length beyond the reply", func(r *nineRig) {
				r.dev.push(0, r.dev.nine.held[0].head, 1<<30)
			}, func(t *testing.T, r *nineRig, got []NineCompletion) {
				if r.d.Stats.BadUsedLen != 1 || len(got) != 1 || got[0].Len != 64 {
					t.Errorf("stats %+v got %v", r.d.Stats, got)
				}
			}},
			{"used length the request's plus reply's", func(r *nineRig) {
				r.dev.push(0, r.dev.nine.held[0].head, 64+3)
			}, func(t *testing.T, r *nineRig, got []NineCompletion) {
				if r.d.Stats.BadUsedLen != 1 || len(got) != 1 || got[0].Len != 64 {
					t.Errorf("stats %+v got %v", r.d.Stats, got)
				}
			}},
			{"index running ahead", func(r *nineRig) {
				r.dev.release(0)
				q := &r.dev.queues[0]
				q.usedIdx += 5
				_, _, used, _, _ := r.dev.rings(0)
				binary.LittleEndian.PutUint16(r.mem.bytes(used+2, 2), q.usedIdx)
			}, func(t *testing.T, r *nineRig, got []NineCompletion) {
				if r.d.Stats.BrokenQueues != 1 || !r.d.Broken() || len(got) != 0 {
					t.Errorf("stats %+v got %v", r.d.Stats, got)
				}
				if _, err := r.d.Send(r.dev, r.slot(0, 64), 1, r.slot(1, 64), 64); err != ErrBroken {
					t.Errorf("Send on a broken queue = %v", err)
				}
			}},
		} {
			t.Run(ver.name+"/"+tc.name, func(t *testing.T) {
				r := newNineRig(t, ver.v, "tag")
				r.init(t)
				r.dev.nine.serve = echo
				r.dev.nine.hold = true
				for i := 0; i < 2; i++ {
					r.put(r.slot(2*i, 64), []byte("T"))
					if _, err := r.d.Send(r.dev, r.slot(2*i, 64), 1, r.slot(2*i+1, 64), 64); err != OK {
						t.Fatalf("Send: %v", err)
					}
				}
				tc.act(r)
				var got []NineCompletion
				out := make([]NineCompletion, 8)
				for {
					n, more, _ := r.d.Interrupt(r.dev, out)
					got = append(got, out[:n]...)
					if !more {
						break
					}
				}
				tc.check(t, r, got)
				checkQueue(t, 0, &r.d.q)
				r.guardsIntact(t)
			})
		}
	}
}

// TestTokenNeverZero posts more buffers on one descriptor than its generation counts: the
// generation wraps around without ever making a token 0, which callers use for "none".
func TestTokenNeverZero(t *testing.T) {
	mem := newArena(t, arenaBase, queueStride)
	var q queue
	q.setup(0, 1, mem.directMap()+arenaBase, arenaBase)
	var st Stats
	prev := Token(0)
	for i := 0; i < 1<<16+10; i++ {
		id, gen, ok := q.post(arenaBase, 1, true)
		tok := makeToken(id, gen)
		if !ok || tok == 0 || tok == prev {
			t.Fatalf("post %d: token %#x ok %v (previous %#x)", i, tok, ok, prev)
		}
		// The device hands it back: used entry 0 names descriptor 0, then the index moves.
		used := mem.bytes(uint64(arenaBase+usedOffset(1)), 12)
		binary.LittleEndian.PutUint32(used[4:], 0)
		binary.LittleEndian.PutUint16(used[2:], uint16(i+1))
		if u, ok := q.harvest(&st); !ok || makeToken(u.id, u.gen) != tok {
			t.Fatalf("harvest %d: %+v %v", i, u, ok)
		}
		prev = tok
	}
	if st != (Stats{}) {
		t.Errorf("stats %+v", st)
	}
}
