package ctl

import (
	"encoding/json"
	"math/rand/v2"
	"path"
	"testing"
)

// FuzzParse: Parse never panics; whatever it accepts, encoding/json reads
// as the same values, and Encode writes back as the same command.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"id":1,"cmd":"hello"}`,
		`{"id":3,"cmd":"list","match":"sys*"}`,
		`{"id":5,"cmd":"enable","match":"*","stack":true}`,
		`{"id":6,"cmd":"disable","match":"a\"b\\c\/d"}`,
		`{"id":9,"cmd":"mode","ring":"stream","size":16384}`,
		`{"id":17,"cmd":"sampler.start","hz":100000,"force":true}`,
		`{"id":18,"cmd":"sampler.stop"}`,
		`{"id":19,"cmd":"stacks"}`,
		`{"id":20,"cmd":"stacks","match":"*"}`,
		`{"cmd":"stacks" ,"id":4294967295}`,
		`{"id":21,"cmd":"signal","sig":2}`,
		`{"sig":64,"id":22,"cmd":"signal"}`,
		`{"id":23,"cmd":"signal","sig":65}`,
		`{"id":24,"cmd":"signal"}`,
		`{"id":25,"cmd":"stop","sig":9}`,
		`{"id":1,"id":2,"cmd":"stop"}`,
		`{"id":-1,"cmd":"stop"}`,
		`{"id":1,"cmd":{"a":1}}`,
		`{"id":1e3,"cmd":"stop"} `,
		` {"cmd" : "flush", "id":4294967295}`,
		`{"id":26,"cmd":"stdin.open"}`,
		`{"id":27,"cmd":"stdin.end","total":10485760}`,
		`{"id":28,"cmd":"stdin.end","total":18446744073709551615}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		c, e := Parse(in)
		if e != ErrNone {
			if c != (Command{}) {
				t.Fatalf("error %q but command %+v", e.Message(), c)
			}
			return
		}
		var m map[string]any
		if err := json.Unmarshal(in, &m); err != nil {
			t.Fatalf("accepted %q, encoding/json says %v", in, err)
		}
		if m["id"] != float64(c.ID) || m["cmd"] != c.Op.String() {
			t.Fatalf("accepted %q as %+v, encoding/json reads %v", in, c, m)
		}
		if v, ok := m["match"]; ok && v != string(c.Pattern()) {
			t.Fatalf("match %q vs %q", v, c.Pattern())
		}
		if v, ok := m["sig"]; ok && (v != float64(c.Sig) || c.Sig == 0 || c.Sig > MaxSignal) {
			t.Fatalf("sig %v vs %d", v, c.Sig)
		}
		if v, ok := m["total"]; ok && v != float64(c.Total) {
			t.Fatalf("total %v vs %d", v, c.Total)
		}
		buf := make([]byte, MaxCommand)
		n, ok := c.Encode(buf)
		if !ok {
			t.Fatalf("Encode(%+v) did not fit", c)
		}
		back, e := Parse(buf[:n])
		if e != ErrNone || back != c {
			t.Fatalf("%q -> %+v -> %q -> %+v, %q", in, c, buf[:n], back, e.Message())
		}
	})
}

// TestMatchModel compares Match with path.Match (the reference) on random
// patterns and names over an alphabet without '/', '[' and '\'.
func TestMatchModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	word := func(alpha string, max int) string {
		b := make([]byte, rng.IntN(max+1))
		for i := range b {
			b[i] = alpha[rng.IntN(len(alpha))]
		}
		return string(b)
	}
	for range 200000 {
		p, n := word("ab*?", 8), word("ab", 10)
		want, err := path.Match(p, n)
		if err != nil {
			t.Fatal(err)
		}
		if got := Match([]byte(p), n); got != want {
			t.Fatalf("Match(%q, %q) = %v, path.Match says %v", p, n, got, want)
		}
	}
}
