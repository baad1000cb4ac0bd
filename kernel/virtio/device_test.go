package virtio

import (
	"bytes"
	"testing"
)

var versions = []struct {
	name string
	v    uint32
}{{"legacy", VersionLegacy}, {"modern", VersionModern}}

// window is a virtio-mmio window with devices in some slots: slot → {device id, version}.
type window map[int][2]uint32

func (w window) Read32(addr uintptr) uint32 {
	slot := int((addr - MicrovmBase) / SlotSize)
	dev, ok := w[slot]
	if !ok {
		if addr%SlotSize == regMagic {
			return Magic // QEMU's empty slots still read the magic, with device id 0
		}
		return 0
	}
	switch addr % SlotSize {
	case regMagic:
		return Magic
	case regDeviceID:
		return dev[0]
	case regVersion:
		return dev[1]
	}
	return 0
}

func (w window) Write32(uintptr, uint32) {}

func TestFindConsole(t *testing.T) {
	top := uintptr(MicrovmBase + 23*SlotSize)
	for _, tc := range []struct {
		name    string
		w       window
		addr    uintptr
		version uint32
		err     Err
	}{
		{"first device in top slot", window{23: {3, 1}}, top, 1, OK},
		{"modern", window{23: {3, 2}}, top, 2, OK},
		{"network first, console next", window{23: {1, 1}, 22: {3, 1}}, top - SlotSize, 1, OK},
		{"two consoles: the top one wins", window{23: {3, 2}, 5: {3, 1}}, top, 2, OK},
		{"empty", window{}, 0, 0, ErrNoDevice},
		{"only other devices", window{23: {2, 1}}, 0, 0, ErrNoDevice},
		{"bad version", window{23: {3, 3}}, 0, 0, ErrVersion},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr, v, err := FindConsole(tc.w, MicrovmBase, MicrovmSlots)
			if addr != tc.addr || v != tc.version || err != tc.err {
				t.Errorf("FindConsole = %#x, %d, %v; want %#x, %d, %v", addr, v, err, tc.addr, tc.version, tc.err)
			}
		})
	}
}

func TestInitFailures(t *testing.T) {
	for _, ver := range versions {
		for _, tc := range []struct {
			name    string
			setup   func(r *rig)
			err     Err
			failed  bool // FAILED must be set
			modOnly bool
		}{
			{"no multiport", func(r *rig) { r.dev.offered &^= 1 << FeatureConsoleMultiport }, ErrNoMultiport, true, false},
			{"no VERSION_1", func(r *rig) { r.dev.offered &^= 1 << FeatureVersion1 }, ErrNoVersion1, true, true},
			{"FEATURES_OK refused", func(r *rig) { r.dev.refuseFeatOK = true }, ErrFeaturesRefused, true, true},
			{"no control queues", func(r *rig) { r.dev.maxPorts = 0; r.dev.ctlQueueMax = 0; r.dev.queueNumMax = 0 }, ErrQueueUnavailable, true, false},
			{"not a console", func(r *rig) { r.dev.devID = 1 }, ErrNotConsole, false, false},
			{"bad version", func(r *rig) { r.dev.version = 7 }, ErrVersion, false, false},
			{"bad magic", func(r *rig) { r.cfg.Base += SlotSize }, ErrBadMagic, false, false},
			{"memory too small", func(r *rig) { r.cfg.MemSize = MemSize - 1 }, ErrMemory, false, false},
			{"memory misaligned", func(r *rig) { r.cfg.MemPA += 8 }, ErrMemory, false, false},
		} {
			if tc.modOnly && ver.v != VersionModern {
				continue
			}
			t.Run(ver.name+"/"+tc.name, func(t *testing.T) {
				r := newRig(t, ver.v)
				r.twoPorts()
				tc.setup(r)
				if err := r.d.Init(r.dev, r.cfg); err != tc.err {
					t.Fatalf("Init = %v, want %v", err, tc.err)
				}
				if got := r.dev.status&statusFailed != 0; got != tc.failed {
					t.Errorf("FAILED set = %v, want %v (status %#x)", got, tc.failed, r.dev.status)
				}
				if r.dev.status&statusDriverOK != 0 || r.d.Ready() {
					t.Errorf("driver came up after %v", tc.err)
				}
				if _, err := r.d.Send(r.dev, 1, uintptr(r.bufs), 1); err != ErrNotReady {
					t.Errorf("Send after failed Init = %v", err)
				}
				if err := r.guardsIntact(); err != nil {
					t.Error(err)
				}
			})
		}
	}
}

// handshake brings up the rig with the two unitrace ports and processes the port announcements.
func handshake(t testing.TB, r *rig) Events {
	t.Helper()
	r.twoPorts()
	r.init(t)
	return r.d.Interrupt(r.dev)
}

func TestHandshake(t *testing.T) {
	for _, ver := range versions {
		t.Run(ver.name, func(t *testing.T) {
			r := newRig(t, ver.v)
			ev := handshake(t, r)
			if ev.Ports != 1<<1|1<<2 {
				t.Errorf("changed ports %#b, want ports 1 and 2", ev.Ports)
			}
			wantStatus := []uint32{0, 1, 3, 3 | 4}
			if ver.v == VersionModern {
				wantStatus = []uint32{0, 1, 3, 3 | 8, 3 | 8 | 4}
			}
			if !equalU32(r.dev.statusLog, wantStatus) {
				t.Errorf("status writes %#x, want %#x", r.dev.statusLog, wantStatus)
			}
			wantFeat := uint64(1 << FeatureConsoleMultiport)
			if ver.v == VersionModern {
				wantFeat |= 1 << FeatureVersion1
			}
			if r.dev.driverFeat != wantFeat {
				t.Errorf("driver features %#x, want %#x", r.dev.driverFeat, wantFeat)
			}
			want := [][3]uint32{{0, ctlDeviceReady, 1}, {1, ctlPortReady, 1}, {2, ctlPortReady, 1}}
			if len(r.dev.ctlRecv) != len(want) {
				t.Fatalf("device got control messages %v, want %v", r.dev.ctlRecv, want)
			}
			for i := range want {
				if r.dev.ctlRecv[i] != want[i] {
					t.Errorf("control message %d = %v, want %v", i, r.dev.ctlRecv[i], want[i])
				}
			}
			data, ctl := r.d.FindPort("org.unitrace.data"), r.d.FindPort("org.unitrace.ctl")
			if data != 1 || ctl != 2 || r.d.FindPort("org.unitrace") != -1 || r.d.FindPort("") != -1 {
				t.Fatalf("FindPort: data %d ctl %d", data, ctl)
			}
			if p := r.d.Port(data); !p.Present || !p.HostConnected || p.GuestOpen || p.Console {
				t.Errorf("data port %+v", p)
			}
			if p := r.d.Port(ctl); !p.Present || p.HostConnected {
				t.Errorf("ctl port %+v", p)
			}
			if r.dev.dropped != 0 {
				t.Errorf("device dropped %d control messages", r.dev.dropped)
			}
			// Replies the device sent while the handler ran were handled in the same pass; the
			// interrupt they raised finds nothing more.
			if ev := r.d.Interrupt(r.dev); ev.Any() {
				t.Errorf("second interrupt changed %+v", ev)
			}
			if r.d.Stats != (Stats{}) {
				t.Errorf("stats %+v", r.d.Stats)
			}
			if err := r.guardsIntact(); err != nil {
				t.Error(err)
			}
		})
	}
}

func equalU32(a, b []uint32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestSendCompletes(t *testing.T) {
	for _, ver := range versions {
		t.Run(ver.name, func(t *testing.T) {
			r := newRig(t, ver.v)
			handshake(t, r)
			msg := []byte("HELLO frame")
			tok, err := r.d.Send(r.dev, 1, r.put(0, msg), uint32(len(msg)))
			if err != OK {
				t.Fatalf("Send: %v", err)
			}
			if r.d.Done(1, tok) {
				t.Error("Done before the interrupt was processed")
			}
			ev := r.d.Interrupt(r.dev)
			if ev.TxDone != 1<<1 || !r.d.Done(1, tok) || r.d.InFlight(1) != 0 {
				t.Errorf("after interrupt: events %+v done %v in flight %d", ev, r.d.Done(1, tok), r.d.InFlight(1))
			}
			if got := r.dev.port(1).out; !bytes.Equal(got, msg) {
				t.Errorf("host read %q, want %q", got, msg)
			}
		})
	}
}

func TestThrottledSendAndQueueFull(t *testing.T) {
	for _, ver := range versions {
		t.Run(ver.name, func(t *testing.T) {
			r := newRig(t, ver.v)
			handshake(t, r)
			r.dev.throttle = true
			var toks []Token
			for i := 0; ; i++ {
				tok, err := r.d.Send(r.dev, 1, r.put(i, []byte{byte(i)}), 1)
				if err == ErrQueueFull {
					break
				}
				if err != OK || i > MaxQueueSize {
					t.Fatalf("Send %d: %v", i, err)
				}
				toks = append(toks, tok)
			}
			if len(toks) != MaxQueueSize {
				t.Fatalf("queued %d buffers before full, want %d", len(toks), MaxQueueSize)
			}
			if ev := r.d.Interrupt(r.dev); ev.TxDone != 0 || r.d.Done(1, toks[0]) {
				t.Fatalf("throttled host completed buffers: %+v", ev)
			}
			r.dev.throttle = false
			r.dev.drain(1)
			if ev := r.d.Interrupt(r.dev); ev.TxDone != 1<<1 {
				t.Errorf("events after drain %+v", ev)
			}
			for i, tok := range toks {
				if !r.d.Done(1, tok) {
					t.Fatalf("token %d not done after drain", i)
				}
			}
			if got := r.dev.port(1).out; len(got) != MaxQueueSize || got[5] != 5 {
				t.Errorf("host read %d bytes", len(got))
			}
			// Reused descriptors get new tokens; the old ones stay done.
			tok, err := r.d.Send(r.dev, 1, r.put(0, []byte{1}), 1)
			if err != OK || tok == toks[0] || !r.d.Done(1, toks[0]) {
				t.Errorf("resend: %v token %#x old %#x", err, tok, toks[0])
			}
		})
	}
}

func TestPortOpenClose(t *testing.T) {
	for _, ver := range versions {
		t.Run(ver.name, func(t *testing.T) {
			r := newRig(t, ver.v)
			handshake(t, r)
			if _, err := r.d.Send(r.dev, 2, r.put(0, []byte("x")), 1); err != ErrHostClosed {
				t.Errorf("Send to closed host = %v", err)
			}
			r.dev.setHost(2, true)
			if ev := r.d.Interrupt(r.dev); ev.Ports != 1<<2 || !r.d.Port(2).HostConnected {
				t.Errorf("host open: %+v %+v", ev, r.d.Port(2))
			}
			if _, err := r.d.Send(r.dev, 2, r.put(0, []byte("x")), 1); err != OK {
				t.Errorf("Send to open host = %v", err)
			}
			if err := r.d.Open(r.dev, 2); err != OK || !r.dev.port(2).guestConnected || !r.d.Port(2).GuestOpen {
				t.Errorf("Open: %v", err)
			}
			if err := r.d.Close(r.dev, 2); err != OK || r.dev.port(2).guestConnected {
				t.Errorf("Close: %v", err)
			}
			r.dev.setHost(2, false)
			r.d.Interrupt(r.dev)
			if r.d.Port(2).HostConnected {
				t.Error("host close not seen")
			}
			for _, p := range []int{-1, 0, 3, 4, 99} {
				if _, err := r.d.Send(r.dev, p, r.put(0, []byte("x")), 1); err != ErrBadPort {
					t.Errorf("Send to port %d = %v", p, err)
				}
				if err := r.d.Open(r.dev, p); err != ErrBadPort {
					t.Errorf("Open port %d = %v", p, err)
				}
			}
			if _, err := r.d.Send(r.dev, 1, r.put(0, nil), 0); err != ErrBadBuffer {
				t.Errorf("empty Send = %v", err)
			}
			// Removal: the port disappears and its name no longer matches.
			r.dev.sendCtl(1, ctlDeviceRemove, 1, nil)
			if ev := r.d.Interrupt(r.dev); ev.Ports != 1<<1 || r.d.FindPort("org.unitrace.data") != -1 {
				t.Errorf("remove: %+v", ev)
			}
		})
	}
}

func TestReceive(t *testing.T) {
	for _, ver := range versions {
		t.Run(ver.name, func(t *testing.T) {
			r := newRig(t, ver.v)
			handshake(t, r)
			// More than the posted buffers hold: the rest waits in the device until Receive
			// gives buffers back.
			want := make([]byte, portRxBufs*portRxBufSize+1500)
			for i := range want {
				want[i] = byte(i*7 + i>>8)
			}
			r.dev.hostWrite(2, want)
			ev := r.d.Interrupt(r.dev)
			if ev.RxData != 1<<2 || r.d.Buffered(2) != portRxBufs*portRxBufSize {
				t.Fatalf("events %+v buffered %d", ev, r.d.Buffered(2))
			}
			var got []byte
			chunk := make([]byte, 333)
			for len(got) < len(want) {
				n, err := r.d.Receive(r.dev, 2, chunk)
				if err != OK {
					t.Fatalf("Receive: %v", err)
				}
				got = append(got, chunk[:n]...)
				if n == 0 {
					if ev := r.d.Interrupt(r.dev); ev.RxData == 0 {
						t.Fatalf("stalled after %d bytes", len(got))
					}
				}
			}
			if !bytes.Equal(got, want) {
				t.Error("received bytes differ")
			}
			if n, _ := r.d.Receive(r.dev, 2, chunk); n != 0 || r.d.Buffered(2) != 0 {
				t.Errorf("extra bytes %d", n)
			}
		})
	}
}
