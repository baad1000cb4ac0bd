package cpio

import "github.com/unitrace/unitrace/kernel/fs"

// Layout of a newc header (cpio(5), "New ASCII Format"): the magic, then 13 fields of 8
// hexadecimal digits, c_ino to c_check, in the order of the f* constants below.
const (
	HeaderSize = magicLen + numFields*fieldLen // 110
	magicLen   = 6
	fieldLen   = 8
)

const (
	// Magic starts every newc header.
	Magic = "070701"
	// Trailer is the name of the record that ends an archive.
	Trailer = "TRAILER!!!"
)

// The header's fields, in order.
const (
	fIno = iota
	fMode
	fUID
	fGID
	fNLink
	fMTime
	fFileSize
	fDevMajor
	fDevMinor
	fRdevMajor
	fRdevMinor
	fNameSize
	fCheck // 0 in newc; the "070702" variant puts a checksum here
	numFields
)

// Record is one record of an archive, its header decoded. Its name and data are offsets into the
// archive: Name and Data take the archive and return slices of it.
type Record struct {
	Ino, Mode, UID, GID, NLink uint32
	MTime                      uint32 // seconds since the epoch
	FileSize                   uint32 // bytes of data: a file's contents, a symbolic link's target
	DevMajor, DevMinor         uint32 // the device the file was on
	RdevMajor, RdevMinor       uint32 // a device file's own number

	off, name, nameLen, data, next int
	trailer                        bool
}

// Offset is where the record starts in the archive.
func (r Record) Offset() int { return r.off }

// Next is where the record after this one starts.
func (r Record) Next() int { return r.next }

// Name is the record's name without its NUL: a clean relative path.
func (r Record) Name(a []byte) []byte { return a[r.name : r.name+r.nameLen] }

// Data is the record's data.
func (r Record) Data(a []byte) []byte { return a[r.data : r.data+int(r.FileSize)] }

// IsTrailer reports whether this is the TRAILER!!! record that ends the archive.
func (r Record) IsTrailer() bool { return r.trailer }

// Type is the file type bits of the mode (fs.S_IFREG, fs.S_IFDIR, ...).
func (r Record) Type() uint32 { return r.Mode & fs.S_IFMT }

// Perm is the permission bits of the mode, set-user-ID, set-group-ID and sticky included.
func (r Record) Perm() uint32 { return r.Mode & fs.PermMask }

// At decodes and checks the record at offset off of archive a (0 for the first; Next for the
// others): magic, fields, a name size that leaves room for the NUL and stays below fs.PathMax,
// a NUL-terminated name with no NUL inside that is a clean relative path (ValidName), zero
// padding, and a name and data that end inside the archive, their padding included.
func At(a []byte, off int) (Record, Err) {
	if off < 0 || off%4 != 0 || off > len(a) {
		return Record{}, ErrOffset
	}
	if len(a)-off < HeaderSize {
		return Record{}, ErrTruncated
	}
	h := a[off : off+HeaderSize]
	if string(h[:magicLen]) != Magic {
		return Record{}, ErrMagic
	}
	var f [numFields]uint32
	for i := range f {
		v, ok := parseHex(h[magicLen+i*fieldLen : magicLen+(i+1)*fieldLen])
		if !ok {
			return Record{}, ErrHex
		}
		f[i] = v
	}
	nameSize := int(f[fNameSize])
	if nameSize == 0 || nameSize > fs.PathMax {
		return Record{}, ErrNameSize
	}
	name := off + HeaderSize
	if len(a)-name < nameSize {
		return Record{}, ErrTruncated
	}
	data := align4(name + nameSize)
	if data > len(a) {
		return Record{}, ErrTruncated
	}
	size := int(f[fFileSize])
	if len(a)-data < size {
		return Record{}, ErrTruncated
	}
	next := align4(data + size)
	if next > len(a) {
		return Record{}, ErrTruncated
	}
	nameBytes := a[name : name+nameSize-1]
	if a[name+nameSize-1] != 0 || indexNUL(nameBytes) >= 0 {
		return Record{}, ErrNameNUL
	}
	if !zeros(a[name+nameSize:data]) || !zeros(a[data+size:next]) {
		return Record{}, ErrPadding
	}
	if !ValidName(nameBytes) {
		return Record{}, ErrName
	}
	r := Record{
		Ino: f[fIno], Mode: f[fMode], UID: f[fUID], GID: f[fGID], NLink: f[fNLink], MTime: f[fMTime],
		FileSize: f[fFileSize], DevMajor: f[fDevMajor], DevMinor: f[fDevMinor],
		RdevMajor: f[fRdevMajor], RdevMinor: f[fRdevMinor],
		off: off, name: name, nameLen: nameSize - 1, data: data, next: next,
		trailer: string(nameBytes) == Trailer,
	}
	if r.trailer && size != 0 {
		return Record{}, ErrTrailerData
	}
	return r, OK
}

// Check checks the whole archive: every record (At), up to a TRAILER!!! record followed by
// nothing but zeros. It returns the number of records before the trailer and, on failure, the
// offset of the record at fault (of the first byte after the trailer that is not zero, for
// ErrAfterTrailer).
func Check(a []byte) (records, at int, err Err) {
	off := 0
	for {
		if off >= len(a) {
			return records, off, ErrNoTrailer
		}
		r, err := At(a, off)
		if err != OK {
			return records, off, err
		}
		if r.trailer {
			for i := r.next; i < len(a); i++ {
				if a[i] != 0 {
					return records, i, ErrAfterTrailer
				}
			}
			return records, off, OK
		}
		records++
		off = r.next // At guarantees progress: next >= off + HeaderSize
	}
}

// ValidName reports whether name is a clean relative path: not empty, no leading or trailing
// slash, no empty, "." or ".." component, each component at most fs.NameMax bytes. Unpacked
// below a directory, such a name cannot leave it. (The length of the whole is At's to check.)
func ValidName(name []byte) bool {
	if len(name) == 0 || name[0] == '/' || name[len(name)-1] == '/' {
		return false
	}
	start := 0
	for i := 0; i <= len(name); i++ {
		if i < len(name) && name[i] != '/' {
			continue
		}
		c := name[start:i]
		switch {
		case len(c) == 0 || len(c) > fs.NameMax:
			return false
		case len(c) == 1 && c[0] == '.', len(c) == 2 && c[0] == '.' && c[1] == '.':
			return false
		}
		start = i + 1
	}
	return true
}

// parseHex decodes 8 hexadecimal digits, either case (as Linux's initramfs reader accepts).
func parseHex(b []byte) (uint32, bool) {
	var v uint32
	for _, c := range b {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		v = v<<4 | uint32(d)
	}
	return v, true
}

func align4(n int) int { return (n + 3) &^ 3 }

func zeros(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

func indexNUL(b []byte) int {
	for i, c := range b {
		if c == 0 {
			return i
		}
	}
	return -1
}
