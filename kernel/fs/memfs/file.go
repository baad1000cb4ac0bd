package memfs

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/fs"
)

// Read copies ino's bytes from offset off into dst and returns how many it copied: fewer than
// len(dst) only at the end of the file, none at or past it. Holes read as zeros. Reading a
// directory fails with fs.EISDIR; other non-regular files with fs.EINVAL (the kernel serves devices
// itself).
func (f *FS) Read(ino uint32, off int64, dst []byte, now fs.Timespec) (int, int) {
	in := f.get(ino)
	switch {
	case in == nil:
		return 0, abi.ENOENT
	case isDir(in):
		return 0, abi.EISDIR
	case in.mode&fs.S_IFMT != fs.S_IFREG:
		return 0, abi.EINVAL
	case off < 0:
		return 0, abi.EINVAL
	}
	n := 0
	if off < in.size {
		n = f.copyOut(in, off, dst[:min(int64(len(dst)), in.size-off)])
	}
	if len(dst) > 0 {
		f.accessed(in, now)
	}
	return n, 0
}

// copyOut copies the contents at [off, off+len(dst)) into dst, which lies within the size.
func (f *FS) copyOut(in *inode, off int64, dst []byte) int {
	n := 0
	for n < len(dst) {
		pos := uint64(off) + uint64(n)
		in0 := int(pos % PageSize)
		chunk := dst[n:min(len(dst), n+PageSize-in0)]
		if pg := findPage(in, pos/PageSize); pg != 0 {
			copy(chunk, dataPage(pg)[in0:])
		} else {
			clear(chunk)
		}
		n += len(chunk)
	}
	return n
}

// Write copies src into ino at offset off, growing the file if it ends past the size, and
// returns how many bytes it wrote. When the capacity runs out part way it stops there and returns
// the bytes written so far, or fs.ENOSPC if none; a write starting at or past MaxFileSize fails with
// fs.EFBIG and one reaching past it is cut short, as Linux does. The caller turns O_APPEND into
// off = Size(ino).
func (f *FS) Write(p Pages, ino uint32, off int64, src []byte, now fs.Timespec) (int, int) {
	in := f.get(ino)
	switch {
	case in == nil:
		return 0, abi.ENOENT
	case isDir(in):
		return 0, abi.EISDIR
	case in.mode&fs.S_IFMT != fs.S_IFREG:
		return 0, abi.EINVAL
	case off < 0:
		return 0, abi.EINVAL
	case len(src) == 0:
		return 0, 0
	case off >= fs.MaxFileSize:
		return 0, abi.EFBIG
	}
	src = src[:min(int64(len(src)), fs.MaxFileSize-off)]
	in.mtime, in.ctime = now, now
	n := 0
	for n < len(src) {
		pos := uint64(off) + uint64(n)
		pg, errno := f.getPage(p, in, pos/PageSize)
		if errno != 0 {
			if n == 0 {
				return 0, errno
			}
			break
		}
		n += copy(dataPage(pg)[pos%PageSize:], src[n:])
	}
	if end := off + int64(n); end > in.size {
		in.size = end
	}
	return n, 0
}

// Truncate sets ino's size: a larger size reads as zeros up to it, a smaller one frees the pages
// past it. The modification and change times become now if the size changes, and always if stamp
// is set (ftruncate and open's O_TRUNC stamp; truncate does not).
func (f *FS) Truncate(p Pages, ino uint32, size int64, stamp bool, now fs.Timespec) int {
	in := f.get(ino)
	switch {
	case in == nil:
		return abi.ENOENT
	case isDir(in):
		return abi.EISDIR
	case in.mode&fs.S_IFMT != fs.S_IFREG:
		return abi.EINVAL
	case size < 0:
		return abi.EINVAL
	}
	if size != in.size || stamp {
		in.mtime, in.ctime = now, now
	}
	if size < in.size {
		f.shrink(p, in, size)
	}
	in.size = size
	return 0
}

// shrink frees the pages past size and zeroes the rest of the last page, so that growing the file
// again reads zeros there.
func (f *FS) shrink(p Pages, in *inode, size int64) {
	last := uint64(size) / PageSize
	if tail := uint64(size) % PageSize; tail != 0 {
		if pg := findPage(in, last); pg != 0 {
			clear(dataPage(pg)[tail:])
		}
		last++
	}
	f.freeFrom(p, in, last)
}
