package files

import (
	"encoding/binary"

	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/machine"

	"github.com/unitrace/unitrace/kernel/fd"
	"github.com/unitrace/unitrace/kernel/sockwire"
)

// Socket pairs: socketpair(AF_UNIX, SOCK_STREAM) is served in the guest (package fd's pairs:
// two pipes, one each way), and its ends move bytes as pipes do (sys_pipe.go). The socket
// calls that mean something for a connected pair answer here: shutdown, getsockname and
// getpeername (an unnamed AF_UNIX address), getsockopt's SO_TYPE, SO_DOMAIN, SO_PROTOCOL,
// SO_ERROR and SO_ACCEPTCONN, send and receive without an address; the rest answer as Linux
// does for a connected unix socket.

const (
	soProtocol   = 38
	soAcceptConn = 30
	shutRDWR     = 2
)

func Socketpair(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	domain, typ, proto, sv := int(a[0]), int(a[1]), int(a[2]), uintptr(a[3])
	// Linux's order: the flags; the family's and the type's range (__sock_create); the
	// family's own checks of type and protocol, as creating each socket makes them; then the
	// family's socketpair, which Internet sockets have not.
	const nProto, sockMax = 46, 11
	base := typ & abi.SOCK_TYPE_MASK
	switch {
	case typ&^(abi.SOCK_TYPE_MASK|abi.SOCK_NONBLOCK|abi.SOCK_CLOEXEC) != 0:
		return abi.Neg(abi.EINVAL), true
	case domain < 0 || domain >= nProto:
		return abi.Neg(abi.EAFNOSUPPORT), true
	case base >= sockMax:
		return abi.Neg(abi.EINVAL), true
	case domain == abi.AF_INET || domain == abi.AF_INET6:
		if errno := inetCreateCheck(domain, base, proto); errno != 0 {
			return abi.Neg(errno), true
		}
		return abi.Neg(abi.EOPNOTSUPP), true // no pairs of Internet sockets
	case domain != abi.AF_UNIX:
		return abi.Neg(abi.EAFNOSUPPORT), true
	case proto != 0 && proto != abi.AF_UNIX:
		return abi.Neg(abi.EPROTONOSUPPORT), true
	case base == abi.SOCK_RAW:
		base = abi.SOCK_DGRAM // unix_create makes SOCK_RAW a datagram socket
	case base == abi.SOCK_SEQPACKET:
		return abi.Neg(abi.EOPNOTSUPP), true // seqpacket pairs: not yet
	case base != abi.SOCK_STREAM && base != abi.SOCK_DGRAM:
		return abi.Neg(abi.ESOCKTNOSUPPORT), true
	}
	b, ok := core.UserBytes(sv, 8, true) // checked first, so a bad pointer leaves no pair behind
	if !ok {
		return abi.Neg(abi.EFAULT), true
	}
	// SOCK_NONBLOCK and SOCK_CLOEXEC are O_NONBLOCK's and O_CLOEXEC's values.
	s0, s1, errno := core.FDs.SocketpairOf(typ&(abi.SOCK_NONBLOCK|abi.SOCK_CLOEXEC), base == abi.SOCK_DGRAM)
	if errno != 0 {
		return abi.Neg(errno), true
	}
	binary.LittleEndian.PutUint32(b[0:4], uint32(s0))
	binary.LittleEndian.PutUint32(b[4:8], uint32(s1))
	return 0, true
}

// inetCreateCheck is inet_create's and inet6_create's check of a socket's type and protocol
// against the protocols registered for the type (inetsw): a type none is registered for is
// ESOCKTNOSUPPORT, a protocol the type does not have EPROTONOSUPPORT; raw sockets take any
// protocol (root may make them).
func inetCreateCheck(domain, base, proto int) int {
	const ipprotoICMP, ipprotoTCP, ipprotoUDP, ipprotoICMPv6, ipprotoUDPLite, ipprotoMPTCP = 1, 6, 17, 58, 136, 262
	ping := ipprotoICMP
	if domain == abi.AF_INET6 {
		ping = ipprotoICMPv6
	}
	switch base {
	case abi.SOCK_STREAM:
		if proto != 0 && proto != ipprotoTCP && proto != ipprotoMPTCP {
			return abi.EPROTONOSUPPORT
		}
	case abi.SOCK_DGRAM:
		if proto != 0 && proto != ipprotoUDP && proto != ipprotoUDPLite && proto != ping {
			return abi.EPROTONOSUPPORT
		}
	case abi.SOCK_RAW:
	default:
		return abi.ESOCKTNOSUPPORT
	}
	return 0
}

// isPair reports whether descriptor n is a socket pair's end.
func isPair(n int) bool { return core.FDs.Kind(n) == fd.KindPair }

// pairSimple answers the one-request socket calls for a pair's end n.
func pairSimple(n int, op sockwire.Op, args [3]int64, c SockCall) uint64 {
	switch op {
	case sockwire.OpShutdown:
		if errno := core.FDs.PairShutdown(n, int(args[0])); errno != 0 {
			return abi.Neg(errno)
		}
		if rp, ok := core.FDs.PipeFor(n, false); ok {
			wakePipe(rp)
		}
		if wp, ok := core.FDs.PipeFor(n, true); ok {
			wakePipe(wp)
		}
		return 0
	case sockwire.OpSockName, sockwire.OpPeerName:
		unnamed := [2]byte{abi.AF_UNIX, 0} // sa_family_t AF_UNIX, no path
		if !core.PutSockaddr(c.Out.Addr, c.Out.AddrLen, unnamed[:]) {
			return abi.Neg(abi.EFAULT)
		}
		return 0
	case sockwire.OpGetSockOpt:
		return pairGetsockopt(n, args[0], args[1], c.Out.Buf, c.Out.OptLen)
	case sockwire.OpSetSockOpt:
		if args[0] != abi.SOL_SOCKET {
			return abi.Neg(abi.EOPNOTSUPP)
		}
		if args[1] == soPasscred {
			v, ok := core.ReadUser32(c.addr)
			if c.addrLen < 4 {
				return abi.Neg(abi.EINVAL)
			}
			if !ok {
				return abi.Neg(abi.EFAULT)
			}
			core.FDs.SetPairPasscred(n, v != 0)
		}
		return 0 // other SOL_SOCKET options: taken, and nothing here depends on them
	case sockwire.OpConnect:
		return abi.Neg(abi.EISCONN)
	}
	return abi.Neg(abi.EINVAL) // bind, listen: a pair is connected already
}

func pairGetsockopt(n int, level, name int64, val, lenp uintptr) uint64 {
	if level != abi.SOL_SOCKET {
		return abi.Neg(abi.EOPNOTSUPP)
	}
	var v uint32
	switch name {
	case abi.SO_TYPE:
		v = abi.SOCK_STREAM
		if core.FDs.PairDgram(n) {
			v = abi.SOCK_DGRAM
		}
	case soPasscred:
		if core.FDs.PairPasscred(n) {
			v = 1
		}
	case abi.SO_DOMAIN:
		v = abi.AF_UNIX
	case soProtocol, abi.SO_ERROR, soAcceptConn:
		v = 0
	default:
		return abi.Neg(abi.ENOPROTOOPT)
	}
	return putOptInt(v, val, lenp)
}

// pairMove is send, sendto, sendmsg, recv, recvfrom and recvmsg on a pair's end: bytes as a
// pipe moves them, or messages (sys_pairmsg.go) with control data (ctl, ctlLen: sendmsg's and
// recvmsg's control buffer; msg: recvmsg's msghdr) or on a datagram pair. An address to send to
// is EISCONN (the pair is connected); of the flags MSG_NOSIGNAL, MSG_DONTWAIT, and for a receive
// MSG_CMSG_CLOEXEC and MSG_TRUNC; others EOPNOTSUPP.
func pairMove(f *machine.Frame, n int, write bool, flags int64, c SockCall, ctl, ctlLen, msg uintptr) (uint64, bool) {
	if core.FDs.IsNetlink(n) {
		return netlinkMove(f, n, write, flags, c, msg)
	}
	allowed := int64(abi.MSG_NOSIGNAL | abi.MSG_DONTWAIT)
	if !write {
		allowed |= msgCmsgCloexec | abi.MSG_TRUNC
	}
	switch {
	case write && c.addrLen > 0:
		return abi.Neg(abi.EISCONN), true
	case flags&^allowed != 0:
		return abi.Neg(abi.EOPNOTSUPP), true
	}
	if write && (ctlLen > 0 || core.FDs.PairDgram(n)) {
		return pairSend(f, n, c.srcVec, c.src, c.srcLen, flags, ctl, ctlLen)
	}
	if !write && (msg != 0 || flags&(abi.MSG_DONTWAIT|abi.MSG_TRUNC) != 0 || pairMessages(n, false)) {
		if c.Out.Addr != 0 && !core.WriteUser32(c.Out.AddrLen, 0) { // no sender address
			return abi.Neg(abi.EFAULT), true
		}
		return pairRecv(f, n, c.Out.Vec, c.Out.Buf, c.Out.Count, flags, ctl, ctlLen, msg)
	}
	buf, count, vec := c.src, c.srcLen, c.srcVec
	if !write {
		buf, count, vec = c.Out.Buf, c.Out.Count, c.Out.Vec
		if c.Out.Addr != 0 && !core.WriteUser32(c.Out.AddrLen, 0) { // no sender address
			return abi.Neg(abi.EFAULT), true
		}
		if c.Out.MsgFlags != 0 && !core.WriteUser32(c.Out.MsgFlags, 0) {
			return abi.Neg(abi.EFAULT), true
		}
	}
	core.Cur().NoSigpipe = write && flags&abi.MSG_NOSIGNAL != 0
	return PipeCall(f, n, write, vec, buf, count)
}
