package image

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"testing"
)

// TestKernelTestSource: the generated file is the external test package of the package under
// test, importing the kernel for its side effects and nothing else.
func TestKernelTestSource(t *testing.T) {
	src := KernelTestSource("fs")
	f, err := parser.ParseFile(token.NewFileSet(), KernelTestFile, src, parser.ImportsOnly)
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	if f.Name.Name != "fs_test" {
		t.Errorf("package %s, want fs_test", f.Name.Name)
	}
	if len(f.Imports) != 1 {
		t.Fatalf("%d imports, want 1", len(f.Imports))
	}
	imp := f.Imports[0]
	if path, _ := strconv.Unquote(imp.Path.Value); path != KernelImportPath || imp.Name == nil || imp.Name.Name != "_" {
		t.Errorf("import %v %s, want _ %q", imp.Name, imp.Path.Value, KernelImportPath)
	}
}

// TestTestOverlay: the overlay adds the file to the package's own directory and replaces
// nothing else.
func TestTestOverlay(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "src", "io", "fs")
	ov := TestOverlay(TestPackage{ImportPath: "io/fs", Name: "fs", Dir: dir}, "/tmp/x/zz.go")
	if len(ov.Replace) != 1 || ov.Replace[filepath.Join(dir, KernelTestFile)] != "/tmp/x/zz.go" {
		t.Errorf("overlay %v", ov.Replace)
	}
}

// TestListTestPackages resolves a relative directory and a standard library path, and tells a
// package without tests.
func TestListTestPackages(t *testing.T) {
	spec, err := SpecFor(AMD64)
	if err != nil {
		t.Fatal(err)
	}
	pkgs, err := ListTestPackages(t.Context(), "", spec, []string{".", "unsafe"}, t.Output())
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) != 2 || pkgs[0].ImportPath != "github.com/unitrace/unitrace/internal/image" || pkgs[0].Name != "image" || !pkgs[0].HasTests ||
		pkgs[1].ImportPath != "unsafe" || pkgs[1].HasTests {
		t.Errorf("got %+v", pkgs)
	}
	// The module's root holds go.mod two levels up from this package; $GOROOT holds src/unsafe.
	if len(pkgs) == 2 {
		if want, _ := filepath.Abs("../.."); pkgs[0].Root != want || pkgs[0].Standard {
			t.Errorf("%s: root %q standard %v, want %q and false", pkgs[0].ImportPath, pkgs[0].Root, pkgs[0].Standard, want)
		}
		if pkgs[1].Root == "" || filepath.Join(pkgs[1].Root, "src", "unsafe") != pkgs[1].Dir || !pkgs[1].Standard {
			t.Errorf("unsafe: root %q standard %v, want the $GOROOT holding %s and true", pkgs[1].Root, pkgs[1].Standard, pkgs[1].Dir)
		}
	}
	if _, err := ListTestPackages(t.Context(), "", spec, []string{"./no/such/dir"}, t.Output()); err == nil {
		t.Error("no error for a missing directory")
	}
}
