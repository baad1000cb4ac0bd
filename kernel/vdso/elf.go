package vdso

import "encoding/binary"

// ELF64 constants and layouts (include/uapi/linux/elf.h; the Go runtime's vdso_elf64.go reads
// the same, TestBuildReadsBack checks the result with debug/elf).
const (
	ehdrSize = 64
	phdrSize = 56
	shdrSize = 64
	dynSize  = 16
	symSize  = 24

	etDyn     = 3
	evCurrent = 1
	ptLoad    = 1
	ptDynamic = 2
	pfR       = 4
	pfX       = 1

	dtNull      = 0
	dtHash      = 4
	dtStrtab    = 5
	dtSymtab    = 6
	dtStrsz     = 10
	dtSyment    = 11
	dtVersym    = 0x6ffffff0
	dtVerdef    = 0x6ffffffc
	dtVerdefnum = 0x6ffffffd

	shtProgbits = 1
	shtStrtab   = 3
	shtHash     = 5
	shtDynamic  = 6
	shtDynsym   = 11
	shtVerdef   = 0x6ffffffd
	shtVersym   = 0x6fffffff
	shfAlloc    = 2
	shfExec     = 4

	stbGlobal  = 1
	sttFunc    = 2
	verFlgBase = 1
	verdefSize = 20
	verdauxSz  = 8
)

// Machine numbers (EM_*).
const (
	MachineAMD64 = 62
	MachineARM64 = 183
)

// soname is the vDSO's DT_SONAME-like base version name, Linux's.
const soname = "linux-vdso.so.1"

// elfHash is the SysV ELF hash (the System V ABI's elf_hash), which DT_HASH and vd_hash use.
func elfHash(name string) uint32 {
	var h uint32
	for i := 0; i < len(name); i++ {
		h = h<<4 + uint32(name[i])
		g := h & 0xf0000000
		if g != 0 {
			h ^= g >> 24
		}
		h &^= g
	}
	return h
}

func le64(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }

func put64(b []byte, v uint64) { binary.LittleEndian.PutUint64(b, v) }
