package main

import (
	"bytes"
	"flag"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/unitrace/unitrace/internal/image"
)

// parseTest parses args as "unitrace test" does, printing flag errors on stderr.
func parseTest(args []string, stderr io.Writer) (testOptions, error) {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o testOptions
	o.register(fs)
	err := o.parse(fs, args)
	return o, err
}

func TestParseTest(t *testing.T) {
	tests := []struct {
		args                []string
		patterns, env, argv []string
		check               func(testOptions) bool
	}{
		{nil, []string{"."}, nil, []string{"-test.paniconexit0", "-test.timeout=9m0s"}, nil},
		{[]string{"os", "--", "-test.short", "-test.v"}, []string{"os"}, nil,
			[]string{"-test.paniconexit0", "-test.timeout=9m0s", "-test.short", "-test.v"}, nil},
		{[]string{"-arch", "arm64", "./a", "strconv", "-smp", "2", "GODEBUG=x=1", "./b/...", "--", "-test.run", "TestX", "--", "k=v"},
			[]string{"./a", "strconv", "./b/..."}, []string{"GODEBUG=x=1"},
			[]string{"-test.paniconexit0", "-test.timeout=9m0s", "-test.run", "TestX", "--", "k=v"},
			func(o testOptions) bool { return o.arch == "arm64" && o.smp == 2 }},
		{[]string{"-sample", "1000", "-pprof", "p.pb.gz", "strconv"}, []string{"strconv"}, []string{"unitrace.sample=1000"},
			[]string{"-test.paniconexit0", "-test.timeout=9m0s"},
			func(o testOptions) bool { return o.pprofFile == "p.pb.gz" && o.tracing() }},
	}
	for _, tt := range tests {
		o, err := parseTest(tt.args, &bytes.Buffer{})
		if err != nil {
			t.Errorf("%q: %v", tt.args, err)
			continue
		}
		if !slices.Equal(o.patterns, tt.patterns) || !slices.Equal(o.args, tt.argv) || (tt.check != nil && !tt.check(o)) {
			t.Errorf("%q: got patterns %q, args %q, %+v", tt.args, o.patterns, o.args, o)
		}
		for _, kv := range tt.env {
			if !slices.Contains(o.env, kv) {
				t.Errorf("%q: env %q lacks %q", tt.args, o.env, kv)
			}
		}
	}
}

func TestParseTestErrors(t *testing.T) {
	for _, args := range [][]string{
		{"os", "=v"},
		{"-timeout", "-1s", "os"},
		{"-pprof", "p", "os"}, // -pprof needs -sample
		{"-nosuchflag", "os"},
	} {
		if _, err := parseTest(args, &bytes.Buffer{}); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
}

func TestOnePackageFlags(t *testing.T) {
	o, err := parseTest([]string{"-image", "x.elf", "-o", "t.utrace", "os"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if got := o.onePackageFlags(); got != "-image, -o" {
		t.Errorf("onePackageFlags = %q", got)
	}
}

func TestTestVerbose(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want bool
	}{
		{nil, false},
		{[]string{"-test.v"}, true},
		{[]string{"--test.v"}, true},
		{[]string{"-test.v=true"}, true},
		{[]string{"-test.v=test2json"}, true},
		{[]string{"-test.v=false"}, false},
		{[]string{"-test.vet"}, false},
		{[]string{"-test.run", "x"}, false},
	} {
		if got := testVerbose(tt.args); got != tt.want {
			t.Errorf("testVerbose(%q) = %v", tt.args, got)
		}
	}
}

func TestTestImagePath(t *testing.T) {
	got := testImagePath("/m", image.TestPackage{ImportPath: "example.com/a/b"}, "arm64")
	if want := "/m/build/test/example_com_a_b.test-arm64.elf"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestGuestOutput: the exit line is dropped, everything else passes unchanged, an unfinished
// last line too, and the last line passed on is remembered.
func TestGuestOutput(t *testing.T) {
	var b bytes.Buffer
	g := &guestOutput{w: &b}
	for _, p := range []string{"--- FAIL: T", "x (0.00s)\r\nFA", "IL\r\nunitrace: exit status 1\r\n", "tail"} {
		g.Write([]byte(p))
	}
	if g.last != "FAIL" {
		t.Errorf("last %q before Close", g.last)
	}
	g.Close()
	if want := "--- FAIL: Tx (0.00s)\r\nFAIL\r\ntail"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	if !strings.HasSuffix(g.last, "tail") {
		t.Errorf("last %q after Close", g.last)
	}
}

// TestGuestTestTimeout: the test binary's -test.timeout ends a hung test before the launcher's
// -timeout does, unless there is none or the user gave one.
func TestGuestTestTimeout(t *testing.T) {
	for _, tt := range []struct {
		launcher time.Duration
		args     []string
		want     time.Duration
	}{
		{10 * time.Minute, nil, 9 * time.Minute},
		{20 * time.Minute, []string{"-test.v"}, 18 * time.Minute},
		{time.Minute, nil, 30 * time.Second},
		{20 * time.Second, nil, 10 * time.Second},
		{0, nil, 0},
		{10 * time.Minute, []string{"-test.timeout", "1h"}, 0},
		{10 * time.Minute, []string{"--test.timeout=1h"}, 0},
		{10 * time.Minute, []string{"--", "-test.timeout=1h"}, 9 * time.Minute},
	} {
		if got := guestTestTimeout(tt.launcher, tt.args); got != tt.want {
			t.Errorf("guestTestTimeout(%v, %q) = %v, want %v", tt.launcher, tt.args, got, tt.want)
		}
	}
	o, err := parseTest([]string{"-timeout", "5m", "os", "--", "-test.timeout=1m"}, &bytes.Buffer{})
	if err != nil || !slices.Equal(o.args, []string{"-test.paniconexit0", "-test.timeout=1m"}) {
		t.Errorf("args %q, %v", o.args, err)
	}
}

// TestGuestOutputRunning: with -test.v's lines, the tests started and not ended are the ones
// running when the guest was killed, subtests included.
func TestGuestOutputRunning(t *testing.T) {
	g := &guestOutput{w: io.Discard}
	g.Write([]byte("=== RUN   TestA\n--- PASS: TestA (0.00s)\n=== RUN   TestB\n=== RUN   TestB/sub\n" +
		"    --- PASS: TestB/sub (0.01s)\n=== RUN   TestB/hang\n=== RUN   TestC\n--- SKIP: TestC (0.00s)\n"))
	if got := g.running(); !slices.Equal(got, []string{"TestB", "TestB/hang"}) {
		t.Errorf("running %q", got)
	}
}
