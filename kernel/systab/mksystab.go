//go:build ignore

// mksystab writes the kernel's system-call tables, kernel/syscalls/systab_amd64.go and systab_arm64.go, from
// the calls of package systab and the numbers of package sysnames, and brings the table of
// supported calls in the docs up to date.
//
//	go run mksystab.go -kernel DIR -doc FILE
//
// FILE must hold the table's begin and end markers already; only the lines between them change.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/unitrace/unitrace/kernel/systab"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "mksystab: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("mksystab", flag.ContinueOnError)
	kernelDir := fs.String("kernel", "../syscalls", "directory of the system-call package, to write the tables into")
	doc := fs.String("doc", "../../docs/kernel.md", "markdown file whose table of supported calls to update")
	if err := fs.Parse(args); err != nil {
		return err
	}
	for _, a := range systab.Arches {
		src, err := systab.KernelSource(a)
		if err != nil {
			return fmt.Errorf("%s table: %w", a.GOARCH, err)
		}
		if err := os.WriteFile(filepath.Join(*kernelDir, systab.KernelFile(a)), src, 0o666); err != nil {
			return err
		}
	}
	section, err := systab.DocSection()
	if err != nil {
		return fmt.Errorf("docs table: %w", err)
	}
	text, err := os.ReadFile(*doc)
	if err != nil {
		return err
	}
	text, err = systab.UpdateDoc(text, section)
	if err != nil {
		return fmt.Errorf("%s: %w", *doc, err)
	}
	return os.WriteFile(*doc, text, 0o666)
}
