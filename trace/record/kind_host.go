package record

import "github.com/unitrace/unitrace/decimal"

// Host-only code: it builds strings, so the guest never calls it (see
// decode_host.go).

var kindNames = [...]string{KU64: "u64", KHex: "hex", KI64: "i64", KBool: "bool", KStr: "str", KDur: "dur"}

func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "kind(" + itoa(uint64(k)) + ")"
}

// itoa keeps this package free of strconv.
func itoa(v uint64) string {
	var d decimal.Digits
	return string(d.Uint(v))
}
