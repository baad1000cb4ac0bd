package ctl

// Err is why a command was refused; ErrNone means it was accepted. Its
// Message is the reply's error text.
type Err uint8

const (
	ErrNone Err = iota
	ErrTooLong
	ErrSyntax
	ErrTrailing
	ErrNesting
	ErrStringTooLong
	ErrBadString
	ErrBadNumber
	ErrOutOfRange
	ErrUnknownField
	ErrDuplicateField
	ErrWrongType
	ErrUnknownCmd
	ErrNoID
	ErrNoCmd
	ErrFieldNotForCmd
	ErrMissingField
	ErrBadRing
	ErrBadSize
	ErrBadHz
	ErrUnavailable
	ErrFailed
	ErrStopped
	ErrTooManyEntries
	ErrBadSnapshot
	ErrBadSignal
	ErrNoTracer
	ErrNoInput
	ErrBadTotal
	ErrBadProbe
	ErrBadSite
	ErrProbe
	numErrs
)

var errMessages = [numErrs]string{
	ErrNone:           "",
	ErrTooLong:        "command too long",
	ErrSyntax:         "syntax error",
	ErrTrailing:       "trailing data after the object",
	ErrNesting:        "nested values are not accepted",
	ErrStringTooLong:  "string too long",
	ErrBadString:      "bad string (printable ASCII; escapes \\\" \\\\ \\/ only)",
	ErrBadNumber:      "bad number (non-negative integers only)",
	ErrOutOfRange:     "number out of range",
	ErrUnknownField:   "unknown field",
	ErrDuplicateField: "duplicate field",
	ErrWrongType:      "wrong type for field",
	ErrUnknownCmd:     "unknown command",
	ErrNoID:           "missing id",
	ErrNoCmd:          "missing cmd",
	ErrFieldNotForCmd: "field not accepted by this command",
	ErrMissingField:   "missing field",
	ErrBadRing:        "ring must be \"stream\" or \"flight\"",
	ErrBadSize:        "size must be a power of two within the ring limits",
	ErrBadHz:          "hz out of range",
	ErrUnavailable:    "not available in this kernel",
	ErrFailed:         "the kernel could not carry it out",
	ErrStopped:        "the tracer is stopped",
	ErrTooManyEntries: "more CPUs and threads than one stacks reply holds",
	ErrBadSnapshot:    "the kernel's stacks snapshot is malformed",
	ErrBadSignal:      "bad signal (sig must be 1..64)",
	ErrNoTracer:       "the tracer is not running: this guest serves only the signal and stdin commands",
	ErrNoInput:        "the console takes no input (unitrace.stdin=null, or no interrupt for the UART)",
	ErrBadTotal:       "total is below the bytes the console already received, or differs from the end given before",
	ErrBadProbe:       "probe must be 1..64",
	ErrBadSite:        "site must be a probe site's bytes in lower-case hex",
	ErrProbe:          "the kernel refused the probe",
}

// Message returns the reply text for e (constant strings; no allocation).
func (e Err) Message() string {
	if e >= numErrs {
		return "internal error"
	}
	return errMessages[e]
}
