package ring

// ParseSize reads a ring size as the kernel's unitrace.ring= boot option and the launcher's -ring
// flag write it: a decimal byte count with an optional K, M or G suffix (powers of 1024) that
// comes to a power of two from MinSize to MaxSize. It allocates nothing (the kernel calls it
// before the Go runtime starts).
func ParseSize(s string) (uint64, bool) {
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
		v = v*10 + uint64(num[i]-'0')
		if v > MaxSize {
			return 0, false
		}
	}
	v <<= shift
	if v < MinSize || v > MaxSize || v&(v-1) != 0 {
		return 0, false
	}
	return v, true
}
