package kernel

import (
	"github.com/unitrace/unitrace/kernel/fd"
	"github.com/unitrace/unitrace/kernel/netlink"
	"github.com/unitrace/unitrace/kernel/sockwire"
)

// The socket system calls' handlers: each checks its arguments as Linux does, then makes its
// call (sys_socket.go).

// sockFD is descriptor n's socket: EBADF if n is not open, ENOTSOCK if it is no socket.
func sockFD(n int) (i int, handle uint32, errno int) {
	i, handle, ok := fds.Socket(n)
	switch {
	case ok:
		return i, handle, 0
	case fds.Kind(n) == fd.KindNone:
		return -1, 0, EBADF
	}
	return -1, 0, ENOTSOCK
}

var warnedNoNet bool

func sysSocket(f *Frame, a syscallArgs) (uint64, bool) {
	domain, typ, proto := int(a[0]), int(a[1]), int(a[2])
	base := typ & sockTypeMask
	switch {
	case typ&^(sockTypeMask|sockNonblock|sockCloexec) != 0:
		return neg(EINVAL), true
	case domain == netlink.AF_NETLINK:
		return netlinkSocket(typ, proto), true
	case domain != afINET && domain != afINET6:
		return neg(EAFNOSUPPORT), true // AF_UNIX too: not yet
	case base != sockStream && base != sockDgram:
		return neg(ESOCKTNOSUPPORT), true
	case !netAvailable():
		reportOnce(&warnedNoNet, "net: no net port (unitrace run -net=none, or a machine without virtio-mmio): sockets are EAFNOSUPPORT")
		return neg(EAFNOSUPPORT), true
	}
	i, handle, errno := fds.SocketReserve(domain, base)
	if errno != 0 {
		return neg(errno), true
	}
	return sockStart(f, sockCall{call: callSocket, fd: -1, sock: int32(i), newSock: int32(i), newFlags: int32(typ & (sockNonblock | sockCloexec)),
		h: sockwire.Header{Op: sockwire.OpSocket, Handle: handle, A: [3]int64{int64(domain), int64(base), int64(proto)}}})
}

// sockSimple makes a call with one request and its result.
func sockSimple(f *Frame, n int, op sockwire.Op, args [3]int64, c sockCall) (uint64, bool) {
	if fds.IsNetlink(n) {
		return netlinkSimple(n, op, args, c), true
	}
	if isPair(n) {
		return pairSimple(n, op, args, c), true
	}
	i, handle, errno := sockFD(n)
	if errno != 0 {
		return neg(errno), true
	}
	c.fd, c.sock = int32(n), int32(i)
	c.h = sockwire.Header{Op: op, Handle: handle, A: args}
	return sockStart(f, c)
}

// sockAddrIn checks an address passed in: at most sockaddr_storage's size.
func sockAddrIn(addrLen uintptr) int {
	if int32(addrLen) < 0 || addrLen > sockwire.MaxAddr {
		return EINVAL
	}
	return 0
}

func sysBind(f *Frame, a syscallArgs) (uint64, bool) {
	if e := sockAddrIn(uintptr(a[2])); e != 0 || a[2] < 2 {
		return neg(EINVAL), true
	}
	return sockSimple(f, int(a[0]), sockwire.OpBind, [3]int64{}, sockCall{addr: uintptr(a[1]), addrLen: uintptr(a[2])})
}

func sysConnect(f *Frame, a syscallArgs) (uint64, bool) {
	if e := sockAddrIn(uintptr(a[2])); e != 0 || a[2] < 2 {
		return neg(EINVAL), true
	}
	if fds.Kind(int(a[0])) == fd.KindPair && !fds.IsNetlink(int(a[0])) {
		// A socket pair is AF_UNIX: as Linux, the address is copied in (EFAULT) and must be a
		// UNIX one with a path (EINVAL) before the socket's state (EISCONN) counts.
		b, ok := userBytes(uintptr(a[1]), uintptr(a[2]), false)
		if !ok {
			return neg(EFAULT), true
		}
		if a[2] <= 2 || uint16(b[0])|uint16(b[1])<<8 != afUNIX {
			return neg(EINVAL), true
		}
	}
	return sockSimple(f, int(a[0]), sockwire.OpConnect, [3]int64{},
		sockCall{call: callConnect, addr: uintptr(a[1]), addrLen: uintptr(a[2])})
}

func sysListen(f *Frame, a syscallArgs) (uint64, bool) {
	return sockSimple(f, int(a[0]), sockwire.OpListen, [3]int64{int64(int32(a[1]))}, sockCall{})
}

func sysAccept(f *Frame, a syscallArgs) (uint64, bool) {
	return sockAccept(f, int(a[0]), uintptr(a[1]), uintptr(a[2]), 0)
}

func sysAccept4(f *Frame, a syscallArgs) (uint64, bool) {
	return sockAccept(f, int(a[0]), uintptr(a[1]), uintptr(a[2]), int(a[3]))
}

func sockAccept(f *Frame, n int, addr, addrLen uintptr, flags int) (uint64, bool) {
	if fds.IsNetlink(n) {
		return neg(EOPNOTSUPP), true // sock_no_accept
	}
	if flags&^(sockNonblock|sockCloexec) != 0 || isPair(n) {
		return neg(EINVAL), true // a pair's end does not listen
	}
	i, handle, errno := sockFD(n)
	if errno != 0 {
		return neg(errno), true
	}
	if fds.SocketNothingToRead(i) && fds.Nonblocking(n) {
		tpNetLocal.Emit2(uint64(handle), neg(EAGAIN))
		return neg(EAGAIN), true // no connection waits (fd.SocketNothingToRead)
	}
	domain, typ := fds.SocketType(i)
	ni, nh, errno := fds.SocketReserve(domain, typ)
	if errno != 0 {
		return neg(errno), true
	}
	c := sockCall{call: callAccept, fd: int32(n), sock: int32(i), newSock: int32(ni), newFlags: int32(flags),
		h: sockwire.Header{Op: sockwire.OpAccept, Handle: handle, A: [3]int64{int64(nh)}}}
	if addr != 0 {
		c.out.addr, c.out.addrLen = addr, addrLen
	}
	return sockStart(f, c)
}

func sysGetsockname(f *Frame, a syscallArgs) (uint64, bool) {
	return sockSimple(f, int(a[0]), sockwire.OpSockName, [3]int64{}, sockCall{out: netCall{addr: uintptr(a[1]), addrLen: uintptr(a[2])}})
}

func sysGetpeername(f *Frame, a syscallArgs) (uint64, bool) {
	return sockSimple(f, int(a[0]), sockwire.OpPeerName, [3]int64{}, sockCall{out: netCall{addr: uintptr(a[1]), addrLen: uintptr(a[2])}})
}

// maxOptLen bounds a socket option's value (the launcher's allow-list has none larger).
const maxOptLen = 64

func sysSetsockopt(f *Frame, a syscallArgs) (uint64, bool) {
	if int32(a[4]) < 0 || a[4] > maxOptLen {
		return neg(EINVAL), true
	}
	return sockSimple(f, int(a[0]), sockwire.OpSetSockOpt, [3]int64{int64(int32(a[1])), int64(int32(a[2]))},
		sockCall{addr: uintptr(a[3]), addrLen: uintptr(a[4])})
}

func sysGetsockopt(f *Frame, a syscallArgs) (uint64, bool) {
	// The descriptor first, and a socket pair (AF_UNIX) has only SOL_SOCKET options: other
	// levels are EOPNOTSUPP before the length is read, as Linux.
	switch fds.Kind(int(a[0])) {
	case fd.KindNone:
		return neg(EBADF), true
	case fd.KindSocket:
	case fd.KindPair:
		if int32(a[1]) != solSocket && !fds.IsNetlink(int(a[0])) {
			return neg(EOPNOTSUPP), true
		}
	default:
		return neg(ENOTSOCK), true
	}
	val, lenp := uintptr(a[3]), uintptr(a[4])
	room, ok := readUser32(lenp)
	if !ok {
		return neg(EFAULT), true
	}
	if int32(room) < 0 {
		return neg(EINVAL), true
	}
	if val == 0 {
		return neg(EFAULT), true
	}
	return sockSimple(f, int(a[0]), sockwire.OpGetSockOpt, [3]int64{int64(int32(a[1])), int64(int32(a[2])), int64(room)},
		sockCall{out: netCall{buf: val, optLen: lenp}})
}

func sysShutdown(f *Frame, a syscallArgs) (uint64, bool) {
	switch fds.Kind(int(a[0])) { // the descriptor before how, as Linux
	case fd.KindNone:
		return neg(EBADF), true
	case fd.KindSocket, fd.KindPair:
	default:
		return neg(ENOTSOCK), true
	}
	if uint32(a[1]) > 2 {
		return neg(EINVAL), true
	}
	return sockSimple(f, int(a[0]), sockwire.OpShutdown, [3]int64{int64(a[1])}, sockCall{})
}

func sysSendto(f *Frame, a syscallArgs) (uint64, bool) {
	c := sockCall{src: uintptr(a[1]), srcLen: uintptr(a[2])}
	if a[4] != 0 {
		if e := sockAddrIn(uintptr(a[5])); e != 0 {
			return neg(e), true
		}
		c.addr, c.addrLen = uintptr(a[4]), uintptr(a[5])
	}
	return sockSend(f, int(a[0]), int64(int32(a[3])), c)
}

func sysRecvfrom(f *Frame, a syscallArgs) (uint64, bool) {
	c := sockCall{out: netCall{buf: uintptr(a[1]), count: uintptr(a[2])}}
	if a[4] != 0 {
		c.out.addr, c.out.addrLen = uintptr(a[4]), uintptr(a[5])
	}
	return sockRecv(f, int(a[0]), int64(int32(a[3])), c)
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

func sysSendmsg(f *Frame, a syscallArgs) (uint64, bool) {
	m, ok := userBytes(uintptr(a[1]), msghdrSize, false)
	if !ok {
		return neg(EFAULT), true
	}
	ctl, ctlLen := uintptr(le64(m[msgControl:])), uintptr(le64(m[msgControlLen:]))
	if ctlLen != 0 && !isPair(int(int32(a[0]))) {
		return neg(EOPNOTSUPP), true // ancillary data is not passed on to the launcher's sockets
	}
	c := sockCall{src: uintptr(le64(m[msgIov:])), srcLen: uintptr(le64(m[msgIovLen:])), srcVec: true}
	if name := uintptr(le64(m[msgName:])); name != 0 {
		nl := uintptr(uint32(le64(m[msgNameLen:])))
		if e := sockAddrIn(nl); e != 0 {
			return neg(e), true
		}
		c.addr, c.addrLen = name, nl
	}
	if isPair(int(int32(a[0]))) {
		return pairMove(f, int(int32(a[0])), true, int64(int32(a[2])), c, ctl, ctlLen, 0)
	}
	return sockSend(f, int(a[0]), int64(int32(a[2])), c)
}

func sysRecvmsg(f *Frame, a syscallArgs) (uint64, bool) {
	msg := uintptr(a[1])
	m, ok := userBytes(msg, msghdrSize, true)
	if !ok {
		return neg(EFAULT), true
	}
	c := sockCall{srcVec: true, out: netCall{buf: uintptr(le64(m[msgIov:])), count: uintptr(le64(m[msgIovLen:])), vec: true, msgFlags: msg + msgFlagsOff}}
	if name := uintptr(le64(m[msgName:])); name != 0 {
		c.out.addr, c.out.addrLen = name, msg+msgNameLen
	}
	if isPair(int(int32(a[0]))) {
		return pairMove(f, int(int32(a[0])), false, int64(int32(a[2])), c, uintptr(le64(m[msgControl:])), uintptr(le64(m[msgControlLen:])), msg)
	}
	for i := msgControlLen; i < msgControlLen+8; i++ {
		m[i] = 0 // no ancillary data comes back
	}
	return sockRecv(f, int(a[0]), int64(int32(a[2])), c)
}

// sockSend is write, writev, sendto and sendmsg: c holds the bytes (src, srcLen, srcVec) and
// the address, if any.
func sockSend(f *Frame, n int, flags int64, c sockCall) (uint64, bool) {
	if isPair(n) {
		return pairMove(f, n, true, flags, c, 0, 0, 0)
	}
	i, handle, errno := sockFD(n)
	if errno != 0 {
		return neg(errno), true
	}
	total, errno := userIOLen(c.src, c.srcLen, c.srcVec)
	if errno != 0 {
		return neg(errno), true
	}
	if _, typ := fds.SocketType(i); typ == sockDgram && total+uint64(c.addrLen) > sockwire.MaxData {
		return neg(EMSGSIZE), true // a datagram goes whole or not at all: it must fit one frame
	}
	c.call, c.fd, c.sock, c.flags, c.total = callSend, int32(n), int32(i), flags, total
	c.h = sockwire.Header{Op: sockwire.OpSend, Handle: handle, A: [3]int64{flags &^ msgNosignal}}
	return sockStart(f, c)
}

// sockRecv is read, readv, recvfrom and recvmsg: c.out says where the bytes go.
func sockRecv(f *Frame, n int, flags int64, c sockCall) (uint64, bool) {
	if isPair(n) {
		return pairMove(f, n, false, flags, c, 0, 0, 0)
	}
	i, handle, errno := sockFD(n)
	if errno != 0 {
		return neg(errno), true
	}
	total, errno := userIOLen(c.out.buf, c.out.count, c.out.vec)
	if errno != 0 {
		return neg(errno), true
	}
	if fds.SocketNothingToRead(i) && (fds.Nonblocking(n) || flags&msgDontwait != 0) && flags&msgPeek == 0 {
		tpNetLocal.Emit2(uint64(handle), neg(EAGAIN))
		return neg(EAGAIN), true // known without a round trip (fd.SocketNothingToRead)
	}
	c.call, c.fd, c.sock, c.flags, c.total = callRecv, int32(n), int32(i), flags, total
	want := min(total, uint64(sockwire.MaxData-sockwire.MaxAddr))
	c.h = sockwire.Header{Op: sockwire.OpRecv, Handle: handle, A: [3]int64{flags, int64(want)}}
	return sockStart(f, c)
}

// sockRead and sockWrite serve read, write, readv and writev on a socket.
func sockRead(f *Frame, n int, buf, count uintptr, vec bool) (uint64, bool) {
	return sockRecv(f, n, 0, sockCall{out: netCall{buf: buf, count: count, vec: vec}})
}

func sockWrite(f *Frame, n int, buf, count uintptr, vec bool) (uint64, bool) {
	return sockSend(f, n, 0, sockCall{src: buf, srcLen: count, srcVec: vec})
}

// afterSocketClose tells the host when descriptor n was socket i's last, and wakes the
// threads blocked on n (their retry sees EBADF).
func afterSocketClose(n, i int) {
	if !fds.SocketLive(i) {
		sockCloseHost(i)
	}
	futexWake(fdKey(n), maxThreads)
}
