package acpi

import "github.com/unitrace/unitrace/boot"

var (
	signatureMADT = [4]byte{'A', 'P', 'I', 'C'}
	signatureRSDT = [4]byte{'R', 'S', 'D', 'T'}
	signatureXSDT = [4]byte{'X', 'S', 'D', 'T'}
)

// MaxTableSize bounds the tables FindMADT reads: an MADT with MaxCPUs x2APIC entries and a
// root table with 1000 pointers both fit.
const MaxTableSize = 8192

// checkTable checks a system description table's header against the bytes in t: the
// signature, a Length that covers the header and fits in t, and the checksum over Length.
func checkTable(t []byte, sig [4]byte) Error {
	if len(t) < headerSize {
		return ErrTableLength
	}
	if [4]byte(t[:4]) != sig {
		return ErrTableSignature
	}
	n := le32(t[headerLength:])
	if n < headerSize {
		return ErrTableLength
	}
	if uint64(n) > uint64(len(t)) {
		return ErrTableTooLarge
	}
	if sum(t[:n]) != 0 {
		return ErrTableChecksum
	}
	return OK
}

// Reader finds and reads tables through a boot.ReadPhys, which every call takes as an argument
// (a func value stored in memory would be a pointer). It is large (two MaxTableSize buffers):
// keep it in a global, not on a small boot stack.
type Reader struct {
	RSDP RSDP

	root  [MaxTableSize]byte // the RSDT or XSDT
	table [MaxTableSize]byte // the table being looked at
	sig   [4]byte            // scratch: a listed table's signature
}

// readTable reads the table at pa into buf and checks it; it returns the table's bytes.
func (r *Reader) readTable(read boot.ReadPhys, pa uint64, sig [4]byte, buf *[MaxTableSize]byte) ([]byte, Error) {
	if pa == 0 || pa != uint64(uintptr(pa)) {
		return nil, ErrTableRead
	}
	if !read(uintptr(pa), buf[:headerSize]) {
		return nil, ErrTableRead
	}
	n := le32(buf[headerLength:])
	if n < headerSize {
		return nil, ErrTableLength
	}
	if n > MaxTableSize {
		return nil, ErrTableTooLarge
	}
	if !read(uintptr(pa)+headerSize, buf[headerSize:n]) {
		return nil, ErrTableRead
	}
	if e := checkTable(buf[:n], sig); e != OK {
		return nil, e
	}
	return buf[:n], OK
}

// Open reads and checks the RSDP at pa (the root table is read by Find).
func (r *Reader) Open(pa uintptr, read boot.ReadPhys) Error {
	r.RSDP = RSDP{}
	if pa == 0 {
		return ErrNoRSDP
	}
	b := r.table[:rsdpSizeV2]
	if !read(pa, b[:rsdpSizeV1]) {
		return ErrRSDPRead
	}
	if b[rsdpRevision] >= 2 && !read(pa+rsdpSizeV1, b[rsdpSizeV1:]) {
		return ErrRSDPRead
	}
	p, e := ParseRSDP(b)
	if e != OK {
		return e
	}
	r.RSDP = p
	return OK
}

// Find reads the first table with signature sig that the root table lists (the XSDT when
// the RSDP has one, else the RSDT) and returns its bytes, which alias r until the next call.
func (r *Reader) Find(read boot.ReadPhys, sig [4]byte) ([]byte, Error) {
	rootSig, rootAddr, width := signatureRSDT, uint64(r.RSDP.RSDT), 4
	if r.RSDP.XSDT != 0 {
		rootSig, rootAddr, width = signatureXSDT, r.RSDP.XSDT, 8
	}
	root, e := r.readTable(read, rootAddr, rootSig, &r.root)
	if e != OK {
		return nil, e
	}
	for off := headerSize; off+width <= len(root); off += width {
		pa := uint64(le32(root[off:]))
		if width == 8 {
			pa = le64(root[off:])
		}
		if pa == 0 || pa != uint64(uintptr(pa)) || !read(uintptr(pa), r.sig[:]) || r.sig != sig {
			continue
		}
		return r.readTable(read, pa, sig, &r.table)
	}
	return nil, ErrNotFound
}

// FindMADT reads the MADT that the RSDP at rsdp leads to into out.
func (r *Reader) FindMADT(rsdp uintptr, read boot.ReadPhys, out *MADT) Error {
	*out = MADT{}
	if e := r.Open(rsdp, read); e != OK {
		return e
	}
	t, e := r.Find(read, signatureMADT)
	if e == ErrNotFound {
		return ErrNoMADT
	}
	if e != OK {
		return e
	}
	return ParseMADT(t, out)
}
