package fdt

import (
	"testing"
)

// small is a minimal valid tree: a root with one property and one child.
func small() *tnode {
	return node("", pcells("#address-cells", 1), node("chosen", pstr("bootargs", "hi")))
}

func TestHeaderValid(t *testing.T) {
	b := Blob(build(small(), Region{0x1000, 0x2000}))
	h, err := b.Header()
	if err != OK {
		t.Fatal(err)
	}
	if h.TotalSize != uint32(len(b)) || h.Version != 17 || h.LastCompVersion != 16 || h.OffRsvmap != 40 || h.OffStruct != 40+32 {
		t.Errorf("header %+v", h)
	}
	if n, err := TotalSize(b); err != OK || n != uint32(len(b)) {
		t.Errorf("TotalSize %d %v", n, err)
	}
	if err := b.Check(); err != OK {
		t.Error(err)
	}
	// A longer view (QEMU's 1 MiB blob, or a capped view of RAM) is fine:
	// everything past totalsize is ignored.
	long := append(append([]byte(nil), b...), make([]byte, 100)...)
	if err := Blob(long).Check(); err != OK {
		t.Errorf("longer view: %v", err)
	}
}

func TestHeaderErrors(t *testing.T) {
	good := build(small())
	h, _ := Blob(good).Header()
	tests := []struct {
		name string
		blob []byte
		want Err
	}{
		{"empty", nil, ErrTruncated},
		{"magic only", good[:4], ErrTruncated},
		{"short header", good[:35], ErrTruncated},
		{"v17 header cut", good[:39], ErrTruncated},
		{"cut before totalsize", good[:len(good)-1], ErrTruncated},
		{"bad magic", put32(good, hMagic, 0xfeedd00d), ErrBadMagic},
		{"version 15", put32(good, hVersion, 15), ErrVersion},
		{"last compatible 18", put32(good, hLastCompVersion, 18), ErrVersion},
		{"totalsize below header", put32(good, hTotalSize, 39), ErrLayout},
		{"totalsize huge", put32(good, hTotalSize, 1<<32-1), ErrTruncated},
		{"rsvmap misaligned", put32(good, hOffRsvmap, 44), ErrLayout},
		{"rsvmap in header", put32(good, hOffRsvmap, 32), ErrLayout},
		{"rsvmap past end", put32(good, hOffRsvmap, h.TotalSize-8), ErrLayout},
		{"rsvmap wraps", put32(good, hOffRsvmap, 1<<32-8), ErrLayout},
		{"struct misaligned", put32(good, hOffStruct, h.OffStruct+2), ErrLayout},
		{"struct size odd", put32(good, hSizeStruct, h.SizeStruct-2), ErrLayout},
		{"struct past end", put32(good, hSizeStruct, h.SizeStruct+h.SizeStrings+4), ErrLayout},
		{"struct wraps", put32(good, hOffStruct, 1<<32-4), ErrLayout},
		{"strings past end", put32(good, hSizeStrings, h.SizeStrings+1), ErrLayout},
		{"strings wrap", put32(good, hOffStrings, 1<<32-1), ErrLayout},
		{"strings in header", put32(good, hOffStrings, 4), ErrLayout},
	}
	for _, tt := range tests {
		if _, err := Blob(tt.blob).Header(); err != tt.want {
			t.Errorf("%s: Header %v, want %v", tt.name, err, tt.want)
		}
		if err := Blob(tt.blob).Check(); err != tt.want {
			t.Errorf("%s: Check %v, want %v", tt.name, err, tt.want)
		}
		var m Machine
		if err := Blob(tt.blob).ReadMachine(&m); err != tt.want {
			t.Errorf("%s: Machine %v, want %v", tt.name, err, tt.want)
		}
	}
	if _, err := TotalSize(put32(good, 0, 0)); err != ErrBadMagic {
		t.Errorf("TotalSize bad magic: %v", err)
	}
	if _, err := TotalSize(good[:7]); err != ErrTruncated {
		t.Errorf("TotalSize short: %v", err)
	}
}

// TestVersion16 reads a version 16 blob, whose header has no
// size_dt_struct: the structure block then runs to totalsize.
func TestVersion16(t *testing.T) {
	w := newWriter()
	w.version = 16
	w.tree(small())
	w.end()
	b := Blob(w.blob(0))
	if err := b.Check(); err != OK {
		t.Fatal(err)
	}
	n, err := b.Path("/chosen")
	if v, perr := b.StringProp(n, "bootargs"); err != OK || perr != OK || string(v) != "hi" {
		t.Errorf("bootargs %q %v %v", v, err, perr)
	}
}

func TestReservations(t *testing.T) {
	rsv := []Region{{0x1000, 0x2000}, {0x48000000, 0x100000}, {0, 0x1000}}
	b := Blob(build(small(), rsv...))
	for i, want := range rsv {
		if r, err := b.Reservation(i); err != OK || r != want {
			t.Errorf("Reservation(%d) = %x %v", i, r, err)
		}
	}
	for _, i := range []int{-1, 3, 1 << 40} {
		if _, err := b.Reservation(i); err != ErrIndex {
			t.Errorf("Reservation(%d): %v", i, err)
		}
	}
	// The longest map allowed, then one entry more.
	many := make([]Region, MaxReservations+1)
	for i := range many {
		many[i] = Region{uint64(i+1) << 12, 0x1000}
	}
	if err := Blob(build(small(), many[:MaxReservations]...)).Check(); err != OK {
		t.Errorf("%d reservations: %v", MaxReservations, err)
	}
	b = Blob(build(small(), many...))
	if err := b.Check(); err != ErrReservations {
		t.Errorf("%d reservations: %v", len(many), err)
	}
	if _, err := b.Reservation(0); err != ErrReservations {
		t.Errorf("Reservation on an overlong map: %v", err)
	}
	// A map whose terminator would lie past totalsize: point it at the
	// last 16 bytes of a blob whose tail is not zero.
	b = Blob(build(node("", pstr("x", "0123456789abcdefghijklmnopqrstu")), rsv...))
	h, _ := b.Header()
	b = put32(b, hOffRsvmap, (h.TotalSize-16)&^7)
	if err := b.Check(); err != ErrReservations {
		t.Errorf("map running off the end: %v", err)
	}
}
