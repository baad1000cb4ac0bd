package main

import (
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/unix"
)

// orderEdges: the socket calls check the descriptor, the header, the name, the iovecs and the
// control data in Linux's order, and connect of a socket pair looks the path up before it asks
// whether the pair is connected; readv's and writev's iovecs are checked whole, as
// import_iovec does; link looks the old name up before the new one's fault counts; open's flags
// come before its path. dir is a directory with a file "a" (open at file), sp a stream socket
// pair, end the first byte of an unmapped page and kernel an address in the kernel's half. The
// calls read structures in mem, which the caller unmaps when they have run.
func orderEdges(dir string, file int, sp [2]int, end, kernel uintptr) (cases []edgeCase, mem []byte, err error) {
	// Every structure the calls read lives in pages of their own, out of the Go heap's reach: two,
	// which the one-page hole the other cases need cannot take.
	mem, err = unix.Mmap(-1, 0, 2*4096, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return nil, nil, err
	}
	base := uintptr(unsafe.Pointer(&mem[0]))
	at := func(off int) uintptr { return base + uintptr(off) }
	word := func(off int, v uintptr) { *(*uintptr)(unsafe.Pointer(&mem[off])) = v }
	sockaddrUn := func(off int, path string) uintptr { // returns sockaddr_un's length
		mem[off], mem[off+1] = unix.AF_UNIX, 0
		return uintptr(2 + copy(mem[off+2:off+110], path) + 1)
	}
	missingLen := sockaddrUn(0, filepath.Join(dir, "nonesuch"))
	abstractLen := sockaddrUn(128, "\x00unitrace-nobody-listens")
	fileLen := sockaddrUn(256, filepath.Join(dir, "a"))
	// msghdr at 512: a readable name, no iovecs, control data longer than optmem_max.
	for i, v := range []uintptr{at(1024), 16, 0, 0, at(1024), 1 << 20, 0} {
		word(512+8*i, v)
	}
	// msghdr at 640: a name in the kernel's half.
	for i, v := range []uintptr{kernel, 16, 0, 0, 0, 0, 0} {
		word(640+8*i, v)
	}
	// msghdr at 768: one iovec, at 896, in the kernel's half.
	for i, v := range []uintptr{0, 0, at(896), 1, 0, 0, 0} {
		word(768+8*i, v)
	}
	word(896, kernel)
	word(904, 16)
	// iovecs at 960: one good byte, then none at an address in the kernel's half.
	word(960, at(1024))
	word(968, 1)
	word(976, kernel)
	word(984, 0)
	copy(mem[3072:], filepath.Join(dir, "nonesuch")+"\x00")
	oldName := at(3072)
	const oTmpfileBit = 0o20000000 // __O_TMPFILE, without O_DIRECTORY
	fdcwd := unix.AT_FDCWD
	atFDCWD := uintptr(fdcwd)
	return []edgeCase{
		{"connect a file to an address it cannot read", func() (uintptr, error) { return sys(unix.SYS_CONNECT, uintptr(file), end, 16) }, result{0, unix.EFAULT}},
		{"connect a socket pair to a missing path", func() (uintptr, error) { return sys(unix.SYS_CONNECT, uintptr(sp[0]), at(0), missingLen) }, result{0, unix.ENOENT}},
		{"connect a socket pair to an abstract name", func() (uintptr, error) { return sys(unix.SYS_CONNECT, uintptr(sp[0]), at(128), abstractLen) }, result{0, unix.ECONNREFUSED}},
		{"connect a socket pair to a file", func() (uintptr, error) { return sys(unix.SYS_CONNECT, uintptr(sp[0]), at(256), fileLen) }, result{0, unix.ECONNREFUSED}},
		{"setsockopt a file, a negative length", func() (uintptr, error) {
			return sys6(unix.SYS_SETSOCKOPT, uintptr(file), unix.SOL_SOCKET, unix.SO_KEEPALIVE, at(1024), 0x8000_0000, 0)
		}, result{0, unix.ENOTSOCK}},
		{"recvmsg a file, a header it cannot read", func() (uintptr, error) { return sys(unix.SYS_RECVMSG, uintptr(file), kernel, 0) }, result{0, unix.ENOTSOCK}},
		{"sendmsg a socket pair, control data past optmem_max", func() (uintptr, error) { return sys(unix.SYS_SENDMSG, uintptr(sp[0]), at(512), 0) }, result{0, unix.ENOBUFS}},
		{"sendmsg a socket pair, a name it cannot read", func() (uintptr, error) { return sys(unix.SYS_SENDMSG, uintptr(sp[0]), at(640), 0) }, result{0, unix.EFAULT}},
		{"recvmsg a socket pair into the kernel's half", func() (uintptr, error) {
			return sys(unix.SYS_RECVMSG, uintptr(sp[0]), at(768), unix.MSG_DONTWAIT)
		}, result{0, unix.EFAULT}},
		{"sendto a length past the user half", func() (uintptr, error) { return sys6(unix.SYS_SENDTO, uintptr(sp[0]), at(1024), 1<<62, 0, 0, 0) }, result{0, unix.EFAULT}},
		{"recvfrom into the kernel's half", func() (uintptr, error) {
			return sys6(unix.SYS_RECVFROM, uintptr(sp[0]), kernel, 16, unix.MSG_DONTWAIT, 0, 0)
		}, result{0, unix.EFAULT}},
		{"writev with an empty iovec in the kernel's half", func() (uintptr, error) { return sys(unix.SYS_WRITEV, uintptr(file), at(960), 2) }, result{0, unix.EFAULT}},
		{"writev a descriptor not open before its iovecs", func() (uintptr, error) { return sys(unix.SYS_WRITEV, 1<<20, at(960), 2) }, result{0, unix.EBADF}},
		{"linkat a missing old name before the new one's fault", func() (uintptr, error) {
			return sys6(unix.SYS_LINKAT, atFDCWD, oldName, atFDCWD, kernel, 0, 0)
		}, result{0, unix.ENOENT}},
		{"openat __O_TMPFILE without O_DIRECTORY, flags before the path", func() (uintptr, error) {
			return sys6(unix.SYS_OPENAT, atFDCWD, kernel, oTmpfileBit|unix.O_RDWR, 0, 0, 0)
		}, result{0, unix.EINVAL}},
	}, mem, nil
}
