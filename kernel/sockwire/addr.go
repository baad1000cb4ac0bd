package sockwire

import (
	"encoding/binary"

	"github.com/unitrace/unitrace/decimal"
)

// Socket addresses in Linux's layout (struct sockaddr_in and sockaddr_in6, <netinet/in.h>):
// the family in host order, the port in network order.
const (
	afINET      = 2
	afINET6     = 10
	sockaddrIn  = 16
	sockaddrIn6 = 28
)

// FormatAddr writes a socket address as text into dst ("127.0.0.1:8080", "[::1]:443", as
// net/netip writes them) and returns its length, cut at len(dst); an address of another family
// or too short for its own is "?". The tracer's records carry it.
func FormatAddr(dst []byte, sa []byte) int {
	w := writer{b: dst}
	switch {
	case len(sa) >= sockaddrIn && binary.LittleEndian.Uint16(sa) == afINET:
		for i := 0; i < 4; i++ {
			if i > 0 {
				w.byte('.')
			}
			w.dec(uint64(sa[4+i]))
		}
	case len(sa) >= sockaddrIn6 && binary.LittleEndian.Uint16(sa) == afINET6:
		w.byte('[')
		w.ipv6(sa[8:24])
		w.byte(']')
	default:
		w.byte('?')
		return w.n
	}
	w.byte(':')
	w.dec(uint64(binary.BigEndian.Uint16(sa[2:])))
	return w.n
}

type writer struct {
	b []byte
	n int
}

func (w *writer) byte(c byte) {
	if w.n < len(w.b) {
		w.b[w.n] = c
		w.n++
	}
}

func (w *writer) dec(v uint64) {
	var d decimal.Digits
	for _, c := range d.Uint(v) {
		w.byte(c)
	}
}

func (w *writer) hex(v uint16) {
	const digits = "0123456789abcdef"
	started := false
	for shift := 12; shift >= 0; shift -= 4 {
		d := (v >> uint(shift)) & 0xf
		if d != 0 || started || shift == 0 {
			w.byte(digits[d])
			started = true
		}
	}
}

// ipv6 writes the 16 bytes as RFC 5952 text: the longest run of two or more zero groups (the
// first of equal runs) becomes "::"; an IPv4-mapped address ends in dotted decimal.
func (w *writer) ipv6(a []byte) {
	var g [8]uint16
	for i := range g {
		g[i] = binary.BigEndian.Uint16(a[2*i:])
	}
	if g[0]|g[1]|g[2]|g[3]|g[4] == 0 && g[5] == 0xffff {
		const mapped = "::ffff:"
		for i := 0; i < len(mapped); i++ {
			w.byte(mapped[i])
		}
		for i := 12; i < 16; i++ {
			if i > 12 {
				w.byte('.')
			}
			w.dec(uint64(a[i]))
		}
		return
	}
	best, bestLen := -1, 1
	for i := 0; i < 8; {
		if g[i] != 0 {
			i++
			continue
		}
		j := i
		for j < 8 && g[j] == 0 {
			j++
		}
		if j-i > bestLen {
			best, bestLen = i, j-i
		}
		i = j
	}
	for i := 0; i < 8; i++ {
		if i == best {
			w.byte(':')
			w.byte(':')
			i += bestLen - 1
			continue
		}
		if i > 0 && i != best+bestLen {
			w.byte(':')
		}
		w.hex(g[i])
	}
}
