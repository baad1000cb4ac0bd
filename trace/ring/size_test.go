package ring

import "testing"

func TestParseSize(t *testing.T) {
	cases := map[string]uint64{"16K": 16 << 10, "16k": 16 << 10, "1M": 1 << 20, "1G": 1 << 30, "65536": 65536, "256M": 256 << 20}
	for in, want := range cases {
		if got, ok := ParseSize(in); !ok || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "K", "8K", "2G", "3M", "1.5M", "-1M", "1MB", "99999999999999999999", "1 M"} {
		if got, ok := ParseSize(in); ok {
			t.Errorf("ParseSize(%q) = %d, accepted", in, got)
		}
	}
	if n := testing.AllocsPerRun(100, func() { ParseSize("1M") }); n != 0 {
		t.Errorf("ParseSize allocates %v times", n)
	}
}
