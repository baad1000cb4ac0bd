package record

// Kind is the type of one tracepoint argument, as listed in the DICT frame.
// It tells the host how to print a slot; the record itself stores only
// 8-byte slots. Unknown kinds decode as KU64.
type Kind uint8

const (
	KU64  Kind = 1 // printed %d
	KHex  Kind = 2 // printed %#x: pointers, addresses
	KI64  Kind = 3 // two's complement
	KBool Kind = 4 // 0 or 1
	KStr  Kind = 5 // StrSlots slots of NUL-padded bytes
	KDur  Kind = 6 // nanoseconds
)

// Slots returns how many argument slots an argument of kind k takes.
func (k Kind) Slots() int {
	if k == KStr {
		return StrSlots
	}
	return 1
}
