package files

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/dev/serial"
	"github.com/unitrace/unitrace/kernel/fd"
	"github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/klog"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/netlink"
	"github.com/unitrace/unitrace/kernel/sockwire"
	"github.com/unitrace/unitrace/kernel/tp"
)

// The socket system calls' handlers: each checks its arguments as Linux does, then makes its
// call (sys_socket.go).

// sockFD is descriptor n's socket: EBADF if n is not open, ENOTSOCK if it is no socket.
func sockFD(n int) (i int, handle uint32, errno int) {
	i, handle, ok := core.FDs.Socket(n)
	switch {
	case ok:
		return i, handle, 0
	case core.FDs.Kind(n) == fd.KindNone:
		return -1, 0, abi.EBADF
	}
	return -1, 0, abi.ENOTSOCK
}

var warnedNoNet bool

func Socket(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	domain, typ, proto := int(a[0]), int(a[1]), int(a[2])
	base := typ & abi.SOCK_TYPE_MASK
	switch {
	case typ&^(abi.SOCK_TYPE_MASK|abi.SOCK_NONBLOCK|abi.SOCK_CLOEXEC) != 0:
		return abi.Neg(abi.EINVAL), true
	case domain == netlink.AF_NETLINK:
		return netlinkSocket(typ, proto), true
	case domain != abi.AF_INET && domain != abi.AF_INET6:
		return abi.Neg(abi.EAFNOSUPPORT), true // AF_UNIX too: not yet
	case base != abi.SOCK_STREAM && base != abi.SOCK_DGRAM:
		return abi.Neg(abi.ESOCKTNOSUPPORT), true
	case !serial.NetAvailable():
		klog.Once(&warnedNoNet, "net: no net port (unitrace run -net=none, or a machine without virtio-mmio): sockets are EAFNOSUPPORT")
		return abi.Neg(abi.EAFNOSUPPORT), true
	}
	i, handle, errno := core.FDs.SocketReserve(domain, base)
	if errno != 0 {
		return abi.Neg(errno), true
	}
	return sockStart(f, SockCall{call: callSocket, fd: -1, sock: int32(i), newSock: int32(i), newFlags: int32(typ & (abi.SOCK_NONBLOCK | abi.SOCK_CLOEXEC)),
		h: sockwire.Header{Op: sockwire.OpSocket, Handle: handle, A: [3]int64{int64(domain), int64(base), int64(proto)}}})
}

// SockSimple makes a call with one request and its result.
func SockSimple(f *machine.Frame, n int, op sockwire.Op, args [3]int64, c SockCall) (uint64, bool) {
	if core.FDs.IsNetlink(n) {
		return netlinkSimple(n, op, args, c), true
	}
	if isPair(n) {
		return pairSimple(n, op, args, c), true
	}
	i, handle, errno := sockFD(n)
	if errno != 0 {
		return abi.Neg(errno), true
	}
	c.fd, c.sock = int32(n), int32(i)
	c.h = sockwire.Header{Op: op, Handle: handle, A: args}
	return sockStart(f, c)
}

// sockKindErrno is the first check of a socket call's descriptor, as Linux's: EBADF if n is not
// open, ENOTSOCK if it is no socket (the launcher's, a pair's end or a netlink socket).
func sockKindErrno(n int) int {
	switch core.FDs.Kind(n) {
	case fd.KindNone:
		return abi.EBADF
	case fd.KindSocket, fd.KindPair:
		return 0
	}
	return abi.ENOTSOCK
}

// sockAddrIn checks an address passed in as Linux's move_addr_to_kernel copies it: a length (a
// C int) below 0 or above sockaddr_storage's size EINVAL, an address it cannot read EFAULT. It
// returns the address's bytes, which must not outlive the system call.
func sockAddrIn(addr uintptr, addrLen int32) ([]byte, int) {
	if addrLen < 0 || addrLen > sockwire.MaxAddr {
		return nil, abi.EINVAL
	}
	b, ok := core.UserBytes(addr, uintptr(addrLen), false)
	if !ok {
		return nil, abi.EFAULT
	}
	return b, 0
}

func Bind(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	n, addrLen := int(int32(a[0])), int32(a[2])
	if e := sockKindErrno(n); e != 0 { // the descriptor, then the address, as Linux's __sys_bind
		return abi.Neg(e), true
	}
	if _, e := sockAddrIn(uintptr(a[1]), addrLen); e != 0 {
		return abi.Neg(e), true
	}
	if addrLen < 2 {
		return abi.Neg(abi.EINVAL), true
	}
	return SockSimple(f, n, sockwire.OpBind, [3]int64{}, SockCall{addr: uintptr(a[1]), addrLen: uintptr(addrLen)})
}

func Connect(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	// Linux's __sys_connect copies the address in before it asks whether the open descriptor
	// is a socket.
	n, addr, addrLen := int(int32(a[0])), uintptr(a[1]), int32(a[2])
	if core.FDs.Kind(n) == fd.KindNone {
		return abi.Neg(abi.EBADF), true
	}
	sa, e := sockAddrIn(addr, addrLen)
	if e != 0 {
		return abi.Neg(e), true
	}
	if e := sockKindErrno(n); e != 0 {
		return abi.Neg(e), true
	}
	if addrLen < 2 {
		return abi.Neg(abi.EINVAL), true
	}
	if isPair(n) && !core.FDs.IsNetlink(n) {
		return abi.Neg(pairConnect(sa)), true
	}
	return SockSimple(f, n, sockwire.OpConnect, [3]int64{},
		SockCall{call: callConnect, addr: addr, addrLen: uintptr(addrLen)})
}

// sockaddrUnSize is sizeof(struct sockaddr_un) (include/uapi/linux/un.h): the family and a
// 108-byte path.
const sockaddrUnSize = 110

// pairConnect is connect on a socket pair's end, whose address sa is AF_UNIX's. Linux's
// unix_stream_connect checks the address (the family, a length that holds a path and fits
// struct sockaddr_un: EINVAL), then looks for the socket listening at it, and only then asks
// whether this one is connected already (EISCONN). No AF_UNIX socket listens in the guest: the
// answer is the path's lookup error, or ECONNREFUSED, as Linux's for a name nothing is bound to.
func pairConnect(sa []byte) int {
	if len(sa) <= 2 || len(sa) > sockaddrUnSize || uint16(sa[0])|uint16(sa[1])<<8 != abi.AF_UNIX {
		return abi.EINVAL
	}
	if sa[2] == 0 {
		return abi.ECONNREFUSED // an abstract name: none is bound
	}
	buf := &PathBufs[0]
	k := copy(buf[:], sa[2:])
	for i, c := range buf[:k] {
		if c == 0 {
			k = i
			break
		}
	}
	path := buf[:k]
	at, errno := pathAt(AtFDCWD, path, false)
	if errno == 0 {
		_, errno = core.RootNS.StatAt(at, path, 0)
	}
	if errno != 0 && errno != fs.EFDLINK {
		return errno
	}
	return abi.ECONNREFUSED
}

func Listen(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return SockSimple(f, int(a[0]), sockwire.OpListen, [3]int64{int64(int32(a[1]))}, SockCall{})
}

func Accept(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return sockAccept(f, int(a[0]), uintptr(a[1]), uintptr(a[2]), 0)
}

func Accept4(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return sockAccept(f, int(a[0]), uintptr(a[1]), uintptr(a[2]), int(a[3]))
}

func sockAccept(f *machine.Frame, n int, addr, addrLen uintptr, flags int) (uint64, bool) {
	if core.FDs.IsNetlink(n) {
		return abi.Neg(abi.EOPNOTSUPP), true // sock_no_accept
	}
	if flags&^(abi.SOCK_NONBLOCK|abi.SOCK_CLOEXEC) != 0 || isPair(n) {
		return abi.Neg(abi.EINVAL), true // a pair's end does not listen
	}
	i, handle, errno := sockFD(n)
	if errno != 0 {
		return abi.Neg(errno), true
	}
	if core.FDs.SocketNothingToRead(i) && core.FDs.Nonblocking(n) {
		tp.NetLocal.Emit2(uint64(handle), abi.Neg(abi.EAGAIN))
		return abi.Neg(abi.EAGAIN), true // no connection waits (fd.SocketNothingToRead)
	}
	domain, typ := core.FDs.SocketType(i)
	ni, nh, errno := core.FDs.SocketReserve(domain, typ)
	if errno != 0 {
		return abi.Neg(errno), true
	}
	c := SockCall{call: callAccept, fd: int32(n), sock: int32(i), newSock: int32(ni), newFlags: int32(flags),
		h: sockwire.Header{Op: sockwire.OpAccept, Handle: handle, A: [3]int64{int64(nh)}}}
	if addr != 0 {
		c.Out.Addr, c.Out.AddrLen = addr, addrLen
	}
	return sockStart(f, c)
}

func Getsockname(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return SockSimple(f, int(a[0]), sockwire.OpSockName, [3]int64{}, SockCall{Out: serial.NetCall{Addr: uintptr(a[1]), AddrLen: uintptr(a[2])}})
}

func Getpeername(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	return SockSimple(f, int(a[0]), sockwire.OpPeerName, [3]int64{}, SockCall{Out: serial.NetCall{Addr: uintptr(a[1]), AddrLen: uintptr(a[2])}})
}

// maxOptLen bounds a socket option's value (the launcher's allow-list has none larger).
const maxOptLen = 64

func Setsockopt(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	if e := sockKindErrno(int(int32(a[0]))); e != 0 { // the descriptor before the length
		return abi.Neg(e), true
	}
	if int32(a[4]) < 0 || a[4] > maxOptLen {
		return abi.Neg(abi.EINVAL), true
	}
	return SockSimple(f, int(a[0]), sockwire.OpSetSockOpt, [3]int64{int64(int32(a[1])), int64(int32(a[2]))},
		SockCall{addr: uintptr(a[3]), addrLen: uintptr(a[4])})
}

func Getsockopt(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	// The descriptor first, and a socket pair (AF_UNIX) has only SOL_SOCKET options: other
	// levels are EOPNOTSUPP before the length is read, as Linux.
	n := int(int32(a[0]))
	if e := sockKindErrno(n); e != 0 {
		return abi.Neg(e), true
	}
	if isPair(n) && !core.FDs.IsNetlink(n) && int32(a[1]) != abi.SOL_SOCKET {
		return abi.Neg(abi.EOPNOTSUPP), true
	}
	val, lenp := uintptr(a[3]), uintptr(a[4])
	room, ok := core.ReadUser32(lenp)
	if !ok {
		return abi.Neg(abi.EFAULT), true
	}
	if int32(room) < 0 {
		return abi.Neg(abi.EINVAL), true
	}
	if val == 0 {
		return abi.Neg(abi.EFAULT), true
	}
	return SockSimple(f, n, sockwire.OpGetSockOpt, [3]int64{int64(int32(a[1])), int64(int32(a[2])), int64(room)},
		SockCall{Out: serial.NetCall{Buf: val, OptLen: lenp}})
}

func Shutdown(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	if e := sockKindErrno(int(int32(a[0]))); e != 0 { // the descriptor before how, as Linux
		return abi.Neg(e), true
	}
	if uint32(a[1]) > 2 {
		return abi.Neg(abi.EINVAL), true
	}
	return SockSimple(f, int(a[0]), sockwire.OpShutdown, [3]int64{int64(a[1])}, SockCall{})
}

// Sendto and Recvfrom check in Linux's order: the buffer's range (import_ubuf: EFAULT
// unless the most a call moves, maxRW, lies in the user half), the descriptor, then sendto's
// address.
func Sendto(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	n, buf, count := int(int32(a[0])), uintptr(a[1]), uintptr(a[2])
	if !core.AccessOK(buf, min(count, core.MaxRW)) {
		return abi.Neg(abi.EFAULT), true
	}
	if e := sockKindErrno(n); e != 0 {
		return abi.Neg(e), true
	}
	c := SockCall{src: buf, srcLen: count}
	if a[4] != 0 {
		if _, e := sockAddrIn(uintptr(a[4]), int32(a[5])); e != 0 {
			return abi.Neg(e), true
		}
		c.addr, c.addrLen = uintptr(a[4]), uintptr(uint32(a[5]))
	}
	return sockSend(f, n, int64(int32(a[3])), c)
}

func Recvfrom(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	n, buf, count := int(int32(a[0])), uintptr(a[1]), uintptr(a[2])
	if !core.AccessOK(buf, min(count, core.MaxRW)) {
		return abi.Neg(abi.EFAULT), true
	}
	if e := sockKindErrno(n); e != 0 {
		return abi.Neg(e), true
	}
	c := SockCall{Out: serial.NetCall{Buf: buf, Count: count}}
	if a[4] != 0 {
		c.Out.Addr, c.Out.AddrLen = uintptr(a[4]), uintptr(a[5])
	}
	return sockRecv(f, n, int64(int32(a[3])), c)
}

// struct msghdr's fields (include/linux/socket.h), 64-bit.
const (
	msgName       = 0
	msgNameLen    = 8
	msgIov        = 16
	msgIovLen     = 24
	msgControl    = 32
	msgControlLen = 40
	msgFlagsOff   = 48
)

// msgHeader is a struct msghdr copied in and checked (importMsghdr).
type msgHeader struct {
	name, nameLen uintptr // nameLen at most sockaddr_storage's size, 0 without a name; a send's name is 0 with no length
	iov, iovLen   uintptr
	ctl, ctlLen   uintptr
}

// importMsghdr reads the struct msghdr at msg in the order of Linux's copy_msghdr_from_user:
// the header (EFAULT), the name's length (a C int: EINVAL if negative, cut to sockaddr_storage's
// size), for a send the name itself (EFAULT), the iovec count (EMSGSIZE above UIO_MAXIOV), then
// the iovec array (core.ImportIovec). A send's control data is checked after, by its caller.
func importMsghdr(msg uintptr, send bool) (h msgHeader, errno int) {
	m, ok := core.UserBytes(msg, abi.SizeofMsghdr, false)
	if !ok {
		return h, abi.EFAULT
	}
	h.name = uintptr(core.LE64(m[msgName:]))
	if nl := int32(core.LE64(m[msgNameLen:])); h.name != 0 {
		if nl < 0 {
			return h, abi.EINVAL
		}
		h.nameLen = min(uintptr(nl), sockwire.MaxAddr)
	}
	if send && h.nameLen != 0 {
		if _, ok := core.UserBytes(h.name, h.nameLen, false); !ok {
			return h, abi.EFAULT
		}
	}
	if send && h.nameLen == 0 {
		h.name = 0
	}
	h.iov, h.iovLen = uintptr(core.LE64(m[msgIov:])), uintptr(core.LE64(m[msgIovLen:]))
	if h.iovLen > core.UIOMaxIOV {
		return h, abi.EMSGSIZE
	}
	if _, _, errno := core.ImportIovec(h.iov, h.iovLen); errno != 0 {
		return h, errno
	}
	h.ctl, h.ctlLen = uintptr(core.LE64(m[msgControl:])), uintptr(core.LE64(m[msgControlLen:]))
	return h, 0
}

// optmemMax is Linux's default net.core.optmem_max: the most control data a send may pass
// (sock_kmalloc's limit; ENOBUFS above it).
const optmemMax = 131072

// Sendmsg checks as Linux's ___sys_sendmsg: the descriptor, the header (importMsghdr), the
// control data's length (ENOBUFS) and bytes (EFAULT); then the socket's own checks.
func Sendmsg(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	n := int(int32(a[0]))
	if e := sockKindErrno(n); e != 0 {
		return abi.Neg(e), true
	}
	h, errno := importMsghdr(uintptr(a[1]), true)
	if errno != 0 {
		return abi.Neg(errno), true
	}
	if h.ctlLen > 0 {
		if h.ctlLen >= optmemMax {
			return abi.Neg(abi.ENOBUFS), true
		}
		if _, ok := core.UserBytes(h.ctl, h.ctlLen, false); !ok {
			return abi.Neg(abi.EFAULT), true
		}
		if !isPair(n) {
			return abi.Neg(abi.EOPNOTSUPP), true // ancillary data is not passed on to the launcher's sockets
		}
	}
	c := SockCall{src: h.iov, srcLen: h.iovLen, srcVec: true, addr: h.name, addrLen: h.nameLen}
	if isPair(n) {
		return pairMove(f, n, true, int64(int32(a[2])), c, h.ctl, h.ctlLen, 0)
	}
	return sockSend(f, n, int64(int32(a[2])), c)
}

// Recvmsg checks the descriptor, then the header (importMsghdr), as Linux's __sys_recvmsg.
func Recvmsg(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	n, msg := int(int32(a[0])), uintptr(a[1])
	if e := sockKindErrno(n); e != 0 {
		return abi.Neg(e), true
	}
	h, errno := importMsghdr(msg, false)
	if errno != 0 {
		return abi.Neg(errno), true
	}
	m, ok := core.UserBytes(msg, abi.SizeofMsghdr, true)
	if !ok {
		return abi.Neg(abi.EFAULT), true // the header is written back
	}
	c := SockCall{srcVec: true, Out: serial.NetCall{Buf: h.iov, Count: h.iovLen, Vec: true, MsgFlags: msg + msgFlagsOff}}
	if h.name != 0 {
		c.Out.Addr, c.Out.AddrLen = h.name, msg+msgNameLen
	}
	if isPair(n) {
		return pairMove(f, n, false, int64(int32(a[2])), c, h.ctl, h.ctlLen, msg)
	}
	for i := msgControlLen; i < msgControlLen+8; i++ {
		m[i] = 0 // no ancillary data comes back
	}
	return sockRecv(f, n, int64(int32(a[2])), c)
}

// sockSend is write, writev, sendto and sendmsg: c holds the bytes (src, srcLen, srcVec) and
// the address, if any.
func sockSend(f *machine.Frame, n int, flags int64, c SockCall) (uint64, bool) {
	if isPair(n) {
		return pairMove(f, n, true, flags, c, 0, 0, 0)
	}
	i, handle, errno := sockFD(n)
	if errno != 0 {
		return abi.Neg(errno), true
	}
	total, errno := core.UserIOLen(c.src, c.srcLen, c.srcVec)
	if errno != 0 {
		return abi.Neg(errno), true
	}
	if _, typ := core.FDs.SocketType(i); typ == abi.SOCK_DGRAM && total+uint64(c.addrLen) > sockwire.MaxData {
		return abi.Neg(abi.EMSGSIZE), true // a datagram goes whole or not at all: it must fit one frame
	}
	c.call, c.fd, c.sock, c.flags, c.total = callSend, int32(n), int32(i), flags, total
	c.h = sockwire.Header{Op: sockwire.OpSend, Handle: handle, A: [3]int64{flags &^ abi.MSG_NOSIGNAL}}
	return sockStart(f, c)
}

// sockRecv is read, readv, recvfrom and recvmsg: c.out says where the bytes go.
func sockRecv(f *machine.Frame, n int, flags int64, c SockCall) (uint64, bool) {
	if isPair(n) {
		return pairMove(f, n, false, flags, c, 0, 0, 0)
	}
	i, handle, errno := sockFD(n)
	if errno != 0 {
		return abi.Neg(errno), true
	}
	total, errno := core.UserIOLen(c.Out.Buf, c.Out.Count, c.Out.Vec)
	if errno != 0 {
		return abi.Neg(errno), true
	}
	if core.FDs.SocketNothingToRead(i) && (core.FDs.Nonblocking(n) || flags&abi.MSG_DONTWAIT != 0) && flags&abi.MSG_PEEK == 0 {
		tp.NetLocal.Emit2(uint64(handle), abi.Neg(abi.EAGAIN))
		return abi.Neg(abi.EAGAIN), true // known without a round trip (fd.SocketNothingToRead)
	}
	c.call, c.fd, c.sock, c.flags, c.total = callRecv, int32(n), int32(i), flags, total
	want := min(total, uint64(sockwire.MaxData-sockwire.MaxAddr))
	c.h = sockwire.Header{Op: sockwire.OpRecv, Handle: handle, A: [3]int64{flags, int64(want)}}
	return sockStart(f, c)
}

// SockRead and sockWrite serve read, write, readv and writev on a socket.
func SockRead(f *machine.Frame, n int, buf, count uintptr, vec bool) (uint64, bool) {
	return sockRecv(f, n, 0, SockCall{Out: serial.NetCall{Buf: buf, Count: count, Vec: vec}})
}

func SockWrite(f *machine.Frame, n int, buf, count uintptr, vec bool) (uint64, bool) {
	return sockSend(f, n, 0, SockCall{src: buf, srcLen: count, srcVec: vec})
}

// afterSocketClose tells the host when descriptor n was socket i's last, and wakes the
// threads blocked on n (their retry sees EBADF).
func afterSocketClose(n, i int) {
	if !core.FDs.SocketLive(i) {
		sockCloseHost(i)
	}
	core.FutexWake(core.FDKey(n), core.MaxThreads)
}
