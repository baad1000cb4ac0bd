package main

import (
	"encoding/binary"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/unitrace/unitrace/examples/sysfuzz/fuzz"
)

// thread is one fuzzing thread: a goroutine locked to its OS thread, with its own buffers.
type thread struct {
	id     int
	e      *env
	region uintptr // regionSize bytes, read-write, then a PROT_NONE page
	rep    fuzz.Report
	tid    int
	show   func(name string, a [6]uintptr) // -v: prints a call's arguments
}

// owns reports whether the n bytes at p are all in the thread's buffers (p+n may wrap: a hostile
// pointer near the top of the address space).
func (t *thread) owns(p uintptr, n int) bool {
	return p >= t.region && p < t.region+regionSize && uintptr(n) <= t.region+regionSize-p
}

// call is one system call being built: its arguments and what to do once it succeeds.
type call struct {
	t     *thread
	e     *env
	r     *fuzz.Rand
	a     [6]uintptr
	bump  uintptr
	after func(ret uintptr) // on success, with the return value
	mem   bool              // a memory call: runs under env.memMu
	skip  bool              // the generator found nothing safe to do
}

func (t *thread) newCall(r *fuzz.Rand) *call {
	return &call{t: t, e: t.e, r: r, bump: t.region}
}

// set sets the arguments.
func (c *call) set(args ...uintptr) { copy(c.a[:], args) }

func u(v int) uintptr { return uintptr(v) }

// alloc returns n bytes of the thread's buffers, 16-byte aligned; past their end, the bytes
// before the guard page.
func (c *call) alloc(n int) uintptr {
	if n > regionSize {
		n = regionSize
	}
	p := (c.bump + 15) &^ 15
	end := c.t.region + regionSize
	if p+uintptr(n) > end {
		return end - uintptr(n)
	}
	c.bump = p + uintptr(n)
	return p
}

// bytes returns b copied into the thread's buffers.
func (c *call) bytes(b []byte) uintptr {
	p := c.alloc(len(b))
	copy(bytesAt(p, len(b)), b)
	return p
}

// random returns n random bytes in the thread's buffers.
func (c *call) random(n int) uintptr {
	p := c.alloc(n)
	b := bytesAt(p, n)
	for i := range b {
		b[i] = byte(c.r.Uint64())
	}
	return p
}

// hostile returns a pointer the kernel must refuse (EFAULT) or stop at: NULL, a low unmapped
// address, the kernel half, a non-canonical address, the top of the address space, its own
// PROT_NONE page, a few bytes before the guard page after its buffers, or into the arena (which
// munmap and mprotect may have taken away).
func (c *call) hostile() uintptr {
	r := c.r
	switch r.Intn(8) {
	case 0:
		return 0
	case 1:
		return uintptr(0x1000 + 8*r.Intn(512))
	case 2:
		return kernelHalf() + uintptr(r.Intn(1<<20))*8
	case 3:
		return nonCanonical(r)
	case 4:
		return ^uintptr(0) - uintptr(r.Intn(4096))
	case 5:
		return c.e.none + uintptr(r.Intn(pageSize))
	case 6:
		return c.t.region + regionSize - uintptr(1+r.Intn(64))
	}
	return c.e.arena + uintptr(r.Intn(arenaPages*pageSize))
}

// out returns a buffer of n bytes for the kernel to write, or (one time in five) a hostile
// pointer.
func (c *call) out(n int) uintptr {
	if c.r.Chance(1, 5) {
		return c.hostile()
	}
	return c.alloc(n)
}

// in returns n random bytes for the kernel to read, or a hostile pointer.
func (c *call) in(n int) uintptr {
	if c.r.Chance(1, 5) {
		return c.hostile()
	}
	return c.random(n)
}

// inb returns b (a structure the fuzzer built) for the kernel to read, or a bad pointer.
func (c *call) inb(b []byte) uintptr {
	if c.r.Chance(1, 6) {
		return c.bad()
	}
	return c.bytes(b)
}

// bad is a hostile pointer the kernel can never read: not NULL (which often means "none" or
// "for ever"), and never the arena, whose bytes are whatever calls left there. Structures whose
// contents matter (iovecs, message headers, signal actions, timeouts) are either built or bad.
// A pointer before the guard page is at most 7 bytes from it, so that any structure of 8 bytes or
// more runs into the guard page.
func (c *call) bad() uintptr {
	for {
		p := c.hostile()
		end := c.t.region + regionSize
		if p >= end-64 && p < end {
			return end - uintptr(1+c.r.Intn(7))
		}
		if p != 0 && (p < c.e.arena || p >= c.e.arena+arenaPages*pageSize) {
			return p
		}
	}
}

// buf returns a buffer for a read or a write and its length: good, hostile, or running into the
// guard page.
func (c *call) buf() (uintptr, uintptr) {
	n := 1 + c.r.Intn(8192)
	switch c.r.Intn(8) {
	case 0:
		return c.hostile(), uintptr(fuzz.Len(c.r, n))
	case 1:
		p := c.t.region + regionSize - uintptr(c.r.Intn(n))
		return p, uintptr(n)
	}
	return c.random(n), uintptr(fuzz.Len(c.r, n))
}

// path returns a path inside the scratch directory (see fuzz.Path), an unterminated one against
// the guard page, or a hostile pointer.
func (c *call) path() uintptr {
	if c.r.Chance(1, 10) {
		return c.bad() // never the arena: its bytes could spell any path
	}
	p, kind := fuzz.Path(c.r, c.e.scratch)
	if !fuzz.Safe(p, c.e.scratch) {
		panic("sysfuzz: unsafe path " + string(p))
	}
	if kind == fuzz.PathUnterminated {
		end := c.t.region + regionSize
		dst := end - uintptr(len(p))
		copy(bytesAt(dst, len(p)), p)
		return dst
	}
	return c.bytes(p)
}

// target returns a symbolic link's target (never outside the scratch directory).
func (c *call) target() uintptr {
	p := fuzz.Target(c.r, c.e.scratch)
	if !fuzz.Safe(p, c.e.scratch) {
		panic("sysfuzz: unsafe target " + string(p))
	}
	return c.bytes(p)
}

// badFD is a number that is no descriptor of the process's (nor the runtime's).
func (c *call) badFD() uintptr {
	return uintptr(fuzz.Pick(c.r, -1, -100, 1<<20, 0x7fffffff, int(^uint32(0)), 1023))
}

// fd returns one of its descriptors (of one of kinds, usually, if given) or a bad number.
func (c *call) fd(kinds ...fdKind) uintptr {
	if c.r.Chance(1, 8) {
		return c.badFD()
	}
	fd := -1
	if len(kinds) > 0 && c.r.Chance(3, 4) {
		fd = c.e.pick(c.r, kinds...)
	}
	if fd < 0 {
		fd = c.e.pick(c.r)
	}
	if fd < 0 {
		return c.badFD()
	}
	return uintptr(fd)
}

// dirfd returns a directory to resolve a relative path from: the scratch directory, the working
// directory (inside it), one of its descriptors or a bad number.
func (c *call) dirfd() uintptr {
	switch c.r.Intn(10) {
	case 0, 1, 2, 3:
		return uintptr(c.e.scratchFD)
	case 4, 5:
		return uintptr(unix.AT_FDCWD & 0xffffffff) // an int: the kernel takes the low 32 bits
	case 6, 7, 8:
		return c.fd(kDir)
	}
	return c.badFD()
}

// newFDAfter records the call's return value as a descriptor of kind k once it succeeds.
func (c *call) newFDAfter(k fdKind) {
	c.after = func(r uintptr) { c.e.add(int(r), k) }
}

// pairAfter records the two descriptors the call stores at p once it succeeds.
func (c *call) pairAfter(p uintptr, k0, k1 fdKind) {
	good := c.t.owns(p, 8)
	c.after = func(uintptr) {
		if good {
			b := bytesAt(p, 8)
			c.e.add(int(int32(binary.LittleEndian.Uint32(b))), k0)
			c.e.add(int(int32(binary.LittleEndian.Uint32(b[4:]))), k1)
		}
	}
}

// sig is a signal the fuzzer may send itself: one the runtime handles or that it has asked for
// (signal.Notify), 0, or an invalid number.
func (c *call) sig() uintptr {
	return uintptr(fuzz.Pick(c.r, 0, int(syscall.SIGUSR1), int(syscall.SIGUSR2), int(syscall.SIGURG),
		int(syscall.SIGWINCH), int(syscall.SIGALRM), 65, 1000, -1))
}

// ns is a timespec: 0, a short time (up to 2 ms), or invalid.
func (c *call) timespec() uintptr {
	var ts [16]byte
	switch c.r.Intn(6) {
	case 0:
		return c.bad()
	case 1:
		binary.LittleEndian.PutUint64(ts[8:], fuzz.Pick(c.r, uint64(1e9), ^uint64(0), 1<<40))
	case 2:
		binary.LittleEndian.PutUint64(ts[:], ^uint64(0))
	default:
		binary.LittleEndian.PutUint64(ts[8:], uint64(c.r.Intn(2e6)))
	}
	return c.bytes(ts[:])
}

// itimerspec is an interval and a value: 0, 1 to 50 ms, or invalid.
func (c *call) itimer() uintptr {
	var b [32]byte
	for i := range 2 {
		switch c.r.Intn(5) {
		case 0:
		case 1:
			binary.LittleEndian.PutUint64(b[16*i+8:], fuzz.Pick(c.r, uint64(1e9), ^uint64(0)))
		default:
			binary.LittleEndian.PutUint64(b[16*i+8:], uint64(10e6+c.r.Intn(40e6)))
		}
	}
	if c.r.Chance(1, 6) {
		return c.bad()
	}
	return c.bytes(b[:])
}

// iovec returns an array of n iovecs over good buffers, hostile pointers and the guard page, and
// n (or a bad count).
func (c *call) iovec() (uintptr, uintptr) {
	n := 1 + c.r.Intn(4)
	b := make([]byte, 16*n)
	for i := range n {
		p, l := c.buf()
		binary.LittleEndian.PutUint64(b[16*i:], uint64(p))
		binary.LittleEndian.PutUint64(b[16*i+8:], uint64(l))
	}
	cnt := uintptr(n)
	if c.r.Chance(1, 8) {
		cnt = uintptr(fuzz.Pick(c.r, 0, 1025, -1, 1<<20))
	}
	if c.r.Chance(1, 8) {
		return c.bad(), cnt
	}
	return c.bytes(b), cnt
}

// sockaddr is an address the fuzzer may name: its own listener or UDP socket on 127.0.0.1, port
// 0, ::1, a UNIX socket in the scratch directory, a bad family, or garbage; with its length.
func (c *call) sockaddr() (uintptr, uintptr) {
	var b []byte
	switch c.r.Intn(7) {
	case 0, 1:
		b = make([]byte, 16)
		binary.LittleEndian.PutUint16(b, unix.AF_INET)
		port := fuzz.Pick(c.r, 0, c.e.lport, c.e.uport)
		binary.BigEndian.PutUint16(b[2:], uint16(port))
		copy(b[4:], []byte{127, 0, 0, 1})
	case 2:
		b = make([]byte, 28)
		binary.LittleEndian.PutUint16(b, unix.AF_INET6)
		b[23] = 1 // ::1, port 0
	case 3:
		b = make([]byte, 110)
		binary.LittleEndian.PutUint16(b, unix.AF_UNIX)
		copy(b[2:], fuzz.Pick(c.r, "u", "d/u", "a"))
	case 4:
		b = make([]byte, 16)
		binary.LittleEndian.PutUint16(b, uint16(fuzz.Pick(c.r, 0, 3, 17, 255, 0xffff)))
	case 5:
		return c.bad(), uintptr(fuzz.Len(c.r, 16)) // never the arena: it could hold a UNIX path
	default:
		p := c.random(16)
		if b := bytesAt(p, 2); b[0] == unix.AF_UNIX && b[1] == 0 {
			b[0] = 0xfe // garbage, but never a UNIX socket's random path
		}
		return p, uintptr(fuzz.Len(c.r, 16))
	}
	l := uintptr(len(b))
	if c.r.Chance(1, 5) {
		l = uintptr(fuzz.Pick(c.r, 0, 1, 3, 15, 1<<20, -1))
	}
	return c.bytes(b), l
}

// msghdr is a message header over sockaddr and iovec (no ancillary data: a descriptor passed in
// one could be the runtime's).
func (c *call) msghdr() uintptr {
	b := make([]byte, 56)
	if c.r.Chance(1, 2) {
		p, l := c.sockaddr()
		binary.LittleEndian.PutUint64(b[0:], uint64(p))
		binary.LittleEndian.PutUint32(b[8:], uint32(l))
	}
	iov, n := c.iovec()
	binary.LittleEndian.PutUint64(b[16:], uint64(iov))
	binary.LittleEndian.PutUint64(b[24:], uint64(n))
	if c.r.Chance(1, 4) {
		binary.LittleEndian.PutUint64(b[32:], uint64(c.bad()))
		binary.LittleEndian.PutUint64(b[40:], uint64(fuzz.Len(c.r, 64)))
	}
	binary.LittleEndian.PutUint32(b[48:], uint32(c.r.Uint64()))
	return c.inb(b)
}

// arenaRange is a range for munmap, mprotect, madvise or a fixed mmap: inside the arena (page
// aligned or not), or a hostile address with a length that cannot reach anything else, or a
// length whose page rounding overflows.
func (c *call) arenaRange() (uintptr, uintptr) {
	switch c.r.Intn(8) {
	case 0:
		return fuzz.Pick(c.r, 0, kernelHalf(), nonCanonical(c.r), c.e.arena+1), uintptr(pageSize * (1 + c.r.Intn(4)))
	case 1:
		return c.e.arena + uintptr(pageSize*c.r.Intn(arenaPages)), fuzz.Pick(c.r, ^uintptr(0), ^uintptr(0)-4095, 0)
	}
	first := c.r.Intn(arenaPages)
	n := 1 + c.r.Intn(arenaPages-first)
	l := uintptr(n * pageSize)
	if c.r.Chance(1, 4) {
		l -= uintptr(c.r.Intn(pageSize)) // the kernel rounds up
	}
	return c.e.arena + uintptr(first*pageSize), l
}
