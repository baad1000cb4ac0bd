package systab

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/unitrace/unitrace/trace"
)

// kernelRow is a row of a generated kernel table, read back from its source.
type kernelRow struct {
	constName string
	nr        uint64
	handler   string // the handler's name, or ""
	errno     string // the errno constant's name, or ""
}

// answer says how a row answers: its handler, or its negated errno.
func (r kernelRow) answer() string {
	if r.handler != "" {
		return r.handler
	}
	return "-" + r.errno
}

// readKernelTable parses the checked-in table of arch (KernelFile) into its rows by number.
func readKernelTable(t *testing.T, arch Arch) map[uint64]kernelRow {
	t.Helper()
	path := filepath.Join("..", "syscalls", KernelFile(arch))
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	consts := map[string]uint64{}
	var table *ast.CompositeLit
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok {
			continue
		}
		if g.Tok == token.IMPORT {
			continue
		}
		for _, s := range g.Specs {
			v := s.(*ast.ValueSpec)
			switch {
			case g.Tok == token.CONST:
				lit := v.Values[0].(*ast.BasicLit)
				n, err := strconv.ParseUint(lit.Value, 10, 64)
				if err != nil {
					t.Fatalf("%s: %s = %s: %v", path, v.Names[0].Name, lit.Value, err)
				}
				consts[v.Names[0].Name] = n
			case g.Tok == token.VAR && v.Names[0].Name == "sysTable":
				table = v.Values[0].(*ast.CompositeLit)
			}
		}
	}
	if table == nil {
		t.Fatalf("%s: no sysTable", path)
	}
	rows := map[uint64]kernelRow{}
	for _, e := range table.Elts {
		kv := e.(*ast.KeyValueExpr)
		key := kv.Key.(*ast.Ident).Name
		nr, ok := consts[key]
		if !ok {
			t.Fatalf("%s: sysTable row %s is no constant of the file", path, key)
		}
		r := kernelRow{constName: key, nr: nr}
		for _, fe := range kv.Value.(*ast.CompositeLit).Elts {
			field := fe.(*ast.KeyValueExpr)
			var val string
			switch v := field.Value.(type) {
			case *ast.Ident:
				val = v.Name
			case *ast.SelectorExpr: // abi.ENOSYS, files.SysRead
				val = v.Sel.Name
				if pkg, ok := v.X.(*ast.Ident); ok && pkg.Name != "abi" {
					val = pkg.Name + "." + val
				}
			}
			switch field.Key.(*ast.Ident).Name {
			case "handler":
				r.handler = val
			case "errno":
				r.errno = val
			}
		}
		if _, dup := rows[nr]; dup {
			t.Errorf("%s: two rows for %d", path, nr)
		}
		rows[nr] = r
	}
	if len(consts) != len(rows) {
		t.Errorf("%s: %d constants, %d rows", path, len(consts), len(rows))
	}
	return rows
}

// toolchainNumbers reads the Go toolchain's syscall.SYS_* constants for arch from their
// source, $GOROOT/src/syscall/zsysnum_linux_<arch>.go, by lower-case name.
func toolchainNumbers(t *testing.T, arch Arch) map[string]uint64 {
	t.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skipf("go env GOROOT: %v", err)
	}
	path := filepath.Join(strings.TrimSpace(string(out)), "src", "syscall", "zsysnum_linux_"+arch.GOARCH+".go")
	text, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("no toolchain source: %v", err)
	}
	re := regexp.MustCompile(`(?m)^\s*SYS_([A-Z0-9_]+)\s*=\s*([0-9]+)\s*$`)
	m := map[string]uint64{}
	for _, sub := range re.FindAllStringSubmatch(string(text), -1) {
		n, _ := strconv.ParseUint(sub[2], 10, 64)
		m[strings.ToLower(sub[1])] = n
	}
	if len(m) < 250 {
		t.Fatalf("%s: only %d system calls", path, len(m))
	}
	return m
}

func TestCallsWellFormed(t *testing.T) {
	if err := Check(); err != nil {
		t.Fatal(err)
	}
	for _, a := range Arches {
		for nr := uint64(maxNr); nr < 4*maxNr; nr++ {
			if name := a.Name(nr); name != "" {
				t.Errorf("%s: %s is %d, at or above maxNr", a.GOARCH, name, nr)
			}
		}
	}
}

// TestToolchainSource checks that the source toolchainNumbers reads is this toolchain's
// syscall package, for the arch the test runs on.
func TestToolchainSource(t *testing.T) {
	for _, a := range Arches {
		if a.GOARCH != runtime.GOARCH {
			continue
		}
		sys := toolchainNumbers(t, a)
		for name, want := range map[string]uint64{
			"read": syscall.SYS_READ, "write": syscall.SYS_WRITE, "mmap": syscall.SYS_MMAP,
			"clone": syscall.SYS_CLONE, "futex": syscall.SYS_FUTEX, "exit_group": syscall.SYS_EXIT_GROUP,
		} {
			if sys[name] != want {
				t.Errorf("%s: the toolchain source says %s is %d, syscall.SYS_%s is %d", a.GOARCH, name, sys[name], strings.ToUpper(name), want)
			}
		}
	}
}

// TestCheckFindsMistakes feeds Check lists with one mistake each.
func TestCheckFindsMistakes(t *testing.T) {
	saved := Calls
	defer func() { Calls = saved }()
	for _, tt := range []struct {
		calls []Call
		want  string
	}{
		{[]Call{full("read", "Read", ""), full("read", "Read", "")}, "listed twice"},
		{[]Call{full("no_such_call", "sysNone", "")}, "no system call"},
		{[]Call{partial("read", "Read", "")}, "needs a note"},
		{[]Call{{Name: "read", Handler: "Read"}}, "no level"},
		{[]Call{fails("open", "", "no reason")}, "has an errno"},
		{[]Call{{Name: "open", Handler: "Open", Level: Fails, Errno: "ENOENT", Note: "x"}}, "no handler"},
		{[]Call{full("read", "Read", "a | b")}, "'|'"},
	} {
		Calls = tt.calls
		if err := Check(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Check(%v) = %v, want an error with %q", tt.calls, err, tt.want)
		}
	}
}

// TestTablesMatchToolchain checks the generated kernel tables against the architectures' own
// numbers: every row's constant names a call of the arch (sysnames, and syscall.SYS_* when the
// toolchain has the call) with that number, no call is there twice, every call of Calls that
// the arch has is there with its handler or errno, and nothing else is.
func TestTablesMatchToolchain(t *testing.T) {
	for _, arch := range Arches {
		rows := readKernelTable(t, arch)
		sys := toolchainNumbers(t, arch)
		byConst := map[string]string{} // constName -> Linux name, for arch's calls
		for nr := uint64(0); nr < maxNr; nr++ {
			if name := arch.Name(nr); name != "" {
				byConst[constName(name)] = name
			}
		}
		want := map[string]Call{}
		for _, c := range Calls {
			want[c.Name] = c
		}
		names := map[string]bool{}
		for nr, r := range rows {
			name, ok := byConst[r.constName]
			if !ok {
				t.Errorf("%s: %s names no system call", arch.GOARCH, r.constName)
				continue
			}
			if names[name] {
				t.Errorf("%s: %s has two rows", arch.GOARCH, name)
			}
			names[name] = true
			if got := arch.Name(nr); got != name {
				t.Errorf("%s: %s = %d, which sysnames calls %q", arch.GOARCH, r.constName, nr, got)
			}
			if n, ok := sys[name]; ok && n != nr {
				t.Errorf("%s: %s = %d, syscall.SYS_%s = %d", arch.GOARCH, r.constName, nr, strings.ToUpper(name), n)
			}
			if nr >= trace.SysDrain {
				t.Errorf("%s: %s = %d, among the trace agent's private numbers", arch.GOARCH, name, nr)
			}
			c, ok := want[name]
			switch {
			case !ok:
				t.Errorf("%s: %s has a row but is not in Calls", arch.GOARCH, name)
			case r.handler != c.Handler || r.errno != c.Errno:
				t.Errorf("%s: %s row has handler %q errno %q, Calls says %q %q", arch.GOARCH, name, r.handler, r.errno, c.Handler, c.Errno)
			case (r.handler == "") == (r.errno == ""):
				t.Errorf("%s: %s row needs a handler or an errno, not both", arch.GOARCH, name)
			}
		}
		for _, c := range Calls {
			if _, has := byConst[constName(c.Name)]; has && !names[c.Name] {
				t.Errorf("%s: %s is a call of the arch but has no row", arch.GOARCH, c.Name)
			}
		}
	}
}

// TestServedOnEveryArch checks that a call served on one arch is served alike on every other
// arch that has the call.
func TestServedOnEveryArch(t *testing.T) {
	tables := map[string]map[string]kernelRow{} // GOARCH -> constName -> row
	for _, arch := range Arches {
		tables[arch.GOARCH] = map[string]kernelRow{}
		for _, r := range readKernelTable(t, arch) {
			tables[arch.GOARCH][r.constName] = r
		}
	}
	for _, a := range Arches {
		for _, b := range Arches {
			if a.GOARCH == b.GOARCH {
				continue
			}
			bHas := map[string]bool{}
			for nr := uint64(0); nr < maxNr; nr++ {
				if name := b.Name(nr); name != "" {
					bHas[constName(name)] = true
				}
			}
			for c, ra := range tables[a.GOARCH] {
				if !bHas[c] {
					continue // b has no such call
				}
				rb, ok := tables[b.GOARCH][c]
				switch {
				case !ok:
					t.Errorf("%s is answered on %s but not on %s, which has it", c, a.GOARCH, b.GOARCH)
				case ra.handler != rb.handler || ra.errno != rb.errno:
					t.Errorf("%s: %s answers with %s, %s with %s", c, a.GOARCH, ra.answer(), b.GOARCH, rb.answer())
				}
			}
		}
	}
}

// TestGenerated reruns the generator into a scratch directory and fails if the checked-in
// kernel tables or the docs' table differ from its output.
func TestGenerated(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	const docPath = "../../docs/kernel.md"
	doc, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	scratchDoc := filepath.Join(dir, "kernel.md")
	if err := os.WriteFile(scratchDoc, doc, 0o666); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(gobin, "run", "mksystab.go", "-kernel", dir, "-doc", scratchDoc)
	cmd.Env = append(os.Environ(), "GOOS=", "GOARCH=") // the generator runs on the host
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run mksystab.go: %v\n%s", err, out)
	}
	files := map[string]string{docPath: scratchDoc}
	for _, a := range Arches {
		files[filepath.Join("..", "syscalls", KernelFile(a))] = filepath.Join(dir, KernelFile(a))
	}
	for have, generated := range files {
		want, err := os.ReadFile(generated)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(have)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run go generate ./kernel/systab", have)
		}
	}
}

// TestTableIsStaticData builds the kernel package for each arch and checks that sysTable and
// traceCalls are initialised data that no package initialisation writes: system calls run
// before package init does.
func TestTableIsStaticData(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the system-call package")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	const pkg = "github.com/unitrace/unitrace/kernel/syscalls"
	for _, a := range Arches {
		archive := filepath.Join(t.TempDir(), "kernel.a")
		build := exec.Command(gobin, "build", "-o", archive, pkg)
		build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+a.GOARCH)
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("%s: go build: %v\n%s", a.GOARCH, err, out)
		}
		nm, err := exec.Command(gobin, "tool", "nm", archive).Output()
		if err != nil {
			t.Fatalf("%s: go tool nm: %v", a.GOARCH, err)
		}
		for _, v := range []string{"sysTable", "traceCalls"} {
			re := regexp.MustCompile(`(?m)\s([A-Za-z])\s` + regexp.QuoteMeta(pkg+"."+v) + `$`)
			m := re.FindSubmatch(nm)
			if m == nil {
				t.Errorf("%s: no symbol %s.%s", a.GOARCH, pkg, v)
			} else if string(m[1]) != "D" {
				t.Errorf("%s: %s is of kind %s, not D: it is not statically initialised", a.GOARCH, v, m[1])
			}
		}
		dis, err := exec.Command(gobin, "tool", "objdump", "-s", `^`+regexp.QuoteMeta(pkg)+`\.init(\.|$)`, archive).Output()
		if err != nil {
			t.Fatalf("%s: go tool objdump: %v", a.GOARCH, err)
		}
		for _, line := range strings.Split(string(dis), "\n") {
			if strings.Contains(line, "sysTable") || strings.Contains(line, "traceCalls") {
				t.Errorf("%s: package initialisation refers to a system-call table: %s", a.GOARCH, strings.TrimSpace(line))
			}
		}
	}
}
