package probes

import (
	"fmt"
	"strings"
)

// ReturnSuffix marks a spec that probes the function's returns.
const ReturnSuffix = "%return"

// Spec is a parsed probe spec.
type Spec struct {
	Pattern string // a function's full name, or a glob over names
	Return  bool   // probe the returns, not the entry
}

// String is the spec as the user wrote it.
func (s Spec) String() string {
	if s.Return {
		return s.Pattern + ReturnSuffix
	}
	return s.Pattern
}

// ParseSpec reads NAME or NAME%return.
func ParseSpec(s string) (Spec, error) {
	sp := Spec{Pattern: s}
	if p, ok := strings.CutSuffix(s, ReturnSuffix); ok {
		sp = Spec{Pattern: p, Return: true}
	}
	if sp.Pattern == "" || strings.ContainsAny(sp.Pattern, " \t\n%") {
		return Spec{}, fmt.Errorf("probe %q: want a function name or glob, optionally followed by %s", s, ReturnSuffix)
	}
	return sp, nil
}

// Matches reports whether the spec names the function called name: exactly, or as a glob in
// which * matches any run of characters, / and . included (a name's own * is matched by the
// glob's * as well, so net/http.(*conn).serve names itself).
func (s Spec) Matches(name string) bool {
	if s.Pattern == name {
		return true
	}
	return glob(s.Pattern, name)
}

// glob matches pattern against name: * is any run of characters, ? any one, the rest literal.
func glob(pattern, name string) bool {
	px, nx := 0, 0
	nextPx, nextNx := -1, -1
	for px < len(pattern) || nx < len(name) {
		if px < len(pattern) {
			switch c := pattern[px]; c {
			case '*':
				nextPx, nextNx = px, nx+1
				px++
				continue
			case '?':
				if nx < len(name) {
					px++
					nx++
					continue
				}
			default:
				if nx < len(name) && name[nx] == c {
					px++
					nx++
					continue
				}
			}
		}
		if nextNx > 0 && nextNx <= len(name) {
			px, nx = nextPx, nextNx
			continue
		}
		return false
	}
	return true
}
