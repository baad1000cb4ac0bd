package image

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInModuleCache: a path is in the cache only beneath it, not beside it.
func TestInModuleCache(t *testing.T) {
	for _, c := range []struct {
		path, cache string
		want        bool
	}{
		{"/m/golang.org/x/sys@v0.1.0/unix", "/m", true},
		{"/m", "/m", true},
		{"/mod/x", "/m", false},
		{"/work/x", "/m", false},
		{"/m/../x", "/m", false},
		{"/work/x", "", false},
	} {
		if got := inModuleCache(c.path, c.cache); got != c.want {
			t.Errorf("inModuleCache(%q, %q) = %v, want %v", c.path, c.cache, got, c.want)
		}
	}
}

// TestModuleCopy: a package beneath the module cache comes back in a writable copy of its
// module, with a go.mod that replaces the module with the copy and the main module's go.sum
// beside it; a package elsewhere comes back unchanged; a second call reuses the copy.
func TestModuleCopy(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	modRoot := filepath.Join(cache, "example.com", "dep@v1.2.3")
	if err := os.MkdirAll(filepath.Join(modRoot, "sub", "testdata"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"go.mod": "module example.com/dep\n", "sub/a.go": "package sub\n", "sub/testdata/x": "x"} {
		if err := os.WriteFile(filepath.Join(modRoot, name), []byte(text), 0o444); err != nil {
			t.Fatal(err)
		}
	}
	mainMod := filepath.Join(dir, "main", "go.mod")
	os.MkdirAll(filepath.Dir(mainMod), 0o755)
	os.WriteFile(mainMod, []byte("module example.com/main\n\ngo 1.26\n\nrequire example.com/dep v1.2.3\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "main", "go.sum"), []byte("example.com/dep v1.2.3 h1:x\n"), 0o644)
	copies := filepath.Join(dir, "main", "build", "test", "mod")

	local := TestPackage{ImportPath: "example.com/main/p", Dir: filepath.Join(dir, "main", "p"), Root: filepath.Join(dir, "main"), Module: "example.com/main"}
	if got, err := ModuleCopy(ctx, Spec{}, local, cache, mainMod, copies); err != nil || got != local {
		t.Fatalf("main-module package: %+v, %v; want it unchanged", got, err)
	}

	pkg := TestPackage{ImportPath: "example.com/dep/sub", Dir: filepath.Join(modRoot, "sub"), Root: modRoot, Module: "example.com/dep", Version: "v1.2.3"}
	for range 2 {
		got, err := ModuleCopy(ctx, Spec{}, pkg, cache, mainMod, copies)
		if err != nil {
			t.Fatal(err)
		}
		wantRoot := filepath.Join(copies, "example.com_dep@v1.2.3")
		if got.Root != wantRoot || got.Dir != filepath.Join(wantRoot, "sub") || got.ModFile != wantRoot+".go.mod" {
			t.Fatalf("copy: %+v", got)
		}
		if err := os.WriteFile(filepath.Join(got.Dir, "testdata", "x"), []byte("written"), 0o644); err != nil {
			t.Errorf("the copy is not writable: %v", err)
		}
		mod, err := os.ReadFile(got.ModFile)
		if err != nil || !strings.Contains(string(mod), "replace example.com/dep => "+wantRoot) {
			t.Errorf("go.mod of the copy:\n%s (%v)", mod, err)
		}
		if sum, err := os.ReadFile(wantRoot + ".go.sum"); err != nil || !strings.Contains(string(sum), "example.com/dep") {
			t.Errorf("go.sum of the copy: %q (%v)", sum, err)
		}
	}
	if _, err := ModuleCopy(ctx, Spec{}, TestPackage{ImportPath: "x", Dir: filepath.Join(cache, "x"), Root: filepath.Join(cache, "x")}, cache, mainMod, copies); err == nil {
		t.Error("a package in the cache without a module version was copied")
	}
}
