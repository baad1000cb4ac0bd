package boot

import "testing"

func TestParseByteSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"0", 0, true}, {"4096", 4096, true}, {"4K", 4 << 10, true}, {"4k", 4 << 10, true},
		{"16M", 16 << 20, true}, {"2G", 2 << 30, true}, {"18446744073709551615", 1<<64 - 1, true},
		{"18446744073709551616", 0, false}, {"17179869184G", 0, false}, {"17179869183G", 17179869183 << 30, true},
		{"", 0, false}, {"K", 0, false}, {"1.5M", 0, false}, {"-1", 0, false}, {"1T", 0, false}, {"1 K", 0, false},
	} {
		if got, ok := ParseByteSize(c.in); got != c.want || ok != c.ok {
			t.Errorf("ParseByteSize(%q) = %d, %v; want %d, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}
