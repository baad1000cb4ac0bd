// Package image turns a Go main package that imports the unitrace kernel into
// a bootable ELF image: it links the program with the kernel's entry point and
// load address, checks that the result is something QEMU's -kernel loader and
// the kernel's boot code can use, and (on amd64) rewrites the Go build-id note
// into the PVH entry note.
package image

import (
	"debug/elf"
	"fmt"
	"strconv"
)

// Arch names a guest architecture with its GOARCH spelling.
type Arch string

// The guest architectures unitrace images are built for.
const (
	AMD64 Arch = "amd64"
	ARM64 Arch = "arm64"
)

// headerSize is the Go linker's HEADR on ELF targets: the ELF and program
// headers sit in the first page of the first PT_LOAD, one page below -T.
const headerSize = 0x1000

// Spec says how an image for one architecture is linked and what the builder
// checks in the result.
type Spec struct {
	Arch    Arch
	Machine elf.Machine
	// EntrySymbol is the linker's -E: an assembly TEXT symbol of the kernel.
	EntrySymbol string
	// TextAddr is -T, the address of the first text byte.
	TextAddr uint64
	// Rounding is -R, the segment alignment. 0x1000 keeps the file offsets
	// and addresses of all segments page-congruent without wasting memory.
	Rounding uint64
	// PVHNote asks for the .note.go.buildid rewrite (amd64 boots via PVH).
	PVHNote bool
	// GoEnv holds GOARCH-specific variables for the go command, such as
	// GOAMD64=v1 (the kernel's boot code runs before it turns AVX on, and unitrace.avx=0 keeps it
	// off, so v3 could not start).
	GoEnv []string
	// PackedPackage is the import path of the package whose image.go holds the
	// archive of packed files (BuildConfig.Files; packed.go).
	PackedPackage string
}

// Entry symbols of the kernel, referenced only by the linker's -E.
const (
	AMD64Entry = "github.com/unitrace/unitrace/arch/amd64.pvhEntry"
	ARM64Entry = "github.com/unitrace/unitrace/arch/arm64.entry"
)

// KernelImportPath is what a program imports to be linked with the kernel.
const KernelImportPath = "github.com/unitrace/unitrace/kernel"

// SpecFor returns the fixed link layout of an architecture.
func SpecFor(arch Arch) (Spec, error) {
	switch arch {
	case AMD64:
		// 1 MiB + one header page: below 1 MiB lie the BIOS data, the VGA
		// hole and where QEMU puts the PVH start_info.
		return Spec{Arch: AMD64, Machine: elf.EM_X86_64, EntrySymbol: AMD64Entry,
			TextAddr: 0x101000, Rounding: 0x1000, PVHNote: true, GoEnv: []string{"GOAMD64=v1"}, PackedPackage: PackedImportPath}, nil
	case ARM64:
		// QEMU virt puts the DTB at the base of RAM (0x40000000, up to
		// 1 MiB) only if the image leaves room for it.
		return Spec{Arch: ARM64, Machine: elf.EM_AARCH64, EntrySymbol: ARM64Entry,
			TextAddr: 0x40201000, Rounding: 0x1000, PackedPackage: PackedImportPath}, nil
	}
	return Spec{}, fmt.Errorf("unsupported architecture %q (want %s or %s)", arch, AMD64, ARM64)
}

// LoadAddr is where the first PT_LOAD (headers included) must start.
func (s Spec) LoadAddr() uint64 { return s.TextAddr - headerSize }

// LDFlags returns the linker flags of an image, one word per element, ready
// to be joined for go build -ldflags. -B gobuildid derives a GNU build-id
// note from the Go build ID: it identifies the image after the PVH rewrite
// has replaced the Go note. Internal linking is spelled out so no cgo setting
// can turn it into an external (libc) link.
func (s Spec) LDFlags() []string {
	return []string{
		"-T", hex(s.TextAddr),
		"-R", hex(s.Rounding),
		"-E", s.EntrySymbol,
		"-B", "gobuildid",
		"-linkmode=internal",
	}
}

// BuildEnv returns the environment entries the go command needs to build an
// image (appended after the caller's environment, so they win).
func (s Spec) BuildEnv() []string {
	env := []string{"CGO_ENABLED=0", "GOOS=linux", "GOARCH=" + string(s.Arch)}
	return append(env, s.GoEnv...)
}

func hex(v uint64) string { return "0x" + strconv.FormatUint(v, 16) }
