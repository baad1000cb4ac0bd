package main

import (
	"errors"
	"fmt"
	"runtime"
)

type point struct{ x, y int }

// nilPoint and zero are variables so the compiler cannot see the faults
// coming.
var (
	nilPoint *point
	zero     int
)

// recoverNilPointer dereferences nil: the page fault must come back as
// SIGSEGV and become a runtime error panic.
func recoverNilPointer() (string, error) {
	return recovered(func() { nilPoint.y++ })
}

// recoverDivide divides by zero in Go: the compiler checks the divisor and
// panics without a fault.
func recoverDivide() (string, error) {
	return recovered(func() { zero = 1 / zero })
}

// recoverDivideInstruction executes the divide instruction with a zero
// divisor (on amd64: IDIVQ raises #DE, which must come back as SIGFPE).
func recoverDivideInstruction() (string, error) {
	return recovered(func() { zero = int(divideInstruction(1, int64(zero))) })
}

// recovered runs f, which must panic with a runtime error, and returns the
// panic's message.
func recovered(f func()) (msg string, err error) {
	defer func() {
		r := recover()
		var re runtime.Error
		if e, ok := r.(error); !ok || !errors.As(e, &re) {
			msg, err = "", fmt.Errorf("recovered %v, want a runtime error", r)
			return
		}
		msg = re.Error()
	}()
	f()
	return "", errors.New("no panic")
}
