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

// writer appends little-endian fields to a page.
type writer struct {
	b   []byte
	off int
	bad bool
}

func (w *writer) room(n int) bool {
	if w.bad || w.off+n > len(w.b) {
		w.bad = true
		return false
	}
	return true
}

func (w *writer) u8(v uint8) {
	if w.room(1) {
		w.b[w.off] = v
		w.off++
	}
}

func (w *writer) u16(v uint16) {
	if w.room(2) {
		binary.LittleEndian.PutUint16(w.b[w.off:], v)
		w.off += 2
	}
}

func (w *writer) u32(v uint32) {
	if w.room(4) {
		binary.LittleEndian.PutUint32(w.b[w.off:], v)
		w.off += 4
	}
}

func (w *writer) u64(v uint64) {
	if w.room(8) {
		binary.LittleEndian.PutUint64(w.b[w.off:], v)
		w.off += 8
	}
}

func (w *writer) bytes(p []byte) {
	if w.room(len(p)) {
		copy(w.b[w.off:], p)
		w.off += len(p)
	}
}

func (w *writer) str(s string) {
	if w.room(len(s) + 1) {
		copy(w.b[w.off:], s)
		w.b[w.off+len(s)] = 0
		w.off += len(s) + 1
	}
}

func (w *writer) align(n int) {
	for w.off%n != 0 && !w.bad {
		w.u8(0)
	}
}

func le64(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }

func put64(b []byte, v uint64) { binary.LittleEndian.PutUint64(b, v) }
