package signal

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/constant"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"strings"
	"testing"
)

// runtimeDefs is the Go runtime's own description of Linux's signal ABI for one arch: the types
// and constants of runtime/defs_linux_<arch>.go and the constants beside them, type-checked with
// that arch's sizes. The runtime's signal handler reads every frame this kernel builds through
// these types, so they are the reference the layouts here are checked against.
type runtimeDefs struct {
	arch  string
	pkg   *types.Package
	sizes types.Sizes
}

// runtimeSources are the runtime files read, and which of their declarations: the defs file
// whole (types and constants), the others only for the constant groups that hold the names.
var runtimeSources = []struct {
	file  string
	names []string // nil: every type and constant declaration
}{
	{"defs_linux_%s.go", nil},
	{"os_linux_generic.go", []string{"_SIG_BLOCK"}},
	{"os_linux.go", []string{"_si_max_size", "_SI_TKILL"}},
	{"signal_unix.go", []string{"_SIG_DFL"}},
}

var runtimeDefsCache = map[string]*runtimeDefs{}

func loadRuntimeDefs(t *testing.T, arch string) *runtimeDefs {
	t.Helper()
	if d, ok := runtimeDefsCache[arch]; ok {
		return d
	}
	dir := filepath.Join(build.Default.GOROOT, "src", "runtime")
	fset := token.NewFileSet()
	var files []*ast.File
	for _, src := range runtimeSources {
		name := src.file
		if strings.Contains(name, "%s") {
			name = fmt.Sprintf(name, arch)
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("reading the Go runtime's definitions: %v", err)
		}
		f.Decls = keepDecls(f.Decls, src.names)
		if src.names != nil {
			f.Imports = nil
		}
		files = append(files, f)
	}
	sizes := types.SizesFor("gc", arch)
	conf := types.Config{Importer: unsafeOnly{}, Sizes: sizes}
	pkg, err := conf.Check("runtime", fset, files, nil)
	if err != nil {
		t.Fatalf("type-checking the Go runtime's definitions for %s: %v", arch, err)
	}
	d := &runtimeDefs{arch: arch, pkg: pkg, sizes: sizes}
	runtimeDefsCache[arch] = d
	return d
}

// keepDecls keeps the type and constant declarations, all of them when names is nil, else the
// constant groups that declare one of names.
func keepDecls(decls []ast.Decl, names []string) []ast.Decl {
	var kept []ast.Decl
	for _, d := range decls {
		g, ok := d.(*ast.GenDecl)
		if !ok {
			continue
		}
		switch {
		case g.Tok == token.IMPORT && names == nil:
			kept = append(kept, g)
		case g.Tok == token.TYPE && names == nil:
			kept = append(kept, g)
		case g.Tok == token.CONST && (names == nil || declares(g, names)):
			kept = append(kept, g)
		}
	}
	return kept
}

func declares(g *ast.GenDecl, names []string) bool {
	for _, s := range g.Specs {
		for _, n := range s.(*ast.ValueSpec).Names {
			for _, want := range names {
				if n.Name == want {
					return true
				}
			}
		}
	}
	return false
}

type unsafeOnly struct{}

func (unsafeOnly) Import(path string) (*types.Package, error) {
	if path == "unsafe" {
		return types.Unsafe, nil
	}
	return nil, fmt.Errorf("the runtime's definitions import %q", path)
}

// constant returns the value of the runtime's constant name.
func (d *runtimeDefs) constant(t *testing.T, name string) int64 {
	t.Helper()
	c, ok := d.pkg.Scope().Lookup(name).(*types.Const)
	if !ok {
		t.Fatalf("the Go runtime (%s) has no constant %s", d.arch, name)
	}
	v, exact := constant.Int64Val(c.Val())
	if !exact {
		t.Fatalf("runtime constant %s = %v is not an int64", name, c.Val())
	}
	return v
}

// structOf returns the runtime's struct type name.
func (d *runtimeDefs) structOf(t *testing.T, name string) *types.Struct {
	t.Helper()
	tn, ok := d.pkg.Scope().Lookup(name).(*types.TypeName)
	if !ok {
		t.Fatalf("the Go runtime (%s) has no type %s", d.arch, name)
	}
	s, ok := tn.Type().Underlying().(*types.Struct)
	if !ok {
		t.Fatalf("runtime type %s is not a struct", name)
	}
	return s
}

// size returns the size of the runtime's type name.
func (d *runtimeDefs) size(t *testing.T, name string) int64 {
	t.Helper()
	return d.sizes.Sizeof(d.structOf(t, name))
}

// offset returns the offset of a field of the runtime's struct typ, following path through
// nested structs (embedded ones by their type's name).
func (d *runtimeDefs) offset(t *testing.T, typ string, path ...string) int64 {
	t.Helper()
	s := d.structOf(t, typ)
	var off int64
	for i, name := range path {
		fields := make([]*types.Var, s.NumFields())
		for j := range fields {
			fields[j] = s.Field(j)
		}
		offsets := d.sizes.Offsetsof(fields)
		j := 0
		for ; j < len(fields) && fields[j].Name() != name; j++ {
		}
		if j == len(fields) {
			t.Fatalf("runtime type %s has no field %s", typ, strings.Join(path[:i+1], "."))
		}
		off += offsets[j]
		if i < len(path)-1 {
			next, ok := fields[j].Type().Underlying().(*types.Struct)
			if !ok {
				t.Fatalf("runtime field %s.%s is not a struct", typ, strings.Join(path[:i+1], "."))
			}
			s = next
		}
	}
	return off
}
