package memfs

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/fs"
)

// Extended attributes. An inode's attributes live in one page of their own, taken with the
// first and given back with the last: records of a name length (one byte), a value length (two
// bytes, little-endian), the name and the value, one after the other, ended by a zero name
// length. So all of a file's attributes, with three bytes of each and one, fit in PageSize
// bytes; a set that would not fit is ENOSPC, as tmpfs says once a file's attribute space is
// spent. Which names are allowed, and who may set them, is the caller's (package vfs).

const xattrHeader = 3

// xattrs returns inode in's attribute page as bytes, or nil if it has none.
func (f *FS) xattrs(in *inode) []byte {
	if in.xattrs == 0 {
		return nil
	}
	return (*[PageSize]byte)(mem(in.xattrs))[:]
}

// xattrFind returns the offset of name's record in page b and the end of the records
// (the offset of the terminating zero).
func xattrFind(b []byte, name []byte) (at, end int) {
	at = -1
	for i := 0; i+xattrHeader <= len(b) && b[i] != 0; {
		nl, vl := int(b[i]), int(b[i+1])|int(b[i+2])<<8
		if at < 0 && string(b[i+xattrHeader:i+xattrHeader+nl]) == string(name) {
			at = i
		}
		i += xattrHeader + nl + vl
		end = i
	}
	return at, end
}

// GetXattr returns the value of attribute name of inode ino (in the inode's page: the caller
// copies it before the next change), ENODATA if it has none.
func (f *FS) GetXattr(ino uint32, name []byte) ([]byte, int) {
	in := f.get(ino)
	if in == nil {
		return nil, abi.ENOENT
	}
	b := f.xattrs(in)
	at, _ := xattrFind(b, name)
	if at < 0 {
		return nil, abi.ENODATA
	}
	nl, vl := int(b[at]), int(b[at+1])|int(b[at+2])<<8
	v := b[at+xattrHeader+nl:]
	return v[:vl], 0
}

// ListXattr writes the names of inode ino's attributes, each followed by a NUL, to dst if they
// fit, and returns their length whether or not they did (listxattr's size).
func (f *FS) ListXattr(ino uint32, dst []byte) (int, int) {
	in := f.get(ino)
	if in == nil {
		return 0, abi.ENOENT
	}
	b := f.xattrs(in)
	n := 0
	for i := 0; i+xattrHeader <= len(b) && b[i] != 0; {
		nl, vl := int(b[i]), int(b[i+1])|int(b[i+2])<<8
		if n+nl+1 <= len(dst) {
			copy(dst[n:], b[i+xattrHeader:i+xattrHeader+nl])
			dst[n+nl] = 0
		}
		n += nl + 1
		i += xattrHeader + nl + vl
	}
	return n, 0
}

// SetXattr sets attribute name (1 to 255 bytes) of inode ino to value: with create only if it
// does not exist (else EEXIST), with replace only if it does (else ENODATA). It changes the
// inode's ctime. ENOSPC if the attributes would not fit their page, or no page is left.
func (f *FS) SetXattr(p Pages, ino uint32, name, value []byte, create, replace bool, now fs.Timespec) int {
	in := f.get(ino)
	if in == nil {
		return abi.ENOENT
	}
	if len(name) == 0 || len(name) > 255 {
		return abi.ERANGE
	}
	b := f.xattrs(in)
	at, end := xattrFind(b, name)
	switch {
	case at >= 0 && create:
		return abi.EEXIST
	case at < 0 && replace:
		return abi.ENODATA
	}
	old := 0
	if at >= 0 {
		old = xattrHeader + int(b[at]) + (int(b[at+1]) | int(b[at+2])<<8)
	}
	need := xattrHeader + len(name) + len(value)
	if end-old+need+1 > PageSize {
		return abi.ENOSPC
	}
	if b == nil {
		pg, errno := f.alloc(p)
		if errno != 0 {
			return errno
		}
		in.xattrs = pg
		b = f.xattrs(in)
		clear(b)
	}
	if at >= 0 { // drop the old record: the new one goes at the end
		copy(b[at:], b[at+old:end])
		end -= old
	}
	b[end] = byte(len(name))
	b[end+1], b[end+2] = byte(len(value)), byte(len(value)>>8)
	copy(b[end+xattrHeader:], name)
	copy(b[end+xattrHeader+len(name):], value)
	end += need
	b[end] = 0
	in.ctime = now
	return 0
}

// RemoveXattr removes attribute name of inode ino: ENODATA if it has none. The last one gone,
// the page goes back.
func (f *FS) RemoveXattr(p Pages, ino uint32, name []byte, now fs.Timespec) int {
	in := f.get(ino)
	if in == nil {
		return abi.ENOENT
	}
	b := f.xattrs(in)
	at, end := xattrFind(b, name)
	if at < 0 {
		return abi.ENODATA
	}
	size := xattrHeader + int(b[at]) + (int(b[at+1]) | int(b[at+2])<<8)
	copy(b[at:], b[at+size:end])
	end -= size
	b[end] = 0
	if end == 0 {
		f.free(p, in.xattrs)
		in.xattrs = 0
	}
	in.ctime = now
	return 0
}

// freeXattrs gives back inode in's attribute page, when the inode goes.
func (f *FS) freeXattrs(p Pages, in *inode) {
	if in.xattrs != 0 {
		f.free(p, in.xattrs)
		in.xattrs = 0
	}
}
