// Package sampler is the sampling profiler's timing: which rates are accepted, when each CPU's
// next sample is due, how late a tick was, and when the handler's cost makes the rate drop. It
// is pure logic on tick counts (the TSC on amd64, CNTVCT on arm64), so it runs the same in the
// guest, where the kernel drives it from the timer interrupt, and in host tests.
//
// All of it is kernel-mode code: no allocation, no pointers kept, no panics.
package sampler

// Rate limits. A rate above MaxHz needs the force option: under TCG the handler alone can eat
// a large share of a vCPU at tens of kHz.
const (
	DefaultHz   = 1000
	MaxHz       = 10000
	MaxForcedHz = 100000
)

// Err says why a rate was refused.
type Err uint8

const (
	OK Err = iota
	ErrNotNumber
	ErrZero
	ErrTooFast
	ErrTooFastForced
)

// String returns the message for e, for the console and control replies.
func (e Err) String() string {
	switch e {
	case OK:
		return "ok"
	case ErrNotNumber:
		return "the sampling rate must be a whole number of Hz"
	case ErrZero:
		return "the sampling rate must be at least 1 Hz"
	case ErrTooFast:
		return "the sampling rate is at most 10000 Hz (100000 with the force option)"
	case ErrTooFastForced:
		return "the sampling rate is at most 100000 Hz, even with the force option"
	}
	return "invalid sampling rate"
}

// CheckHz checks a rate in Hz.
func CheckHz(hz uint64, force bool) Err {
	switch {
	case hz == 0:
		return ErrZero
	case hz > MaxForcedHz:
		return ErrTooFastForced
	case hz > MaxHz && !force:
		return ErrTooFast
	}
	return OK
}

// ParseHz parses a rate written in decimal (a boot option's value). A sign, a fraction, a unit
// or any other character is refused, as are rates CheckHz refuses.
func ParseHz(s string, force bool) (uint32, Err) {
	if len(s) == 0 || len(s) > 7 {
		if len(s) > 7 && allDigits(s) {
			return 0, ErrTooFastForced
		}
		return 0, ErrNotNumber
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, ErrNotNumber
		}
		v = v*10 + uint64(c-'0')
	}
	if e := CheckHz(v, force); e != OK {
		return 0, e
	}
	return uint32(v), OK
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
