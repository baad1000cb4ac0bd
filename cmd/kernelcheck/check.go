package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// config says what to check and how to build it.
type config struct {
	moduleDir string   // where the go command runs
	app       string   // main package (pattern relative to moduleDir)
	patterns  []string // kernel-mode packages
	env       []string // go command environment (guest GOOS/GOARCH...)
	ldflags   []string // image link flags; -E makes the kernel reachable
	log       io.Writer
}

type finding struct {
	pos      string // file:line
	function string // "" for compiler diagnostics
	what     string
}

func (f finding) String() string {
	if f.function == "" {
		return fmt.Sprintf("%s: %s", f.pos, f.what)
	}
	return fmt.Sprintf("%s: %s: %s", f.pos, f.function, f.what)
}

type result struct {
	findings  []finding
	unlinked  []string // kernel-mode packages the app does not link
	packages  int
	functions int
}

// kernelPackage is one package of the checked set.
type kernelPackage struct {
	importPath string
	files      []string // absolute paths of its non-test Go files
}

func check(ctx context.Context, cfg config) (result, error) {
	var res result
	pkgs, err := listPackages(ctx, cfg)
	if err != nil {
		return res, err
	}
	deps, err := goList(ctx, cfg, "{{.ImportPath}}", "-deps", cfg.app)
	if err != nil {
		return res, err
	}
	var linked []kernelPackage
	for _, p := range pkgs {
		if slices.Contains(deps, p.importPath) {
			linked = append(linked, p)
		} else {
			res.unlinked = append(res.unlinked, p.importPath)
		}
	}
	res.packages = len(linked)
	if len(linked) == 0 {
		return res, fmt.Errorf("%s links none of the kernel-mode packages %v", cfg.app, cfg.patterns)
	}

	bin, err := os.CreateTemp("", "kernelcheck-*.elf")
	if err != nil {
		return res, err
	}
	bin.Close()
	defer os.Remove(bin.Name())
	args := []string{"build", "-o", bin.Name(), "-ldflags=" + strings.Join(cfg.ldflags, " ")}
	for _, p := range linked {
		args = append(args, "-gcflags="+p.importPath+"=-m -d=wb")
	}
	args = append(args, cfg.app)
	var diags bytes.Buffer
	if err := goCommand(ctx, cfg, &diags, args...); err != nil {
		cfg.log.Write(diags.Bytes())
		return res, err
	}
	res.findings = compilerFindings(diags.String(), linked)

	dump, err := objdump(ctx, cfg, bin.Name(), linked)
	if err != nil {
		return res, err
	}
	calls, functions := callFindings(dump, linked)
	res.findings = append(res.findings, calls...)
	res.functions = functions
	for i, f := range res.findings {
		if rel, err := filepath.Rel(cfg.moduleDir, f.pos); err == nil && !strings.HasPrefix(rel, "..") {
			res.findings[i].pos = rel
		}
	}
	return res, nil
}

func listPackages(ctx context.Context, cfg config) ([]kernelPackage, error) {
	lines, err := goList(ctx, cfg, "{{.ImportPath}}\t{{.Dir}}\t{{join .GoFiles \"\\t\"}}", append([]string{"-e"}, cfg.patterns...)...)
	if err != nil {
		return nil, err
	}
	var pkgs []kernelPackage
	for _, line := range lines {
		fields := strings.Split(line, "\t")
		if len(fields) < 3 || fields[2] == "" {
			continue // no Go files for this GOOS/GOARCH
		}
		p := kernelPackage{importPath: fields[0]}
		for _, f := range fields[2:] {
			p.files = append(p.files, filepath.Join(fields[1], f))
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, nil
}

func goList(ctx context.Context, cfg config, format string, args ...string) ([]string, error) {
	var out bytes.Buffer
	if err := goCommand(ctx, cfg, &out, append([]string{"list", "-f", format}, args...)...); err != nil {
		return nil, err
	}
	return slices.DeleteFunc(strings.Split(out.String(), "\n"), func(s string) bool { return s == "" }), nil
}

// goCommand runs go with cfg's environment; output gets stdout and stderr
// when stdout is not wanted separately.
func goCommand(ctx context.Context, cfg config, output *bytes.Buffer, args ...string) error {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = cfg.moduleDir
	cmd.Env = cfg.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Stdout = output
	if args[0] == "build" {
		cmd.Stderr = output // the diagnostics
	}
	if err := cmd.Run(); err != nil {
		cfg.log.Write(stderr.Bytes())
		return fmt.Errorf("go %s: %w", strings.Join(args[:1], " "), err)
	}
	if args[0] != "build" {
		cfg.log.Write(stderr.Bytes()) // warnings such as "matched no packages"
	}
	return nil
}

// diagRE matches a compiler diagnostic: file:line:col: message.
var diagRE = regexp.MustCompile(`^(.+\.go):(\d+):(\d+): (.*)$`)

// compilerFindings keeps the -m and -d=wb diagnostics that violate the
// rules and come from the kernel-mode packages' own files. The go command
// prints file names relative to some directory and replays cached
// diagnostics verbatim, so names are matched by their trailing components.
func compilerFindings(diags string, pkgs []kernelPackage) []finding {
	var out []finding
	seen := map[string]bool{}
	for _, line := range strings.Split(diags, "\n") {
		m := diagRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		msg := m[4]
		if !strings.Contains(msg, "escapes to heap") && !strings.HasPrefix(msg, "moved to heap") && msg != "write barrier" {
			continue
		}
		file := kernelFile(m[1], pkgs)
		if file == "" || seen[line] {
			continue
		}
		seen[line] = true
		out = append(out, finding{pos: file + ":" + m[2], what: msg})
	}
	return out
}

// kernelFile returns the absolute name of the kernel-mode file that name
// refers to, or "".
func kernelFile(name string, pkgs []kernelPackage) string {
	name = filepath.ToSlash(filepath.Clean(name))
	for strings.HasPrefix(name, "../") {
		name = name[3:]
	}
	for _, p := range pkgs {
		for _, f := range p.files {
			if strings.HasSuffix(f, "_test.go") || strings.HasSuffix(f, "_host.go") {
				continue // tests, and host-only code kept beside the guest code it decodes
			}
			slash := filepath.ToSlash(f)
			if slash == name || strings.HasSuffix(slash, "/"+name) {
				return f
			}
		}
	}
	return ""
}

func objdump(ctx context.Context, cfg config, bin string, pkgs []kernelPackage) (string, error) {
	quoted := make([]string, len(pkgs))
	for i, p := range pkgs {
		quoted[i] = regexp.QuoteMeta(p.importPath)
	}
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, "go", "tool", "objdump", "-s", `^(?:`+strings.Join(quoted, "|")+`)\.`, bin)
	cmd.Dir = cfg.moduleDir
	cmd.Stdout = &out
	cmd.Stderr = cfg.log
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go tool objdump: %w", err)
	}
	return out.String(), nil
}

// forbiddenCallRE names the runtime entry points kernel-mode code must not
// reach: allocation, write barriers and typed (pointer-carrying) copies, maps,
// interface conversions (to an interface from a concrete type, which allocates, and from
// another interface or by assertion, which looks the method table up under a runtime lock),
// string building, defers, panics and method-value
// wrappers' nil checks. Bounds-check panics (panicIndex...) are not listed:
// the compiler emits them for checks it cannot prove away.
var forbiddenCallRE = regexp.MustCompile(`^runtime\.\(?\*?(?:newobject|newarray|mallocgc|growslice|makeslice|makemap|makechan|` +
	`gcWriteBarrier|wbBuf|wbMove|typedmemmove|typedslicecopy|bulkBarrier|convT|concatstring|slicebytetostring|` +
	`slicerunetostring|stringtoslice|rawstring|mapassign|mapaccess|mapdelete|panicwrap|deferproc|gopanic|` +
	`typeAssert|getitab|assertE2I|convI2I|panicdottype)`)

// instRE matches an objdump instruction line: file:line, address, encoding
// and the instruction in Go syntax.
var instRE = regexp.MustCompile(`^\s+(\S+):(\d+)\s+0x[0-9a-f]+\s+[0-9a-f]+\s+(.*?)\s*$`)

// callFindings scans go tool objdump output for calls to forbidden runtime
// functions and returns them with the number of functions scanned.
func callFindings(dump string, pkgs []kernelPackage) ([]finding, int) {
	var (
		out       []finding
		fn, dir   string
		functions int
	)
	host := hostFunctions(dump)
	skip := false
	sc := bufio.NewScanner(strings.NewReader(dump))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "TEXT "); ok {
			name, file, _ := strings.Cut(rest, " ")
			fn, dir = strings.TrimSuffix(name, "(SB)"), filepath.Dir(file)
			skip = host[fn] || host[strings.Replace(fn, "(*", "", 1)] || host[valueMethod(fn)]
			functions++
			continue
		}
		if skip {
			continue
		}
		m := instRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		op, target, ok := strings.Cut(m[3], " ")
		if !ok || (op != "CALL" && op != "JMP") {
			continue
		}
		target = strings.TrimSuffix(target, "(SB)")
		if !forbiddenCallRE.MatchString(target) {
			continue
		}
		out = append(out, finding{pos: instFile(m[1], dir, pkgs) + ":" + m[2], function: fn, what: "calls " + target})
	}
	return out, functions
}

// hostFunctions names the functions defined in *_host.go files: host-only code that a guest may
// still link (the trace agent, ordinary Go, uses the host-side String methods), which the
// kernel-mode rules do not cover. Their compiler-made pointer-receiver wrappers are skipped
// with them.
func hostFunctions(dump string) map[string]bool {
	host := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(dump))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "TEXT ")
		if !ok {
			continue
		}
		name, file, _ := strings.Cut(rest, " ")
		if strings.HasSuffix(file, "_host.go") {
			host[strings.TrimSuffix(name, "(SB)")] = true
		}
	}
	return host
}

// valueMethod turns a pointer-receiver wrapper's name, pkg.(*T).M, into the value method's, pkg.T.M.
func valueMethod(fn string) string {
	i := strings.Index(fn, "(*")
	j := strings.Index(fn, ").")
	if i < 0 || j < i {
		return fn
	}
	return fn[:i] + fn[i+2:j] + fn[j+1:]
}

// instFile turns objdump's base file name into a path: in the function's
// own directory if such a file is there, else the only kernel-mode file
// with that name, else the base name (inlined code from elsewhere).
func instFile(base, dir string, pkgs []kernelPackage) string {
	var match []string
	for _, p := range pkgs {
		for _, f := range p.files {
			if filepath.Base(f) != base {
				continue
			}
			if filepath.Dir(f) == dir {
				return f
			}
			match = append(match, f)
		}
	}
	if len(match) == 1 {
		return match[0]
	}
	return base
}
