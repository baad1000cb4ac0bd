// Package initstack builds the initial process stack that Linux hands to a
// new program, which the Go runtime's _rt0_amd64_linux and _rt0_arm64_linux
// read: argc at SP, then the argv pointers, a NULL, the envp pointers, a
// NULL, and the auxiliary vector, with the strings and random bytes above.
//
// The package is kernel-mode Go: Build writes only into the caller's window,
// never allocates and never panics. Its string arguments are read, never
// kept; they may be views of a fixed buffer (boot.Cmdline.Arg returns such
// views) or constants, held in a []string backed by an array on the caller's
// stack, which does not escape.
package initstack

import "github.com/unitrace/unitrace/kernel/abi"

// Auxiliary vector tags (elf.h).
const (
	atNull     = 0
	atPageSize = 6
	atPlatform = 15
	atHWCap    = 16
	atRandom   = 25
	atHWCap2   = 26
	atSysinfo  = 33 // AT_SYSINFO_EHDR: the vDSO's ELF header
)

// Auxv is what Build puts in the auxiliary vector. AT_PAGESZ, AT_HWCAP,
// AT_HWCAP2 and AT_RANDOM are always present; AT_PLATFORM only when Platform
// is not empty, AT_SYSINFO_EHDR only when SysinfoEHDR is not 0.
type Auxv struct {
	PageSize, HWCap, HWCap2 uint64
	Random                  [16]byte // AT_RANDOM points at a copy of these
	Platform                string   // e.g. "x86_64" or "aarch64"
	SysinfoEHDR             uint64   // the vDSO's address; AT_SYSINFO_EHDR only when not 0
}

const wordSize = 8

// Build lays out the initial stack in mem, the writable window that ends at
// virtual address top (mem[len(mem)-1] is at top-1), and returns the initial
// SP, 16-byte aligned. From SP up:
//
//	argc
//	argv[0] ... argv[argc-1], NULL
//	envp[0] ... NULL
//	(AT_PAGESZ, AT_HWCAP, AT_HWCAP2, AT_RANDOM, [AT_PLATFORM,] [AT_SYSINFO_EHDR,] AT_NULL) pairs
//	padding to the next 16 bytes
//	random bytes, platform string
//	argv strings, envp strings, each NUL-terminated, ending at top
//
// Pointers are virtual addresses in the window, little-endian. On error
// (ENOMEM: not enough room; EINVAL: a string holds a NUL, or top is below
// len(mem)) nothing is written.
func Build(mem []byte, top uintptr, argv, envv []string, aux Auxv) (sp uintptr, err int) {
	if uintptr(len(mem)) > top {
		return 0, abi.EINVAL
	}
	base := top - uintptr(len(mem)) // address of mem[0]
	// Work in offsets into mem, checking each step stays >= 0, so no
	// address arithmetic can wrap.
	off := len(mem)
	for _, list := range [2][]string{argv, envv} {
		for _, s := range list {
			if hasNUL(s) {
				return 0, abi.EINVAL
			}
			if off -= len(s) + 1; off < 0 {
				return 0, abi.ENOMEM
			}
		}
	}
	strOff := off
	if hasNUL(aux.Platform) {
		return 0, abi.EINVAL
	}
	platformOff := -1
	if aux.Platform != "" {
		if off -= len(aux.Platform) + 1; off < 0 {
			return 0, abi.ENOMEM
		}
		platformOff = off
	}
	if off -= len(aux.Random); off < 0 {
		return 0, abi.ENOMEM
	}
	randomOff := off
	auxPairs := 5 // PAGESZ, HWCAP, HWCAP2, RANDOM, NULL
	if platformOff >= 0 {
		auxPairs++
	}
	if aux.SysinfoEHDR != 0 {
		auxPairs++
	}
	maxWords := off / wordSize
	if len(argv) > maxWords || len(envv) > maxWords {
		return 0, abi.ENOMEM
	}
	words := 1 + len(argv) + 1 + len(envv) + 1 + 2*auxPairs
	if off -= words * wordSize; off < 0 {
		return 0, abi.ENOMEM
	}
	off -= int((base + uintptr(off)) & 15)
	if off < 0 {
		return 0, abi.ENOMEM
	}

	// Everything fits: write it, top down for the strings, bottom up for
	// the table, zeroing the gaps so the layout is reproducible.
	clear(mem[off:randomOff])
	copy(mem[randomOff:], aux.Random[:])
	if platformOff >= 0 {
		putString(mem[platformOff:], aux.Platform)
	}
	w := off
	putWord(mem, &w, uint64(len(argv)))
	p := strOff
	for _, list := range [2][]string{argv, envv} {
		for _, s := range list {
			putWord(mem, &w, uint64(base)+uint64(p))
			p += putString(mem[p:], s)
		}
		putWord(mem, &w, 0)
	}
	putAux := func(tag, val uint64) {
		putWord(mem, &w, tag)
		putWord(mem, &w, val)
	}
	putAux(atPageSize, aux.PageSize)
	putAux(atHWCap, aux.HWCap)
	putAux(atHWCap2, aux.HWCap2)
	putAux(atRandom, uint64(base)+uint64(randomOff))
	if platformOff >= 0 {
		putAux(atPlatform, uint64(base)+uint64(platformOff))
	}
	if aux.SysinfoEHDR != 0 {
		putAux(atSysinfo, aux.SysinfoEHDR)
	}
	putAux(atNull, 0)
	return base + uintptr(off), 0
}

func hasNUL(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return true
		}
	}
	return false
}

// putString copies s and its NUL terminator to the start of dst and returns
// the bytes written.
func putString(dst []byte, s string) int {
	n := copy(dst, s)
	dst[n] = 0
	return n + 1
}

// putWord stores v little-endian at mem[*off] and advances *off.
func putWord(mem []byte, off *int, v uint64) {
	b := mem[*off : *off+wordSize]
	for i := range b {
		b[i] = byte(v >> (8 * i))
	}
	*off += wordSize
}
