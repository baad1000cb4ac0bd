package profile

import (
	"os"
	"sync"
	"testing"

	"github.com/unitrace/unitrace/internal/profile/profiletest"
)

var progDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "profiletest")
	if err != nil {
		panic(err)
	}
	progDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

var (
	progMu sync.Mutex
	progs  = map[string]*profiletest.Program{}
)

// program builds the test program for goarch once per test binary.
func program(t testing.TB, goarch string) *profiletest.Program {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a Go program")
	}
	progMu.Lock()
	defer progMu.Unlock()
	if p := progs[goarch]; p != nil {
		return p
	}
	p := profiletest.Build(t, progDir, goarch)
	progs[goarch] = p
	return p
}

// image opens the program's image.
func image(t *testing.T, p *profiletest.Program) *Image {
	t.Helper()
	im, err := OpenImage(p.Path)
	if err != nil {
		t.Fatal(err)
	}
	return im
}
