package tracefile

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unitrace/unitrace/trace/wire"
)

const testProg = `package main

import "os"

//go:noinline
func leaf(n int) int { return n * 3 }

func inlined(n int) int { return leaf(n) + 1 }

func main() { os.Exit(inlined(len(os.Args)) - 7) }
`

// buildTestELF builds a small Go program with a known GNU build id.
func buildTestELF(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a Go program")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(testProg), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module prog\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "prog.elf")
	cmd := exec.Command("go", "build", "-o", out, "-ldflags=-B 0xdeadbeef", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=amd64", "GOWORK=off", "GOFLAGS=")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	return out
}

func TestImage(t *testing.T) {
	path := buildTestELF(t)
	im, err := OpenImage(path)
	if err != nil {
		t.Fatal(err)
	}
	if BuildIDHex(im.BuildID) != "deadbeef" {
		t.Fatalf("build id %x", im.BuildID)
	}
	hello := &wire.Hello{BuildID: []byte{0xde, 0xad, 0xbe, 0xef}}
	if err := im.Check(hello); err != nil {
		t.Fatal(err)
	}
	if err := im.Check(&wire.Hello{BuildID: []byte{1}}); !errors.Is(err, ErrBuildID) || !strings.Contains(err.Error(), "-force") {
		t.Errorf("mismatch: %v", err)
	}
	if _, err := OpenFor(path, nil, &wire.Hello{BuildID: []byte{1}}, true); err != nil {
		t.Errorf("-force: %v", err)
	}
	if _, err := OpenFor("", &Host{}, hello, false); err == nil || !strings.Contains(err.Error(), "-elf") {
		t.Errorf("no image: %v", err)
	}

	// Find main.main and main.leaf through the table itself, then check a
	// return address inside main.main that lies in the inlined call.
	sym := symbols(t, path)
	leaf, mainFn := sym["main.leaf"], sym["main.main"]
	if leaf == 0 || mainFn == 0 {
		t.Fatalf("symbols: %v", sym)
	}
	fr := im.Frames(leaf, true)
	if len(fr) != 1 || fr[0].Func != "main.leaf" || !strings.HasSuffix(fr[0].File, "main.go") || fr[0].Line != 6 {
		t.Errorf("leaf: %+v", fr)
	}
	// Return address one past the entry: looked up at the entry.
	if fr := im.Frames(leaf+1, false); fr[0].Func != "main.leaf" {
		t.Errorf("return address: %+v", fr)
	}
	sawInline := false
	for pc := mainFn; pc < mainFn+200; pc++ {
		fr := im.Frames(pc, true)
		if len(fr) == 2 && fr[0].Func == "main.inlined" && fr[0].Inlined && fr[1].Func == "main.main" && !fr[1].Inlined {
			sawInline = true
			if fr[0].Line != 8 || fr[1].Line != 10 {
				t.Errorf("inline lines: %+v", fr)
			}
			break
		}
	}
	if !sawInline {
		t.Error("no pc in main.main symbolizes to main.inlined inlined into main.main")
	}
	if fr := im.Frames(1, true); len(fr) != 1 || fr[0].Func != "?" {
		t.Errorf("outside text: %+v", fr)
	}
}

func symbols(t *testing.T, path string) map[string]uint64 {
	out, err := exec.Command("go", "tool", "nm", path).Output()
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]uint64{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) == 3 && (f[2] == "main.leaf" || f[2] == "main.main") {
			var v uint64
			for _, c := range f[0] {
				v = v*16 + uint64(strings.IndexRune("0123456789abcdef", c))
			}
			m[f[2]] = v
		}
	}
	return m
}
