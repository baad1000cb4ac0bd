package probes

import "testing"

func TestSpec(t *testing.T) {
	for _, tt := range []struct {
		spec, name string
		ret, match bool
	}{
		{"main.f", "main.f", false, true},
		{"main.f%return", "main.f", true, true},
		{"main.*", "main.f", false, true},
		{"main.*", "main.(*T).m", false, true},
		{"main.*", "mainx.f", false, false},
		{"net/http.(*conn).serve", "net/http.(*conn).serve", false, true},
		{"net/http.(*conn).*", "net/http.(*conn).serve", false, true},
		{"*.serve", "net/http.(*conn).serve", false, true},
		{"main.?", "main.f", false, true},
		{"main.?", "main.fg", false, false},
		{"*", "x", false, true},
		{"a*b*c", "aXbYc", false, true},
		{"a*b*c", "aXbYcZ", false, false},
	} {
		s, err := ParseSpec(tt.spec)
		if err != nil {
			t.Fatalf("%q: %v", tt.spec, err)
		}
		if s.Return != tt.ret || s.Matches(tt.name) != tt.match || s.String() != tt.spec {
			t.Errorf("%q against %q: return %v match %v (%q)", tt.spec, tt.name, s.Return, s.Matches(tt.name), s)
		}
	}
	for _, bad := range []string{"", "%return", "main.f %return", "a b"} {
		if _, err := ParseSpec(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
