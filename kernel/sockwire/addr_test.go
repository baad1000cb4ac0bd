package sockwire

import (
	"encoding/binary"
	"net/netip"
	"testing"
)

func rawAddr(ap netip.AddrPort) []byte {
	if ap.Addr().Is4() {
		b := make([]byte, sockaddrIn)
		binary.LittleEndian.PutUint16(b, afINET)
		binary.BigEndian.PutUint16(b[2:], ap.Port())
		a := ap.Addr().As4()
		copy(b[4:], a[:])
		return b
	}
	b := make([]byte, sockaddrIn6)
	binary.LittleEndian.PutUint16(b, afINET6)
	binary.BigEndian.PutUint16(b[2:], ap.Port())
	a := ap.Addr().As16()
	copy(b[8:], a[:])
	return b
}

// TestFormatAddr: the text is net/netip's, for addresses of every shape.
func TestFormatAddr(t *testing.T) {
	for _, s := range []string{"127.0.0.1:8080", "0.0.0.0:0", "255.255.255.255:65535", "[::1]:443", "[::]:0",
		"[2001:db8::1]:53", "[2001:db8:0:1:0:0:0:1]:1", "[1:0:0:2:0:0:0:3]:9", "[fe80::1:2:3:4]:80",
		"[::ffff:127.0.0.1]:80", "[1:2:3:4:5:6:7:8]:8", "[0:1::]:7"} {
		ap := netip.MustParseAddrPort(s)
		var b [64]byte
		n := FormatAddr(b[:], rawAddr(ap))
		if got, want := string(b[:n]), ap.String(); got != want {
			t.Errorf("FormatAddr(%s) = %q, want %q", s, got, want)
		}
	}
	var b [8]byte
	if n := FormatAddr(b[:], []byte{1, 0}); string(b[:n]) != "?" {
		t.Errorf("AF_UNIX: %q", b[:n])
	}
	if n := FormatAddr(b[:], rawAddr(netip.MustParseAddrPort("10.20.30.40:5000"))); n != 8 || string(b[:n]) != "10.20.30" {
		t.Errorf("cut: %q", b[:n])
	}
}

func FuzzFormatAddr(f *testing.F) {
	f.Add(rawAddr(netip.MustParseAddrPort("[2001:db8::1]:53")))
	f.Add(rawAddr(netip.MustParseAddrPort("1.2.3.4:5")))
	f.Fuzz(func(t *testing.T, sa []byte) {
		var b [64]byte
		n := FormatAddr(b[:], sa)
		if len(sa) >= sockaddrIn6 && binary.LittleEndian.Uint16(sa) == afINET6 {
			var a [16]byte
			copy(a[:], sa[8:24])
			want := netip.AddrPortFrom(netip.AddrFrom16(a), binary.BigEndian.Uint16(sa[2:])).String()
			if string(b[:n]) != want {
				t.Fatalf("%x: %q, want %q", sa, b[:n], want)
			}
		}
	})
}
