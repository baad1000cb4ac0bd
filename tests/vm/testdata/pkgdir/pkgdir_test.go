package pkgdir

import (
	"os"
	"path/filepath"
	"testing"
)

// TestReadsTestdata reads the package's testdata by a relative path.
func TestReadsTestdata(t *testing.T) {
	b, err := os.ReadFile(GreetingFile)
	if err != nil {
		t.Fatal(err)
	}
	if want := "read from the package directory\n"; string(b) != want {
		t.Errorf("%s holds %q, want %q", GreetingFile, b, want)
	}
}

// TestWorkingDirectory: the working directory is the package's, which holds this file, and
// PWD names it.
func TestWorkingDirectory(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(wd, "pkgdir_test.go")); err != nil {
		t.Errorf("working directory %s: %v", wd, err)
	}
	if pwd := os.Getenv("PWD"); pwd != wd {
		t.Errorf("PWD is %q, the working directory %q", pwd, wd)
	}
}

// TestHome: the guest has a home directory to offer, as os's tests of UserHomeDir expect.
func TestHome(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(home); err != nil || !fi.IsDir() {
		t.Errorf("home %s is no directory: %v", home, err)
	}
}

// TestGetgroups: root without supplementary groups, as the guest's kernel serves it.
func TestGetgroups(t *testing.T) {
	groups, err := os.Getgroups()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("groups %v", groups)
}
