package files

import (
	"encoding/binary"

	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/machine"

	"github.com/unitrace/unitrace/kernel/fd"
	"github.com/unitrace/unitrace/kernel/netlink"
	"github.com/unitrace/unitrace/kernel/sockwire"
)

// Netlink sockets: socket(AF_NETLINK, SOCK_RAW or SOCK_DGRAM, NETLINK_ROUTE) is served in the
// guest. The socket is package fd's datagram pair folded onto itself (fd.NetlinkSocket), so it
// receives as a datagram pair does; what it sends goes to package netlink, whose answers are
// delivered to it at once. It tells the program of the guest's one interface, lo: enough for
// net.Interfaces, net.InterfaceAddrs and their kin. Other netlink protocols are
// EPROTONOSUPPORT, as Linux answers one whose subsystem is not there.

const (
	eNOBUFS   = 105
	msgOOB    = 0x1
	soRcvbuf  = 8
	soSndbuf  = 7
	soPassCr  = 16
	soAccConn = 30
	// sockBufDefault is what SO_RCVBUF and SO_SNDBUF read: Linux's default (net.core.rmem_default
	// and wmem_default, 212992).
	sockBufDefault = 212992
	// netlinkMaxRequest bounds a datagram sent to the kernel; a longer one is EMSGSIZE (Linux's
	// bound is the send buffer, far larger; routing requests are tens of bytes).
	netlinkMaxRequest = 16 << 10
)

// The SOL_NETLINK options (include/uapi/linux/netlink.h) a socket keeps: each is a flag.
const (
	netlinkAddMembership  = 1
	netlinkDropMembership = 2
	netlinkPktinfo        = 3
	netlinkBroadcastError = 4
	netlinkNoENOBUFS      = 5
	netlinkListenAllNSID  = 8
	netlinkCapAck         = 10
	netlinkExtAck         = 11
	netlinkGetStrictChk   = 12
)

var (
	netlinkReq     [netlinkMaxRequest]byte
	netlinkReplies netlink.Replies
)

// netlinkSocket is socket(AF_NETLINK, typ, proto), typ's flags already checked.
func netlinkSocket(typ, proto int) uint64 {
	switch base := typ & abi.SOCK_TYPE_MASK; {
	case base != abi.SOCK_RAW && base != abi.SOCK_DGRAM:
		return abi.Neg(abi.ESOCKTNOSUPPORT)
	case proto != netlink.NETLINK_ROUTE:
		return abi.Neg(abi.EPROTONOSUPPORT)
	}
	n, errno := core.FDs.NetlinkSocket(typ&(abi.SOCK_NONBLOCK|abi.SOCK_CLOEXEC), typ&abi.SOCK_TYPE_MASK == abi.SOCK_RAW, uint8(proto))
	return abi.ErrnoOr(errno, uint64(n))
}

// sockaddrNL is struct sockaddr_nl of port and groups.
func sockaddrNL(port, groups uint32) [netlink.SockaddrNLSize]byte {
	var sa [netlink.SockaddrNLSize]byte
	binary.LittleEndian.PutUint16(sa[0:], netlink.AF_NETLINK)
	binary.LittleEndian.PutUint32(sa[4:], port)
	binary.LittleEndian.PutUint32(sa[8:], groups)
	return sa
}

// readSockaddrNL reads a struct sockaddr_nl the program passed: EINVAL if it is shorter or of
// another family, EFAULT if it cannot be read.
func readSockaddrNL(addr, addrLen uintptr) (port, groups uint32, errno int) {
	if addrLen < netlink.SockaddrNLSize {
		return 0, 0, abi.EINVAL
	}
	b, ok := core.UserBytes(addr, netlink.SockaddrNLSize, false)
	switch {
	case !ok:
		return 0, 0, abi.EFAULT
	case binary.LittleEndian.Uint16(b) != netlink.AF_NETLINK:
		return 0, 0, abi.EINVAL
	}
	return binary.LittleEndian.Uint32(b[4:]), binary.LittleEndian.Uint32(b[8:]), 0
}

// netlinkSimple answers the one-request socket calls for netlink socket n, as Linux's
// netlink_bind, netlink_connect, netlink_getname and netlink_[gs]etsockopt do; listen, accept
// and shutdown are EOPNOTSUPP (sock_no_*).
func netlinkSimple(n int, op sockwire.Op, args [3]int64, c SockCall) uint64 {
	switch op {
	case sockwire.OpBind:
		port, groups, errno := readSockaddrNL(c.addr, c.addrLen)
		if errno != 0 {
			return abi.Neg(errno)
		}
		return abi.ErrnoOr(core.FDs.NetlinkBind(n, port, groups, core.ProcessID), 0)
	case sockwire.OpConnect:
		if b, ok := core.UserBytes(c.addr, 2, false); ok && binary.LittleEndian.Uint16(b) == 0 {
			return 0 // AF_UNSPEC: back to sending to the kernel, which it never left
		}
		port, _, errno := readSockaddrNL(c.addr, c.addrLen)
		switch {
		case errno != 0:
			return abi.Neg(errno)
		case port != 0:
			return abi.Neg(abi.ECONNREFUSED) // no socket of the guest's talks to another
		}
		core.FDs.NetlinkAutobind(n, core.ProcessID)
		return 0
	case sockwire.OpSockName, sockwire.OpPeerName:
		var sa [netlink.SockaddrNLSize]byte
		if op == sockwire.OpSockName {
			_, _, port, groups, _ := core.FDs.NetlinkInfo(n)
			sa = sockaddrNL(port, groups)
		} else {
			sa = sockaddrNL(0, 0) // the peer is the kernel
		}
		if !core.PutSockaddr(c.Out.Addr, c.Out.AddrLen, sa[:]) {
			return abi.Neg(abi.EFAULT)
		}
		return 0
	case sockwire.OpGetSockOpt:
		return netlinkGetsockopt(n, args[0], args[1], c.Out.Buf, c.Out.OptLen)
	case sockwire.OpSetSockOpt:
		return netlinkSetsockopt(n, args[0], args[1], c.addr, c.addrLen)
	}
	return abi.Neg(abi.EOPNOTSUPP)
}

// netlinkSetsockopt: SOL_SOCKET options are taken (nothing here depends on them); of
// SOL_NETLINK's, joining and leaving groups and the flags Linux has, each an int (EINVAL if
// shorter); anything else ENOPROTOOPT.
func netlinkSetsockopt(n int, level, name int64, val, valLen uintptr) uint64 {
	switch {
	case level == abi.SOL_SOCKET:
		return 0
	case level != netlink.SOL_NETLINK:
		return abi.Neg(abi.ENOPROTOOPT)
	}
	switch name {
	case netlinkAddMembership, netlinkDropMembership, netlinkPktinfo, netlinkBroadcastError,
		netlinkNoENOBUFS, netlinkListenAllNSID, netlinkCapAck, netlinkExtAck, netlinkGetStrictChk:
	default:
		return abi.Neg(abi.ENOPROTOOPT)
	}
	if valLen < 4 {
		return abi.Neg(abi.EINVAL)
	}
	v, ok := core.ReadUser32(val)
	if !ok {
		return abi.Neg(abi.EFAULT)
	}
	switch name {
	case netlinkAddMembership, netlinkDropMembership:
		if v == 0 || v > 32 { // rtnetlink's groups (RTNLGRP_MAX is below 32)
			return abi.Neg(abi.EINVAL)
		}
		_, _, port, groups, _ := core.FDs.NetlinkInfo(n)
		if name == netlinkAddMembership {
			groups |= 1 << (v - 1)
		} else {
			groups &^= 1 << (v - 1)
		}
		core.FDs.NetlinkAutobind(n, core.ProcessID)
		_, _, port, _, _ = core.FDs.NetlinkInfo(n)
		return abi.ErrnoOr(core.FDs.NetlinkBind(n, port, groups, core.ProcessID), 0)
	}
	core.FDs.NetlinkSetOpt(n, int(name), v != 0)
	return 0
}

// netlinkGetsockopt: SOL_SOCKET's SO_TYPE (SOCK_RAW or SOCK_DGRAM), SO_DOMAIN (AF_NETLINK),
// SO_PROTOCOL, SO_ERROR, SO_PASSCRED, SO_ACCEPTCONN, SO_RCVBUF and SO_SNDBUF (Linux's defaults);
// SOL_NETLINK's flags; anything else ENOPROTOOPT. A SOL_NETLINK length below an int is EINVAL.
func netlinkGetsockopt(n int, level, name int64, val, lenp uintptr) uint64 {
	raw, proto, _, _, _ := core.FDs.NetlinkInfo(n)
	var v uint32
	switch level {
	case abi.SOL_SOCKET:
		switch name {
		case abi.SO_TYPE:
			v = abi.SOCK_DGRAM
			if raw {
				v = abi.SOCK_RAW
			}
		case abi.SO_DOMAIN:
			v = netlink.AF_NETLINK
		case soProtocol:
			v = uint32(proto)
		case abi.SO_ERROR, soPassCr, soAccConn:
		case soRcvbuf, soSndbuf:
			v = sockBufDefault
		default:
			return abi.Neg(abi.ENOPROTOOPT)
		}
	case netlink.SOL_NETLINK:
		switch name {
		case netlinkPktinfo, netlinkBroadcastError, netlinkNoENOBUFS, netlinkListenAllNSID,
			netlinkCapAck, netlinkExtAck, netlinkGetStrictChk:
		default:
			return abi.Neg(abi.ENOPROTOOPT)
		}
		room, ok := core.ReadUser32(lenp)
		switch {
		case !ok:
			return abi.Neg(abi.EFAULT)
		case room < 4:
			return abi.Neg(abi.EINVAL)
		}
		if core.FDs.NetlinkOpt(n, int(name)) {
			v = 1
		}
	default:
		return abi.Neg(abi.ENOPROTOOPT)
	}
	return putOptInt(v, val, lenp)
}

// netlinkMove is send, sendto, sendmsg, recv, recvfrom and recvmsg on netlink socket n. A send
// goes to the kernel (netlinkSend); a receive is a datagram pair's, from the kernel's address,
// and ENOBUFS once after replies were dropped. MSG_OOB is EOPNOTSUPP, as is MSG_PEEK, which
// datagram pairs do not serve yet; control data sent is ignored and none comes back.
func netlinkMove(f *machine.Frame, n int, write bool, flags int64, c SockCall, msg uintptr) (uint64, bool) {
	if flags&(msgOOB|abi.MSG_PEEK) != 0 {
		return abi.Neg(abi.EOPNOTSUPP), true
	}
	if write {
		if c.addrLen > 0 {
			port, groups, errno := readSockaddrNL(c.addr, c.addrLen)
			switch {
			case errno != 0:
				return abi.Neg(errno), true
			case port != 0:
				return abi.Neg(abi.ECONNREFUSED), true // no socket of the guest's talks to another
			case groups != 0:
				// To a multicast group: no socket of the guest's hears one.
				total, errno := core.UserIOLen(c.src, c.srcLen, c.srcVec)
				return abi.ErrnoOr(errno, total), true
			}
		}
		return netlinkSend(n, c.srcVec, c.src, c.srcLen)
	}
	if core.FDs.NetlinkTakeOverrun(n) {
		return abi.Neg(eNOBUFS), true
	}
	if c.Out.Addr != 0 {
		sa := sockaddrNL(0, 0)
		if !core.PutSockaddr(c.Out.Addr, c.Out.AddrLen, sa[:]) {
			return abi.Neg(abi.EFAULT), true
		}
	}
	return pairRecv(f, n, c.Out.Vec, c.Out.Buf, c.Out.Count, flags&^msgCmsgCloexec, 0, 0, msg)
}

// netlinkSend hands the datagram at buf (an iovec array if vec) to the kernel's netlink and
// delivers the answers to n, binding n first if it has no port (netlink_autobind).
func netlinkSend(n int, vec bool, buf, count uintptr) (uint64, bool) {
	total, errno := core.UserIOLen(buf, count, vec)
	switch {
	case errno != 0:
		return abi.Neg(errno), true
	case total > netlinkMaxRequest:
		return abi.Neg(abi.EMSGSIZE), true
	}
	got := 0
	if !vec {
		b, ok := core.UserBytes(buf, uintptr(total), false)
		if !ok {
			return abi.Neg(abi.EFAULT), true
		}
		got = copy(netlinkReq[:], b)
	} else {
		segs, _ := core.UserBytes(buf, count*core.IovecSize, false) // core.UserIOLen read them
		for i := 0; i < int(count); i++ {
			base, size := uintptr(core.LE64(segs[i*core.IovecSize:])), uintptr(core.LE64(segs[i*core.IovecSize+8:]))
			b, ok := core.UserBytes(base, size, false)
			if !ok {
				return abi.Neg(abi.EFAULT), true
			}
			got += copy(netlinkReq[got:], b)
		}
	}
	core.FDs.NetlinkAutobind(n, core.ProcessID)
	_, _, port, _, _ := core.FDs.NetlinkInfo(n)
	netlink.Serve(netlinkReq[:got], port, &netlinkReplies)
	for i := 0; i < netlinkReplies.Len(); i++ {
		core.FDs.NetlinkDeliver(n, netlinkReplies.Datagram(i))
	}
	if netlinkReplies.Lost {
		core.FDs.NetlinkMarkOverrun(n)
	}
	if p, ok := core.FDs.PipeFor(n, false); ok {
		wakePipe(p)
	}
	return total, true
}

// ifreqScratch holds a struct ifreq copied in for an interface ioctl, and ethtoolScratch the
// struct an SIOCETHTOOL command points at.
var (
	ifreqScratch   [netlink.IfreqSize]byte
	ethtoolScratch [netlink.EthtoolTsInfoLen]byte
)

// SocketIoctl answers the interface ioctls on a socket, any socket as Linux's sock_ioctl and
// dev_ioctl do, but the IPv4 address requests, which only an AF_INET socket answers
// (devinet_ioctl; ENOTTY elsewhere). ok is false for a request that is none of them.
func SocketIoctl(n int, kind fd.Kind, req uint32, arg uintptr) (uint64, bool) {
	switch {
	case req == netlink.SIOCGIFCONF:
		return ifconf(arg), true
	case req != netlink.SIOCETHTOOL && !netlink.IsIfreq(req):
		return 0, false
	case netlink.IsAddrRequest(req):
		i, ok := 0, kind == fd.KindSocket
		if ok {
			i, _, ok = core.FDs.Socket(n)
		}
		if domain, _ := core.FDs.SocketType(i); !ok || domain != abi.AF_INET {
			return abi.Neg(abi.ENOTTY), true
		}
	}
	b, ok := core.UserBytes(arg, netlink.IfreqSize, false)
	if !ok {
		return abi.Neg(abi.EFAULT), true
	}
	copy(ifreqScratch[:], b)
	if req == netlink.SIOCETHTOOL {
		return ethtool(arg), true
	}
	if errno := netlink.Ifreq(req, ifreqScratch[:]); errno != 0 {
		return abi.Neg(errno), true
	}
	out, ok := core.UserBytes(arg, netlink.IfreqSize, true)
	if !ok {
		return abi.Neg(abi.EFAULT), true
	}
	copy(out, ifreqScratch[:])
	return 0, true
}

// ethtool is SIOCETHTOOL with ifreqScratch copied in from the program's ifreq: the command is
// the first u32 at ifr_data, and its answer goes back there.
func ethtool(arg uintptr) uint64 {
	data := uintptr(binary.LittleEndian.Uint64(ifreqScratch[netlink.IFNAMSIZ:]))
	cmd, ok := core.ReadUser32(data)
	if !ok {
		return abi.Neg(abi.EFAULT)
	}
	k, errno := netlink.Ethtool(ifreqScratch[:], cmd, ethtoolScratch[:])
	if errno != 0 {
		return abi.Neg(errno)
	}
	out, ok := core.UserBytes(data, uintptr(k), true)
	if !ok {
		return abi.Neg(abi.EFAULT)
	}
	copy(out, ethtoolScratch[:k])
	return 0
}

// ifconf is SIOCGIFCONF on struct ifconf at arg (ifc_len, an int, then the buffer's address):
// with no buffer, the length all entries need; else as many entries as fit, and their length.
func ifconf(arg uintptr) uint64 {
	b, ok := core.UserBytes(arg, 16, true)
	if !ok {
		return abi.Neg(abi.EFAULT)
	}
	room := int32(binary.LittleEndian.Uint32(b))
	buf := uintptr(binary.LittleEndian.Uint64(b[8:]))
	if buf == 0 {
		binary.LittleEndian.PutUint32(b, netlink.IfconfEntries*netlink.IfreqSize)
		return 0
	}
	written := 0
	for i := 0; i < netlink.IfconfEntries && int32(written+netlink.IfreqSize) <= room; i++ {
		netlink.IfconfEntry(i, ifreqScratch[:])
		out, ok := core.UserBytes(buf+uintptr(written), netlink.IfreqSize, true)
		if !ok {
			return abi.Neg(abi.EFAULT)
		}
		copy(out, ifreqScratch[:])
		written += netlink.IfreqSize
	}
	binary.LittleEndian.PutUint32(b, uint32(written))
	return 0
}
