package main

import (
	"encoding/binary"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/unitrace/unitrace/examples/sysfuzz/fuzz"
)

// moreCalls are the calls the kernel came to serve after the first table: appended to table.
var moreCalls = []spec{
	// Descriptors.
	{"setns", func(c *call) {
		// Only on its own descriptors, none of them a namespace's: never a namespace of the host.
		c.set(c.fd(), uintptr(fuzz.Pick(c.r, 0, unix.CLONE_NEWNS, unix.CLONE_NEWUTS, unix.CLONE_NEWNET, unix.CLONE_NEWUSER, 1, 1<<31)))
	}},
	{"flock", func(c *call) {
		// Always LOCK_NB: a lock another of its descriptors holds must not make it wait.
		op := uintptr(fuzz.Pick(c.r, unix.LOCK_SH, unix.LOCK_EX, unix.LOCK_UN, 0, 3, 99)) | unix.LOCK_NB
		c.set(c.fd(kFile, kDir), op)
	}},
	{"tee", func(c *call) {
		c.set(c.fd(kPipeR, kFile), c.fd(kPipeW, kFile), copyLen(c), uintptr(fuzz.Flags(c.r, unix.SPLICE_F_MOVE, unix.SPLICE_F_MORE, 0x100)|unix.SPLICE_F_NONBLOCK))
	}},
	{"vmsplice", func(c *call) {
		iov, n := c.iovec()
		c.set(c.fd(kPipeW, kPipeR, kFile), iov, n, uintptr(fuzz.Flags(c.r, unix.SPLICE_F_GIFT, unix.SPLICE_F_MORE, 0x100)|unix.SPLICE_F_NONBLOCK))
	}},
	{"poll", func(c *call) {
		// A timeout of 0 to 2 ms, never negative (for ever).
		c.set(c.pollfds(), uintptr(fuzz.Pick(c.r, 0, 1, 2, 1<<20)), uintptr(c.r.Intn(3)))
	}},
	{"select", func(c *call) {
		c.set(uintptr(fuzz.Pick(c.r, 0, 1, 64, 1024, -1, 1<<20)), c.in(128), c.in(128), c.in(128), c.timeval(), 0)
	}},
	{"openat2", func(c *call) {
		var how [40]byte
		flags := fuzz.Flags(c.r, fileFlags...) | unix.O_NONBLOCK
		if c.r.Chance(1, 8) {
			flags |= 1 << 40 // a bit no flag has
		}
		binary.LittleEndian.PutUint64(how[0:], flags)
		if flags&unix.O_CREAT != 0 || c.r.Chance(1, 6) {
			binary.LittleEndian.PutUint64(how[8:], uint64(mode(c)))
		}
		binary.LittleEndian.PutUint64(how[16:], fuzz.Flags(c.r, unix.RESOLVE_NO_XDEV, unix.RESOLVE_NO_MAGICLINKS,
			unix.RESOLVE_NO_SYMLINKS, unix.RESOLVE_BENEATH, unix.RESOLVE_IN_ROOT, 0x20 /* RESOLVE_CACHED */))
		size := uintptr(fuzz.Pick(c.r, 24, 24, 24, 0, 16, 32, 40, 1<<20))
		if size == 40 && c.r.Chance(1, 2) {
			how[32] = 1 // a nonzero byte past the structure: E2BIG
		}
		k := kFile
		if flags&unix.O_DIRECTORY != 0 {
			k = kDir
		}
		c.set(c.dirfd(), c.path(), c.inb(how[:]), size)
		c.newFDAfter(k)
	}},
	{"sync_file_range", func(c *call) {
		c.set(c.fd(kFile), uintptr(fuzz.Off(c.r)), uintptr(fuzz.Pick(c.r, 0, 4096, 1<<20, -1)), uintptr(fuzz.Flags(c.r, 1, 2, 4, 8)))
	}},

	// Extended attributes: random names, on its own files only.
	{"setxattr", func(c *call) { c.set(c.path(), c.xname(), c.xvalue(), c.xsize(), xflags(c)) }},
	{"lsetxattr", func(c *call) { c.set(c.path(), c.xname(), c.xvalue(), c.xsize(), xflags(c)) }},
	{"fsetxattr", func(c *call) { c.set(c.fd(), c.xname(), c.xvalue(), c.xsize(), xflags(c)) }},
	{"getxattr", func(c *call) { c.set(c.path(), c.xname(), c.out(256), c.xsize()) }},
	{"lgetxattr", func(c *call) { c.set(c.path(), c.xname(), c.out(256), c.xsize()) }},
	{"fgetxattr", func(c *call) { c.set(c.fd(), c.xname(), c.out(256), c.xsize()) }},
	{"listxattr", func(c *call) { c.set(c.path(), c.out(256), c.xsize()) }},
	{"llistxattr", func(c *call) { c.set(c.path(), c.out(256), c.xsize()) }},
	{"flistxattr", func(c *call) { c.set(c.fd(), c.out(256), c.xsize()) }},
	{"removexattr", func(c *call) { c.set(c.path(), c.xname()) }},
	{"lremovexattr", func(c *call) { c.set(c.path(), c.xname()) }},
	{"fremovexattr", func(c *call) { c.set(c.fd(), c.xname()) }},

	// Times of files (amd64 only).
	{"futimesat", func(c *call) { c.set(c.dirfd(), c.path(), c.timevals()) }},
	{"utimes", func(c *call) { c.set(c.path(), c.timevals()) }},
	{"utime", func(c *call) {
		var b [16]byte
		binary.LittleEndian.PutUint64(b[0:], uint64(c.r.Intn(1<<31)))
		binary.LittleEndian.PutUint64(b[8:], fuzz.Pick(c.r, uint64(c.r.Intn(1<<31)), ^uint64(0)))
		p := c.inb(b[:])
		if c.r.Chance(1, 4) {
			p = 0
		}
		c.set(c.path(), p)
	}},

	// Memory: only the arena.
	{"mremap", mremap},
	{"msync", func(c *call) {
		c.mem = true
		a, n := c.arenaRange()
		c.set(a, n, uintptr(fuzz.Pick(c.r, unix.MS_ASYNC, unix.MS_SYNC, unix.MS_INVALIDATE, unix.MS_ASYNC|unix.MS_INVALIDATE,
			unix.MS_ASYNC|unix.MS_SYNC, 0, 8, -1)))
	}},

	// Time and limits.
	{"time", func(c *call) { c.set(fuzz.Pick(c.r, 0, c.out(8))) }},
	{"getrlimit", func(c *call) { c.set(rlimitResource(c), c.out(16)) }},
	{"setrlimit", func(c *call) {
		// Never a new limit: the current one again, a soft limit above the hard one, or a
		// bad pointer.
		res := rlimitResource(c)
		var rl unix.Rlimit
		var b [16]byte
		if res < 16 && unix.Getrlimit(int(res), &rl) == nil {
			binary.LittleEndian.PutUint64(b[0:], rl.Cur)
			binary.LittleEndian.PutUint64(b[8:], rl.Max)
		}
		if c.r.Chance(1, 3) {
			binary.LittleEndian.PutUint64(b[0:], ^uint64(0))
			binary.LittleEndian.PutUint64(b[8:], 0)
		}
		c.set(res, c.inb(b[:]))
	}},
}

func init() { table = append(table, moreCalls...) }

func rlimitResource(c *call) uintptr {
	return uintptr(fuzz.Pick(c.r, 7, 3, 0, 1, 8, 15, 16, 1000, -1))
}

// pollfds is two pollfd structures over its descriptors, or a bad pointer.
func (c *call) pollfds() uintptr {
	var pf [16]byte
	binary.LittleEndian.PutUint32(pf[:], uint32(c.fd()))
	binary.LittleEndian.PutUint16(pf[4:], uint16(c.r.Uint64()))
	binary.LittleEndian.PutUint32(pf[8:], uint32(c.fd()))
	binary.LittleEndian.PutUint16(pf[12:], uint16(c.r.Uint64()))
	return c.inb(pf[:])
}

// timeval is a struct timeval: 0 to 2 ms, or invalid, or a bad pointer (never NULL: for ever).
func (c *call) timeval() uintptr {
	var tv [16]byte
	switch c.r.Intn(6) {
	case 0:
		return c.bad()
	case 1:
		binary.LittleEndian.PutUint64(tv[8:], fuzz.Pick(c.r, uint64(1e6), ^uint64(0)))
	case 2:
		binary.LittleEndian.PutUint64(tv[:], ^uint64(0))
	default:
		binary.LittleEndian.PutUint64(tv[8:], uint64(c.r.Intn(2000)))
	}
	return c.bytes(tv[:])
}

// timevals is two struct timevals (access and modification), NULL (now), or a bad pointer.
func (c *call) timevals() uintptr {
	if c.r.Chance(1, 5) {
		return 0
	}
	var b [32]byte
	for i := range 2 {
		binary.LittleEndian.PutUint64(b[16*i:], uint64(c.r.Intn(1<<31)))
		binary.LittleEndian.PutUint64(b[16*i+8:], fuzz.Pick(c.r, uint64(0), 999999, 1e6, ^uint64(0)))
	}
	return c.inb(b[:])
}

// xname is an extended attribute's name: user.N (a few names, so that sets and gets meet), other
// namespaces, none, no namespace, too long, or a bad pointer.
func (c *call) xname() uintptr {
	if c.r.Chance(1, 10) {
		return c.bad()
	}
	var s string
	switch c.r.Intn(8) {
	case 0:
		s = fuzz.Pick(c.r, "trusted.t", "security.s", "system.x", "xattr", "user.")
	case 1:
		s = ""
		if c.r.Chance(1, 2) {
			s = "user." + strings.Repeat("n", 255) // over XATTR_NAME_MAX
		}
	default:
		s = "user." + fuzz.Pick(c.r, "a", "b", "c", string(rune('a'+c.r.Intn(26))))
	}
	return c.bytes(append([]byte(s), 0))
}

// xvalue is an extended attribute's value: random bytes, or a bad pointer.
func (c *call) xvalue() uintptr {
	if c.r.Chance(1, 8) {
		return c.bad()
	}
	return c.random(256)
}

// xsize is a value's or a list's size: fits the 256-byte buffer, 0, or too large.
func (c *call) xsize() uintptr {
	return uintptr(fuzz.Pick(c.r, 0, 1, 8, 256, 256, 65537, 1<<20))
}

func xflags(c *call) uintptr { return uintptr(fuzz.Pick(c.r, 0, 0, 1, 2, 3, 4)) }

// mremap resizes or moves part of the arena: never anything else, and MREMAP_FIXED only onto
// the arena. What leaves the arena is unmapped at once, and what the arena loses is refilled.
func mremap(c *call) {
	c.mem = true
	lo, hi := c.e.arena, c.e.arena+arenaPages*pageSize
	old, oldSize := c.arenaRange()
	newSize := uintptr(pageSize * (1 + c.r.Intn(8)))
	if c.r.Chance(1, 8) {
		newSize = uintptr(fuzz.Pick(c.r, 0, 1, -1, 1<<62))
	}
	flags := uintptr(fuzz.Pick(c.r, 0, 0, unix.MREMAP_MAYMOVE, unix.MREMAP_MAYMOVE, unix.MREMAP_MAYMOVE|unix.MREMAP_FIXED,
		unix.MREMAP_MAYMOVE|unix.MREMAP_DONTUNMAP, unix.MREMAP_FIXED, unix.MREMAP_DONTUNMAP, 8, -1))
	var newAddr uintptr
	if flags&unix.MREMAP_FIXED != 0 {
		// Onto the arena only, and only where the whole new size fits in it.
		if newSize > hi-lo {
			newSize = pageSize
		}
		newAddr = lo + uintptr(pageSize*c.r.Intn(int((hi-lo-newSize)/pageSize)+1))
		if c.r.Chance(1, 8) {
			newAddr++ // misaligned: EINVAL
		}
	}
	c.set(old, oldSize, newSize, flags, newAddr)
	c.after = func(r uintptr) {
		inArena := r >= lo && r < hi && newSize <= hi-r
		if r != old {
			if !inArena {
				unix.Syscall(unix.SYS_MUNMAP, r, newSize, 0)
			}
			if flags&unix.MREMAP_DONTUNMAP == 0 {
				c.e.refill(old, oldSize)
			}
			return
		}
		if end := (old + oldSize + pageSize - 1) &^ (pageSize - 1); newSize < oldSize {
			c.e.refill(old+((newSize+pageSize-1)&^(pageSize-1)), end-old-((newSize+pageSize-1)&^(pageSize-1)))
		}
		if end := old + ((newSize + pageSize - 1) &^ (pageSize - 1)); end > hi {
			unix.Syscall(unix.SYS_MUNMAP, hi, end-hi, 0)
		}
	}
}
