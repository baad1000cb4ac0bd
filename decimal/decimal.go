// Package decimal writes unsigned integers in decimal without allocating: the one formatting
// loop that the kernel's console, /proc, the file system's names, the socket wire, the control
// port's replies and the trace format's names share. It is kernel-mode Go (no allocation, no
// write barrier, no runtime call), so the kernel, its interrupt handlers and the host tools
// can all use it.
package decimal

// MaxLen is the most digits a uint64 has (18446744073709551615).
const MaxLen = 20

// Digits is room for the decimal digits of any uint64, kept by the caller (on its stack).
type Digits [MaxLen]byte

// Uint writes v's decimal digits, most significant first and without leading zeros ("0" for
// zero), at the end of d and returns them: a slice of d, valid until d is written again.
//
//go:nosplit
func (d *Digits) Uint(v uint64) []byte {
	i := len(d)
	for {
		i--
		d[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			return d[i:]
		}
	}
}
