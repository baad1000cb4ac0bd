package symtab

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// checkAgainstGosym compares n random PCs of img with debug/gosym, an
// independent reader of the same format: gosym knows nothing of inlining,
// so it gives the physical function (our outermost frame) and the source
// position of the PC itself (our innermost frame).
func checkAgainstGosym(t *testing.T, img *image, n int) {
	t.Helper()
	tab := img.table(t)
	rng := rand.New(rand.NewPCG(1, uint64(len(img.pclntab))))
	inlined, bad := 0, 0
	for range n {
		f := img.funcs[rng.IntN(len(img.funcs))]
		if f.End <= f.Entry { // a zero-size marker (race-enabled builds have some)
			continue
		}
		pc := f.Entry + rng.Uint64N(f.End-f.Entry)
		file, line, fn := img.gosym.PCToLine(pc)
		if line == -1 { // gosym's "unknown", in the padding after a function
			file, line = "", 0
		}
		frames := inlineFrames(&tab, uintptr(pc))
		if len(frames) == 0 {
			t.Errorf("%s: %#x: not found, gosym gives %s", img.path, pc, fn.Name)
			bad++
			continue
		}
		outer, inner := frames[len(frames)-1], frames[0]
		if f, _, _ := tab.findFunc(uintptr(pc)); tab.field(f, funcPCLn) == 0 {
			// A marker such as go:textfipsstart has no line table
			// (offset 0); gosym decodes whatever starts the pctab.
			file, line = "", 0
		}
		if string(outer.Name) != fn.Name || uint64(outer.Entry) != fn.Entry || string(inner.File) != file || int(inner.Line) != line {
			t.Errorf("%s: %#x: got %s (entry %#x) %s:%d, gosym %s (entry %#x) %s:%d",
				img.path, pc, outer.Name, outer.Entry, inner.File, inner.Line, fn.Name, fn.Entry, file, line)
			bad++
		}
		if entry, end, ok := tab.FuncRange(uintptr(pc)); !ok || uint64(entry) != fn.Entry || uint64(end) != fn.End {
			t.Errorf("%s: %#x: FuncRange = %#x-%#x, %v; gosym %#x-%#x", img.path, pc, entry, end, ok, fn.Entry, fn.End)
			bad++
		}
		if len(frames) > 1 {
			inlined++
		}
		if bad > 10 {
			t.Fatal("too many mismatches")
		}
	}
	if inlined == 0 {
		t.Errorf("%s: no PC was in inlined code", img.path)
	}
}

func TestAgainstGosym(t *testing.T) {
	checkAgainstGosym(t, selfImage(t), 20000)
}

// TestOtherImages checks images this test did not produce: the go command
// (large, amd64 or whatever the host is) and a small program cross-built
// for the other guest architecture, where the instruction quantum is 4.
// They keep their symbols, so runtime.text and go:func.* can be checked.
func TestOtherImages(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	paths := []string{gobin}
	dir := t.TempDir()
	for _, arch := range []string{"amd64", "arm64"} {
		out := filepath.Join(dir, "hello-"+arch)
		src := filepath.Join(dir, "hello.go")
		if err := os.WriteFile(src, []byte(helloProgram), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(gobin, "build", "-o", out, src)
		cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH="+arch, "CGO_ENABLED=0")
		cmd.Dir = dir
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("building for %s: %v\n%s", arch, err, msg)
		}
		paths = append(paths, out)
	}
	for _, path := range paths {
		img, err := loadImage(path)
		if err != nil {
			t.Logf("skipping %s: %v", path, err)
			continue
		}
		tab := img.table(t)
		if img.textSym != 0 && img.textSym != img.text {
			t.Errorf("%s: runtime.text %#x is not the start of .text %#x", path, img.textSym, img.text)
		}
		if img.gofunc == 0 {
			t.Errorf("%s: no go:func.* symbol", path)
		} else if want := img.gofunc - img.pclnAt; tab.gofunc != want {
			t.Errorf("%s: go:func.* found at %#x, symbol says %#x", path, tab.gofunc, want)
		}
		checkAgainstGosym(t, img, 20000)
	}
}

const helloProgram = `package main

import (
	"fmt"
	"os"
	"strings"
)

func main() {
	fmt.Fprintln(os.Stderr, strings.Repeat("hello ", len(os.Args)))
}
`
