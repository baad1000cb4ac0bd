package machine

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"testing"
)

// exported lists the exported top-level names a file declares.
func exported(t *testing.T, file string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.IsExported() {
				names = append(names, d.Name.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() {
							names = append(names, n.Name)
						}
					}
				case *ast.TypeSpec:
					if s.Name.IsExported() {
						names = append(names, s.Name.Name)
					}
				}
			}
		}
	}
	slices.Sort(names)
	return names
}

// TestSameNames keeps the files that stand for one another in step: kernel code written against
// one arch's names builds on the other and on the host stand-in.
func TestSameNames(t *testing.T) {
	// The board's device-tree description and the console's interrupt are arm64's alone: the
	// kernel's arm64 boot and trap files use them.
	arm64Only := []string{"Board", "ConsoleINTID"}
	amd64 := exported(t, "arch_amd64.go")
	arm64 := slices.DeleteFunc(exported(t, "arch_arm64.go"), func(n string) bool { return slices.Contains(arm64Only, n) })
	host := exported(t, "arch_host.go")
	host = slices.DeleteFunc(host, func(n string) bool { return n == "Host" || n == "HostMachine" || n == "HostExit" })
	if !slices.Equal(amd64, arm64) {
		t.Errorf("arch_amd64.go and arch_arm64.go differ:\n%v\n%v", amd64, arm64)
	}
	if !slices.Equal(amd64, host) {
		t.Errorf("arch_amd64.go and arch_host.go differ:\n%v\n%v", amd64, host)
	}
	if a, b := exported(t, "linux_amd64.go"), exported(t, "linux_arm64.go"); !slices.Equal(a, b) {
		t.Errorf("linux_amd64.go and linux_arm64.go differ:\n%v\n%v", a, b)
	}
}
