// Package vdso builds the kernel's vDSO: a small ELF shared object, in one page, that the Go
// runtime finds through AT_SYSINFO_EHDR and whose clock functions it calls instead of the
// clock_gettime system call. The runtime resolves the functions as the C library would
// (runtime/vdso_elf64.go): through the dynamic section's DT_HASH, DT_SYMTAB, DT_STRTAB and the
// symbol versions of DT_VERSYM and DT_VERDEF. The page also carries section headers, so that
// debug/elf, gdb and objdump read it as they read Linux's.
//
// The functions' code is the kernel's (per arch, in assembly, position-independent but for one
// 64-bit constant, the address of the clock parameters, which Patch fills in). Build lays out
// the tables, the code after them and the parameters at the end of the page. The image builder
// runs it (slot.go); the kernel only copies the page.
//
// The package is kernel-mode Go, as the kernel imports it: Build writes into the caller's page,
// allocates nothing and fails rather than panics when something does not fit.
package vdso

// Base is where the kernel maps the vDSO in every guest: the first page above the program's
// default mmap area (the kernel's mmapBase, which kernel/vdso.go checks at compile time), fixed
// so that the host's tools can name a sampled pc in it without being told ("[vdso]", as perf
// names Linux's).
const Base = 0x7fff_bf7f_f000

// Name is what the host's tools call a pc in the vDSO.
const Name = "[vdso]"

// Contains reports whether pc lies in the vDSO's page.
func Contains(pc uint64) bool { return pc >= Base && pc < Base+PageSize }

// PageSize is the vDSO's size: the ELF image, its code and the clock parameters.
const PageSize = 4096

// Func is a function the vDSO exports: its name, and its machine code.
type Func struct {
	Name string
	Code []byte
}

// Params are the clock parameters the functions read, at ParamsOffset in the page: a sequence
// count (even while the rest is valid: the kernel makes it odd while it writes), then the
// monotonic clock's base counter value and multiplier (ns = (counter - Base) * Mult >> 32, the
// kernel's own nanotime) and the wall clock's offset from it in ns.
const (
	ParamsOffset = PageSize - ParamsSize
	ParamsSize   = 64
	ParamSeq     = 0
	ParamBase    = 8
	ParamMult    = 16
	ParamWall    = 24
)

// Magic is the 64-bit constant in each function's code that Patch replaces with the address of
// the parameters.
const Magic = 0x5644_534f_5041_5241 // "ARAPOSDV"
