// Command kernelcheck enforces the kernel-mode rules that the compiler can
// see: kernel-mode Go neither allocates nor uses write barriers.
//
//	kernelcheck [-arch amd64] [-app ./examples/hello] [PATTERN ...]
//
// It builds the app as a guest image with -gcflags='<pkg>=-m -d=wb' for every
// kernel-mode package and fails on any "escapes to heap", "moved to heap" or
// "write barrier" diagnostic in their non-test files. Then it disassembles the
// linked image (go tool objdump) and fails on calls from functions of those
// packages into the runtime's allocator, write barriers, map, interface
// conversion, string concatenation, defer and panic entry points. It prints
// file:line and the function of every finding and exits 1 if there is any.
//
// Run it from anywhere inside the module; patterns are relative to the
// module root. Without patterns it checks kernelPackages.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/unitrace/unitrace/internal/image"
)

// kernelPackages is the list of kernel-mode packages: code that runs in the
// guest kernel, in trap and system-call context (files ending _host.go in
// them are host-only decoders and are skipped; trace/wire is not here: it
// runs in the guest's drain goroutine, ordinary Go). symtab is here because
// the kernel symbolizes its fault reports with it, although the host uses it
// too; unwind because the tracer's emits and the kernel walk stacks with it;
// goroutines because the off-CPU sweep reads the runtime's goroutines with it
// in the timer interrupt; decimal because the console and /proc format
// numbers with it; probe because the breakpoint handler decodes and
// emulates instructions with it.
var kernelPackages = []string{"./kernel/...", "./arch/...", "./boot/...", "./symtab", "./sampler", "./unwind", "./goroutines", "./decimal", "./trace/ring", "./trace/record", "./trace/ctl", "./trace/imageid", "./probe"}

func main() {
	n, err := run(os.Args[1:], os.Stdout, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return // -h: the flag package printed the usage
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "kernelcheck: %v\n", err)
		os.Exit(2)
	}
	if n > 0 {
		os.Exit(1)
	}
}

// run returns the number of findings.
func run(args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("kernelcheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	arch := fs.String("arch", string(image.AMD64), "guest architecture")
	app := fs.String("app", "./examples/hello", "main package to link the kernel into")
	if err := fs.Parse(args); err != nil {
		return 0, err
	}
	spec, err := image.SpecFor(image.Arch(*arch))
	if err != nil {
		return 0, err
	}
	root, err := moduleRoot()
	if err != nil {
		return 0, err
	}
	patterns := fs.Args()
	if len(patterns) == 0 {
		patterns = kernelPackages
	}
	cfg := config{
		moduleDir: root,
		app:       *app,
		patterns:  patterns,
		env:       append(os.Environ(), spec.BuildEnv()...),
		ldflags:   spec.LDFlags(),
		log:       stderr,
	}
	res, err := check(context.Background(), cfg)
	if err != nil {
		return 0, err
	}
	for _, f := range res.findings {
		fmt.Fprintln(stdout, f)
	}
	for _, p := range res.unlinked {
		fmt.Fprintf(stderr, "kernelcheck: note: %s is not linked into %s, so it was not checked\n", p, *app)
	}
	if len(res.findings) > 0 {
		fmt.Fprintf(stdout, "kernelcheck: %d findings: kernel-mode Go must not allocate or use write barriers\n", len(res.findings))
		return len(res.findings), nil
	}
	fmt.Fprintf(stdout, "kernelcheck: ok: %d packages, %d functions: no heap allocation, write barrier or forbidden runtime call\n",
		res.packages, res.functions)
	return 0, nil
}

func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("not inside a Go module")
	}
	return filepath.Dir(mod), nil
}
