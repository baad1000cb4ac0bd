package fd

import (
	"bytes"
	"testing"
)

func TestPutEventsGolden(t *testing.T) {
	evs := []Event{{EPOLLIN | EPOLLET, 0x0102030405060708}, {EPOLLOUT, 0xfffe}}
	packed := []byte{
		0x01, 0, 0, 0x80, 8, 7, 6, 5, 4, 3, 2, 1,
		0x04, 0, 0, 0, 0xfe, 0xff, 0, 0, 0, 0, 0, 0,
	}
	aligned := []byte{
		0x01, 0, 0, 0x80, 0xaa, 0xaa, 0xaa, 0xaa, 8, 7, 6, 5, 4, 3, 2, 1,
		0x04, 0, 0, 0, 0xaa, 0xaa, 0xaa, 0xaa, 0xfe, 0xff, 0, 0, 0, 0, 0, 0,
	}
	for _, tt := range []struct {
		packed bool
		want   []byte
	}{{true, packed}, {false, aligned}} {
		dst := bytes.Repeat([]byte{0xaa}, len(tt.want)+5)
		if n := PutEvents(dst, evs, tt.packed); n != 2 {
			t.Fatalf("packed=%v: wrote %d events", tt.packed, n)
		}
		if !bytes.Equal(dst[:len(tt.want)], tt.want) || !bytes.Equal(dst[len(tt.want):], bytes.Repeat([]byte{0xaa}, 5)) {
			t.Errorf("packed=%v: bytes %x, want %x", tt.packed, dst, tt.want)
		}
		for i, want := range evs {
			ev, ok := GetEvent(dst[i*EventSize(tt.packed):], tt.packed)
			if !ok || ev != want {
				t.Errorf("packed=%v: GetEvent %d = %+v, %v", tt.packed, i, ev, ok)
			}
		}
	}
}

func TestPutEventsShortBuffer(t *testing.T) {
	evs := []Event{{1, 1}, {2, 2}, {3, 3}}
	for _, tt := range []struct {
		packed bool
		size   int
		want   int
	}{
		{true, 0, 0}, {true, 11, 0}, {true, 12, 1}, {true, 35, 2}, {true, 100, 3},
		{false, 15, 0}, {false, 16, 1}, {false, 47, 2}, {false, 48, 3},
	} {
		dst := make([]byte, tt.size)
		if n := PutEvents(dst, evs, tt.packed); n != tt.want {
			t.Errorf("PutEvents(packed=%v, %d bytes) = %d, want %d", tt.packed, tt.size, n, tt.want)
		}
	}
	if _, ok := GetEvent(make([]byte, 11), true); ok {
		t.Error("GetEvent of 11 bytes ok")
	}
	if _, ok := GetEvent(make([]byte, 15), false); ok {
		t.Error("GetEvent of 15 bytes ok")
	}
}

func FuzzGetEvent(f *testing.F) {
	f.Add([]byte{1, 0, 0, 0x80, 8, 7, 6, 5, 4, 3, 2, 1, 9, 9, 9, 9}, true)
	f.Add([]byte{1, 2, 3}, false)
	f.Fuzz(func(t *testing.T, src []byte, packed bool) {
		ev, ok := GetEvent(src, packed)
		if ok != (len(src) >= EventSize(packed)) {
			t.Fatalf("ok = %v for %d bytes", ok, len(src))
		}
		if !ok {
			return
		}
		dst := bytes.Clone(src)
		if PutEvents(dst, []Event{ev}, packed) != 1 || !bytes.Equal(dst, src) {
			t.Fatalf("round trip changed %x to %x", src, dst)
		}
	})
}
