package boot

import "math/bits"

// ParseByteSize reads a boot option's size, as the launcher's flags write it too: a decimal
// byte count with an optional K, M or G suffix (powers of 1024). A count that does not fit in
// 64 bits is refused. It allocates nothing (the kernel calls it before the Go runtime starts).
func ParseByteSize(s string) (uint64, bool) {
	num, shift := s, uint(0)
	if n := len(s); n > 0 {
		switch s[n-1] {
		case 'K', 'k':
			num, shift = s[:n-1], 10
		case 'M', 'm':
			num, shift = s[:n-1], 20
		case 'G', 'g':
			num, shift = s[:n-1], 30
		}
	}
	if num == "" {
		return 0, false
	}
	var v uint64
	for i := 0; i < len(num); i++ {
		if num[i] < '0' || num[i] > '9' {
			return 0, false
		}
		hi, lo := bits.Mul64(v, 10)
		lo, carry := bits.Add64(lo, uint64(num[i]-'0'), 0)
		if hi != 0 || carry != 0 {
			return 0, false
		}
		v = lo
	}
	if bits.LeadingZeros64(v) < int(shift) {
		return 0, false
	}
	return v << shift, true
}
