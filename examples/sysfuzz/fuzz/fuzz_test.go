package fuzz

import (
	"bytes"
	"strings"
	"testing"
)

func TestDeterministic(t *testing.T) {
	a, b := New(7, 42), New(7, 42)
	for range 100 {
		if a.Uint64() != b.Uint64() {
			t.Fatal("the same seed and stream gave different sequences")
		}
	}
	if New(7, 42).Uint64() == New(7, 43).Uint64() || New(7, 42).Uint64() == New(8, 42).Uint64() {
		t.Error("different streams or seeds start the same")
	}
	r := New(1, 1)
	for range 1000 {
		if n := r.Intn(5); n < 0 || n >= 5 {
			t.Fatalf("Intn(5) = %d", n)
		}
	}
}

// TestPathsStayInside: every path and link target Path and Target make passes Safe, and each
// kind comes up.
func TestPathsStayInside(t *testing.T) {
	const scratch = "/tmp/sysfuzz-host.x/sysfuzz.1"
	seen := map[PathKind]bool{}
	r := New(3, 0)
	for range 20000 {
		p, kind := Path(r, scratch)
		seen[kind] = true
		if !Safe(p, scratch) {
			t.Fatalf("unsafe path %q (kind %d)", p, kind)
		}
		if kind != PathUnterminated && (len(p) == 0 || p[len(p)-1] != 0) {
			t.Fatalf("path %q of kind %d has no NUL", p, kind)
		}
		if kind == PathUnterminated && bytes.IndexByte(p, 0) >= 0 {
			t.Fatalf("unterminated path %q has a NUL", p)
		}
		if kind == PathTooLong && len(p) <= PathMax {
			t.Fatalf("too-long path of %d bytes", len(p))
		}
		if tg := Target(r, scratch); !Safe(tg, scratch) {
			t.Fatalf("unsafe target %q", tg)
		}
	}
	for k := range pathKinds {
		if !seen[k] {
			t.Errorf("kind %d never made", k)
		}
	}
}

func TestSafe(t *testing.T) {
	const s = "/tmp/x"
	for p, want := range map[string]bool{
		"a": true, "d/e/f": true, "": true, ".": true, "/tmp/x/a": true, "/tmp/x/d/e": true,
		"..": false, "../a": false, "d/../../etc": false, "/": false, "/dev/null": false, "/tmp/xy": false,
		"/tmp/x/../y": false, "/tmp/x": false, "a/..": false,
	} {
		if got := Safe([]byte(p), s); got != want {
			t.Errorf("Safe(%q) = %v, want %v", p, got, want)
		}
	}
	if Safe([]byte("a\x00/.."), s) != true {
		t.Error("Safe looked past the NUL")
	}
	if Safe([]byte("/a"), "relative") {
		t.Error("an absolute path under a relative scratch directory")
	}
}

func TestLenAndFlags(t *testing.T) {
	r := New(5, 5)
	var huge, zero, within bool
	for range 2000 {
		n := Len(r, 100)
		switch {
		case n == 0:
			zero = true
		case n <= 100:
			within = true
		case n >= 1<<31:
			huge = true
		}
	}
	if !huge || !zero || !within {
		t.Errorf("Len: huge %v zero %v within %v", huge, zero, within)
	}
	var sawKnown bool
	for range 200 {
		if f := Flags(r, 0x10, 0x20); f == 0x10 || f == 0x20 || f == 0x30 {
			sawKnown = true
		}
	}
	if !sawKnown {
		t.Error("Flags never gave a combination of the known flags")
	}
}

func TestReportRoundTrip(t *testing.T) {
	var r Report
	r.Add("read", OK)
	r.Add("read", "EBADF")
	r.Add("read", "EBADF")
	r.Add("write", "EFAULT")
	var o Report
	o.Add("read", "EINVAL")
	r.Merge(&o)
	lines := r.Lines()
	want := []string{"stat read calls=4 ok=1 EBADF=2 EINVAL=1", "stat write calls=1 ok=0 EFAULT=1"}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("Lines:\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	l, err := Parse(append([]string{"unitrace: something", "sysfuzz: ok", CallLine(3, "read", "EBADF")}, lines...))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(l.Report.Lines(), "\n") != strings.Join(want, "\n") || l.Calls[3] != (Result{"read", "EBADF"}) {
		t.Errorf("parsed back %v, %v", l.Report.Lines(), l.Calls)
	}
	if _, err := Parse([]string{"stat read calls=3 ok=1 EBADF=1"}); err == nil {
		t.Error("a stat line whose counts do not add up parsed")
	}
}

func TestCompare(t *testing.T) {
	host, _ := Parse([]string{
		"stat read calls=2 ok=1 EBADF=1", "stat open calls=1 ok=1",
		"call 0 read ok", "call 1 read EBADF", "call 2 open ok",
	})
	guest, _ := Parse([]string{
		"stat read calls=2 ok=1 EFAULT=1", "stat open calls=1 ok=1",
		"call 0 read ok", "call 1 read EFAULT", "call 2 open ok",
	})
	ds := Compare(host, guest)
	if len(ds) != 1 || ds[0].Name != "read" {
		t.Fatalf("Compare = %+v", ds)
	}
	d := ds[0]
	if strings.Join(d.OnlyA, ",") != "EBADF" || strings.Join(d.OnlyB, ",") != "EFAULT" || d.MatchSame != 1 {
		t.Errorf("difference %+v", d)
	}
	if len(d.Pairs) != 1 || d.Pairs[0] != (Pair{A: "EBADF", B: "EFAULT", Count: 1, First: 1}) {
		t.Errorf("pairs %+v", d.Pairs)
	}
	out := FormatDifferences(ds, "host", "guest")
	if len(out) != 2 || !strings.Contains(out[1], "EBADF/EFAULT (1, #1)") {
		t.Errorf("FormatDifferences:\n%s", strings.Join(out, "\n"))
	}
}
