// Command mkimage builds a unitrace image: it links the main package in
// APP_DIR with the kernel's entry point and load address, writes the PVH
// entry note (amd64) and refuses anything QEMU could not boot.
//
//	mkimage [-arch amd64|arm64] [-o FILE] [-files HOSTDIR:GUESTDIR ...] [-files-mtime SECONDS] APP_DIR
//	mkimage [-arch amd64|arm64] -patch FILE
//
// The image goes to build/<name>-<arch>.elf in APP_DIR's module by default.
// -files packs the files below HOSTDIR into the image, which the kernel
// mounts read-only at GUESTDIR (repeatable); -files-mtime gives them all one
// modification time, for reproducible images. With -patch, mkimage checks and
// patches an ELF file that was linked some other way, in place.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/unitrace/unitrace/internal/exitstatus"
	"github.com/unitrace/unitrace/internal/image"
	"github.com/unitrace/unitrace/internal/packfiles"
)

func main() {
	exitstatus.Exit("mkimage", run(os.Args[1:], os.Stdout, os.Stderr))
}

var errUsage = exitstatus.UsageError{Err: errors.New("usage: mkimage [-arch amd64|arm64] [-o FILE] [-files HOSTDIR:GUESTDIR ...] [-files-mtime SECONDS] APP_DIR | mkimage [-arch ...] -patch FILE")}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("mkimage", flag.ContinueOnError)
	fs.SetOutput(stderr)
	arch := fs.String("arch", string(image.AMD64), "guest architecture: amd64 or arm64")
	out := fs.String("o", "", "image path (default: build/<name>-<arch>.elf in the program's module)")
	patch := fs.String("patch", "", "check and patch this already linked ELF file in place instead of building")
	var files packfiles.Flag
	var packOpts packfiles.Options
	fs.Var(&files, "files", "pack the files below HOSTDIR into the image, mounted read-only at GUESTDIR in the guest (HOSTDIR:GUESTDIR; repeatable)")
	fs.Func("files-mtime", "give every packed file this modification time, in seconds since the epoch (reproducible images)", func(s string) error {
		t, err := packfiles.ParseMTime(s)
		packOpts.MTime = &t
		return err
	})
	if err := exitstatus.ParseFlags(fs, args); err != nil {
		return err
	}
	spec, err := image.SpecFor(image.Arch(*arch))
	if err != nil {
		return err
	}
	if *patch != "" {
		if fs.NArg() != 0 || *out != "" || len(files) > 0 {
			return errUsage
		}
		info, err := image.PatchFile(*patch, spec)
		if err != nil {
			return err
		}
		report(stdout, *patch, info)
		return nil
	}
	if fs.NArg() != 1 {
		return errUsage
	}
	archive, sum, err := packfiles.Archive(files, packOpts)
	if err != nil {
		return err
	}
	res, err := image.Build(context.Background(), image.BuildConfig{AppDir: fs.Arg(0), Output: *out, Spec: spec, Files: archive})
	if err != nil {
		return err
	}
	report(stdout, res.Path, res.Info)
	if len(files) > 0 {
		fmt.Fprintf(stdout, "%s: packed %s\n", res.Path, packfiles.Describe(sum))
	}
	return nil
}

func report(w io.Writer, path string, info image.Info) {
	fmt.Fprintf(w, "%s: entry %s at %#x, load address %#x, build id %x\n", path, info.EntrySymbol, info.Entry, info.LoadAddr, info.BuildID)
}
