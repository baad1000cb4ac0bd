package imageid

import (
	"bytes"
	"testing"
	"unsafe"
)

func TestSlotLayout(t *testing.T) {
	if got := unsafe.Sizeof(Slot{}); got != Size {
		t.Fatalf("Slot is %d bytes, Size says %d", got, Size)
	}
}

func TestFillThenRead(t *testing.T) {
	var s Slot
	copy(s.Marker[:], Magic)
	if s.Read() != nil {
		t.Fatal("an unfilled slot has an id")
	}
	raw := unsafe.Slice((*byte)(unsafe.Pointer(&s)), Size)
	id := []byte{1, 2, 3, 4, 5}
	if !Fill(raw, id) || !bytes.Equal(s.Read(), id) {
		t.Fatalf("after Fill: %x", s.Read())
	}
	if !Fill(raw, id[:2]) || !bytes.Equal(s.Read(), id[:2]) { // refilling a filled slot
		t.Fatalf("after refill: %x", s.Read())
	}
	if Fill(raw, make([]byte, MaxID+1)) {
		t.Fatal("Fill took an id that does not fit")
	}
	if Fill(make([]byte, Size), id) {
		t.Fatal("Fill wrote into bytes that are no slot")
	}
}
