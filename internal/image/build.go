package image

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// BuildConfig says which program to build into which image.
type BuildConfig struct {
	// AppDir is the directory of the main package.
	AppDir string
	// Output is the image path; empty means DefaultOutput.
	Output string
	Spec   Spec
	// GoFlags are extra go build flags, such as -gcflags=... or -a.
	GoFlags []string
	// Env is the environment the go command starts from (nil: os.Environ).
	// The build settings of Spec are added after it, so they win.
	Env []string
	// Stderr receives the go command's diagnostics (nil: os.Stderr).
	Stderr io.Writer
	// Files is a newc archive of files to pack into the image (internal/packfiles), which the
	// kernel unpacks at boot; empty: none.
	Files []byte
}

// Result is a built and checked image.
type Result struct {
	Path string
	Info Info
}

// Build links the main package in cfg.AppDir into an image, patches and checks
// it. The image appears at its path only when it is valid.
func Build(ctx context.Context, cfg BuildConfig) (Result, error) {
	pkg, err := describe(ctx, cfg)
	if err != nil {
		return Result{}, err
	}
	out := cfg.Output
	if out == "" {
		out = filepath.Join(pkg.moduleDir, "build", fmt.Sprintf("%s-%s.elf", filepath.Base(pkg.dir), cfg.Spec.Arch))
	}
	// The go command runs in AppDir: give it a path that means the same there.
	if out, err = filepath.Abs(out); err != nil {
		return Result{}, err
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return Result{}, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".*.tmp")
	if err != nil {
		return Result{}, err
	}
	tmp.Close()
	defer os.Remove(tmp.Name()) // no-op after the rename

	args := []string{"build", "-o", tmp.Name(), "-ldflags=" + strings.Join(cfg.Spec.LDFlags(), " ")}
	if len(cfg.Files) > 0 {
		pkgPath := cfg.Spec.PackedPackage
		if !slices.Contains(pkg.deps, pkgPath) {
			return Result{}, fmt.Errorf("%w: %s does not link %s, which holds them", ErrPackedNotLinked, cfg.AppDir, pkgPath)
		}
		dir, err := os.MkdirTemp("", "unitrace-packed-")
		if err != nil {
			return Result{}, err
		}
		defer os.RemoveAll(dir)
		overlay, err := packOverlay(ctx, cfg, pkgPath, dir)
		if err != nil {
			return Result{}, fmt.Errorf("packing files into %s: %w", cfg.AppDir, err)
		}
		args = append(args, "-overlay="+overlay)
	}
	args = append(args, cfg.GoFlags...)
	args = append(args, ".")
	if err := goCommand(ctx, cfg, args, nil); err != nil {
		return Result{}, fmt.Errorf("building %s: %w", cfg.AppDir, err)
	}
	info, err := PatchFile(tmp.Name(), cfg.Spec)
	if err != nil {
		return Result{}, fmt.Errorf("image of %s refused: %w", cfg.AppDir, err)
	}
	if len(cfg.Files) > 0 {
		if err := checkPacked(tmp.Name(), cfg.Spec.PackedPackage, cfg.Files); err != nil {
			return Result{}, fmt.Errorf("image of %s refused: %w", cfg.AppDir, err)
		}
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		return Result{}, err
	}
	return Result{Path: out, Info: info}, nil
}

type mainPackage struct {
	dir, moduleDir string
	deps           []string
}

// describe checks, before linking, what would otherwise surface as an obscure
// linker error ("missing entry symbol"): the directory must hold a main
// package that imports the package defining the entry symbol.
func describe(ctx context.Context, cfg BuildConfig) (mainPackage, error) {
	var out bytes.Buffer
	format := "{{.Name}}\n{{.Dir}}\n{{with .Module}}{{.Dir}}{{end}}\n{{range .Deps}}{{.}} {{end}}"
	if err := goCommand(ctx, cfg, []string{"list", "-f", format, "."}, &out); err != nil {
		return mainPackage{}, fmt.Errorf("%s: %w", cfg.AppDir, err)
	}
	lines := strings.SplitN(out.String(), "\n", 4)
	if len(lines) < 4 {
		return mainPackage{}, fmt.Errorf("%s: unexpected go list output %q", cfg.AppDir, out.String())
	}
	name, dir, moduleDir, deps := lines[0], lines[1], lines[2], strings.Fields(lines[3])
	if name != "main" {
		return mainPackage{}, fmt.Errorf("%s holds package %s, not a main package", cfg.AppDir, name)
	}
	if moduleDir == "" {
		return mainPackage{}, fmt.Errorf("%s is not inside a Go module", cfg.AppDir)
	}
	if p := symbolPackage(cfg.Spec.EntrySymbol); p != "" && p != "main" && !slices.Contains(deps, p) {
		return mainPackage{}, fmt.Errorf("%w: %s does not import %s, which defines %s; a unitrace program imports %s",
			ErrNoEntrySymbol, cfg.AppDir, p, cfg.Spec.EntrySymbol, KernelImportPath)
	}
	return mainPackage{dir: dir, moduleDir: moduleDir, deps: deps}, nil
}

// symbolPackage returns the import path of a Go symbol name such as
// example.com/a/b.F, or "" for a name without one (_rt0_amd64_linux).
func symbolPackage(sym string) string {
	slash := strings.LastIndex(sym, "/")
	dot := strings.Index(sym[slash+1:], ".")
	if dot < 0 {
		return ""
	}
	return sym[:slash+1+dot]
}

// goCommand runs the go command in cfg.AppDir with the image's build
// environment. stdout nil discards the standard output.
func goCommand(ctx context.Context, cfg BuildConfig, args []string, stdout io.Writer) error {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = cfg.AppDir
	env := cfg.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = append(slices.Clip(env), cfg.Spec.BuildEnv()...)
	cmd.Stdout = stdout
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	w := cfg.Stderr
	if w == nil {
		w = os.Stderr
	}
	w.Write(stderr.Bytes())
	if err != nil {
		return fmt.Errorf("go %s: %w", args[0], err)
	}
	return nil
}
