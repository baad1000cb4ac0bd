package main

func ymmUsable() bool
func spinYMM(seed uint64) int

// haveYMM: the kernel enabled the AVX state, so the YMM registers' upper halves are the
// thread's to keep too.
var haveYMM = ymmUsable()

// spinWide fills the widest vector registers there are beyond roundTrip's with a pattern from
// seed, spins, and counts the halves that changed: YMM0-YMM15 with AVX on, nothing otherwise.
func spinWide(seed uint64) int {
	if !haveYMM {
		return 0
	}
	return spinYMM(seed)
}

// wideName names what spinWide checks, "" for nothing.
func wideName() string {
	if haveYMM {
		return "YMM"
	}
	return ""
}
