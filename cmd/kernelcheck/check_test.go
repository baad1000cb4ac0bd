package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestCatchesPlantedViolations runs the checker on testdata/planted, whose
// package kern breaks each rule once and whose package clean breaks none.
func TestCatchesPlantedViolations(t *testing.T) {
	mod, err := filepath.Abs("testdata/planted")
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	cfg := config{
		moduleDir: mod,
		app:       "./cmd/app",
		patterns:  []string{"./kern/...", "./clean/..."},
		env:       append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=amd64"),
		log:       &log,
	}
	res, err := check(context.Background(), cfg)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	var text []string
	for _, f := range res.findings {
		text = append(text, f.String())
	}
	all := strings.Join(text, "\n")
	t.Logf("findings:\n%s", all)
	for _, want := range []string{
		`kern/bad\.go:15: write barrier`,
		`kern/bad\.go:20: &node{\.\.\.} escapes to heap`,
		`kern/bad\.go:30: make\(\[\]byte, n\) escapes to heap`,
		`kern/bad\.go:35: v escapes to heap`,
		`kern/bad\.go:\d+: example\.com/planted/kern\.New: calls runtime\.newobject`,
		`kern/bad\.go:\d+: example\.com/planted/kern\.Push: calls runtime\.gcWriteBarrier`,
		`kern/bad\.go:\d+: example\.com/planted/kern\.Grow: calls runtime\.growslice`,
		`kern/bad\.go:\d+: example\.com/planted/kern\.Buf: calls runtime\.makeslice`,
		`kern/bad\.go:\d+: example\.com/planted/kern\.Box: calls runtime\.convT`,
		`kern/bad\.go:\d+: example\.com/planted/kern\.Name: calls runtime\.concatstring`,
		`kern/bad\.go:\d+: example\.com/planted/kern\.Lookup: calls runtime\.mapaccess`,
		`kern/bad\.go:\d+: example\.com/planted/kern\.Narrow: calls runtime\.typeAssert`,
	} {
		if !regexp.MustCompile(`(?m)^` + want).MatchString(all) {
			t.Errorf("missing finding %s", want)
		}
	}
	if strings.Contains(all, "clean") || strings.Contains(all, "_test.go") || strings.Contains(all, "cmd/app") {
		t.Errorf("findings outside kern's own files")
	}
	if res.packages != 2 || res.functions < 8 {
		t.Errorf("checked %d packages, %d functions", res.packages, res.functions)
	}
}

func TestCompilerFindingsPaths(t *testing.T) {
	pkgs := []kernelPackage{{importPath: "m/k", files: []string{"/mod/k/a.go", "/mod/k/a_test.go"}}}
	diags := strings.Join([]string{
		"# m/k",
		"k/a.go:3:6: can inline f",
		"k/a.go:4:2: moved to heap: x",
		"../../k/a.go:5:9: y escapes to heap",
		"./a.go:6:1: write barrier",
		"/mod/k/a.go:7:2: z does not escape",
		"other/b.go:8:2: w escapes to heap",
		"k/a_test.go:9:2: t escapes to heap",
		"k/a.go:4:2: moved to heap: x",
	}, "\n")
	var got []string
	for _, f := range compilerFindings(diags, pkgs) {
		got = append(got, f.String())
	}
	want := []string{"/mod/k/a.go:4: moved to heap: x", "/mod/k/a.go:5: y escapes to heap", "/mod/k/a.go:6: write barrier"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestCallFindings(t *testing.T) {
	pkgs := []kernelPackage{{importPath: "m/k", files: []string{"/mod/k/a.go", "/mod/k/b.go"}}}
	dump := "TEXT m/k.f(SB) /mod/k/a.go\n" +
		"  a.go:3\t\t0x1000\t\te800000000\t\tCALL runtime.mallocgc(SB)\t\n" +
		"  a.go:4\t\t0x1005\t\te800000000\t\tCALL runtime.panicIndex(SB)\t\n" +
		"  b.go:5\t\t0x100a\t\te800000000\t\tCALL runtime.(*wbBuf).putFast(SB)\n" +
		"  x.go:6\t\t0x100f\t\te900000000\t\tJMP runtime.growslice(SB)\n" +
		"TEXT m/k.(*T).g(SB) /mod/k/b.go\n" +
		"  b.go:7\t\t0x2000\t\te800000000\t\tCALL runtime.mapaccess1_fast64(SB)\n" +
		"  b.go:8\t\t0x2005\t\t90\t\tNOPL\n"
	got, n := callFindings(dump, pkgs)
	var text []string
	for _, f := range got {
		text = append(text, f.String())
	}
	want := []string{
		"/mod/k/a.go:3: m/k.f: calls runtime.mallocgc",
		"/mod/k/b.go:5: m/k.f: calls runtime.(*wbBuf).putFast",
		"x.go:6: m/k.f: calls runtime.growslice",
		"/mod/k/b.go:7: m/k.(*T).g: calls runtime.mapaccess1_fast64",
	}
	if n != 2 || strings.Join(text, "|") != strings.Join(want, "|") {
		t.Errorf("functions %d, findings %q\nwant %q", n, text, want)
	}
}
