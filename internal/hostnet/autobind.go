package hostnet

import (
	"encoding/binary"
	"net/netip"
	"syscall"
)

// Linux gives a socket that has no address of its own one when it first needs it, and that
// address is the unspecified one, every interface of the machine: listen binds it with an
// ephemeral port, and so does a datagram socket's first send or connect (a send even when it
// then fails: without an address, to a family the socket does not speak). Left to the host
// kernel, that would be a guest listener on every interface of the host. So the launcher binds
// such a socket itself before the call:
//
//   - listen: the loopback address of the socket's family (see loopbackFor), port 0;
//   - a datagram's first sendto, sendmsg or connect, to a loopback address (or the unspecified
//     one, which Linux sends to loopback): the loopback address, port 0;
//   - a datagram's first sendto, sendmsg or connect elsewhere: the one address the host's
//     routing would send from to that peer (what a connected socket gets anyway), port 0, with
//     a filter in the host kernel that takes datagrams only from the addresses and ports the
//     socket has sent to or connected to: replies, as behind a NAT, not a listener for the
//     network;
//   - a datagram socket's send without an address before any of those: EDESTADDRREQ, Linux's
//     answer, without the host's bind that comes with it.
//
// TCP's connect binds the route's source address and needs nothing: a connected stream
// accepts nothing.

// maxPeers bounds a filtered socket's peers; past it, the oldest goes (its replies are then
// dropped, as a NAT's expired mapping drops them).
const maxPeers = 64

// isBound says whether the host socket has a port: getsockname's is 0 until it has.
func (s *server) isBound(hs *hostSocket) (bool, syscall.Errno) {
	if hs.bound {
		return true, 0
	}
	sa, err := syscall.Getsockname(hs.fd)
	if err != nil {
		return false, errnoOf(err)
	}
	// A datagram socket stays bound (a disconnect, AF_UNSPEC, is refused by decodeAddr), so
	// the answer is kept for its sends; a stream's port goes when a connect fails.
	b := addrPort(sa) != 0
	hs.bound = b && hs.typ == syscall.SOCK_DGRAM
	return b, 0
}

// bindBeforeListen binds a stream socket with no address on loopback, and refuses to listen
// (EINVAL, as for a socket that cannot listen) on anything but loopback unless -listen put it
// there.
func (s *server) bindBeforeListen(hs *hostSocket) syscall.Errno {
	bound, errno := s.isBound(hs)
	if errno != 0 {
		return errno
	}
	if !bound {
		any := netip.IPv4Unspecified()
		if hs.domain == afINET6 {
			any = netip.IPv6Unspecified()
		}
		if err := syscall.Bind(hs.fd, sockaddr(hs.domain, netip.AddrPortFrom(loopbackFor(hs, any), 0))); err != nil {
			return errnoOf(err)
		}
	}
	if hs.mapped {
		return 0
	}
	sa, err := syscall.Getsockname(hs.fd)
	if err != nil {
		return errnoOf(err)
	}
	if !addrOf(sa).Addr().Unmap().IsLoopback() {
		return syscall.EINVAL
	}
	return 0
}

// bindForPeer runs before a datagram socket's sendto or connect to peer (connect says which):
// an unbound socket is bound first, a filtered one learns the peer.
func (s *server) bindForPeer(hs *hostSocket, to syscall.Sockaddr, connect bool) syscall.Errno {
	if hs.typ != syscall.SOCK_DGRAM {
		return 0
	}
	peer := addrOf(to)
	a := peer.Addr().Unmap()
	if hs.filtered {
		return s.addPeer(hs, peer)
	}
	bound, errno := s.isBound(hs)
	if errno != 0 || bound {
		return errno
	}
	// Linux's answers for a peer the socket's family cannot reach, which it gives after its
	// bind: here without it.
	_, in4 := to.(*syscall.SockaddrInet4)
	switch {
	case hs.domain == afINET && !in4:
		return syscall.EAFNOSUPPORT
	case hs.domain == afINET6 && a.Is4() && v6only(hs.fd):
		if connect && in4 {
			return syscall.EAFNOSUPPORT
		}
		return syscall.ENETUNREACH
	}
	if a.IsLoopback() || a.IsUnspecified() {
		if err := syscall.Bind(hs.fd, sockaddr(hs.domain, netip.AddrPortFrom(loopbackFor(hs, a), 0))); err != nil {
			return errnoOf(err)
		}
		hs.bound = true
		return 0
	}
	src, errno := routeSource(hs.domain, to)
	if errno != 0 {
		return errno
	}
	// The filter first, so that nothing from anyone else is queued between the bind and it. If
	// either fails, the socket is still unbound and the next call starts again.
	if errno := s.addPeer(hs, peer); errno != 0 {
		hs.peers = nil
		return errno
	}
	if err := syscall.Bind(hs.fd, src); err != nil {
		hs.peers = nil
		return errnoOf(err)
	}
	hs.bound, hs.filtered = true, true
	return 0
}

// sendBeforeBind is EDESTADDRREQ for a datagram socket's send without an address before it has
// one (so, not connected): Linux answers that after binding the socket on every interface.
func (s *server) sendBeforeBind(hs *hostSocket) syscall.Errno {
	if hs.typ != syscall.SOCK_DGRAM {
		return 0
	}
	bound, errno := s.isBound(hs)
	if errno != 0 {
		return errno
	}
	if !bound {
		return syscall.EDESTADDRREQ
	}
	return 0
}

// loopbackFor is the loopback address an unbound socket binds, for a peer at a (the
// unspecified address for a listener): 127.0.0.1 for IPv4; for IPv6, ::1, except that a
// dual-stack socket (IPV6_V6ONLY off, Linux's default) listening, or sending to an IPv4
// address, binds ::ffff:127.0.0.1. One socket cannot bind both loopback addresses; the IPv4
// one is what a dual-stack listener on [::] binds (loopback6) and what clients of "localhost"
// dial first, and either way only the host itself can connect.
func loopbackFor(hs *hostSocket, a netip.Addr) netip.Addr {
	lo4 := netip.AddrFrom4([4]byte{127, 0, 0, 1})
	if hs.domain == afINET {
		return lo4
	}
	if (a.IsUnspecified() || a.Is4()) && !v6only(hs.fd) {
		return netip.AddrFrom16(lo4.As16())
	}
	return netip.IPv6Loopback()
}

func v6only(fd int) bool {
	v, err := syscall.GetsockoptInt(fd, syscall.IPPROTO_IPV6, syscall.IPV6_V6ONLY)
	return err == nil && v != 0
}

// routeSource is the address, port 0, the host sends from to the peer at to: a scratch
// datagram socket of the family connects there (which sends nothing) and says its own address
// (with its scope, for a link-local one).
func routeSource(domain int, to syscall.Sockaddr) (syscall.Sockaddr, syscall.Errno) {
	if to4, ok := to.(*syscall.SockaddrInet4); ok && domain == afINET6 {
		to = sockaddr(domain, addrOf(to4)) // a dual-stack socket's IPv4 peer, mapped
	}
	fd, err := syscall.Socket(domain, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, errnoOf(err)
	}
	defer syscall.Close(fd)
	if err := syscall.Connect(fd, to); err != nil {
		return nil, errnoOf(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		return nil, errnoOf(err)
	}
	setAddrPort(sa, 0)
	return sa, 0
}

// addPeer lets datagrams from peer in, and puts the socket's filter in place again when the
// peer is new.
func (s *server) addPeer(hs *hostSocket, peer netip.AddrPort) syscall.Errno {
	peer = netip.AddrPortFrom(peer.Addr().Unmap(), peer.Port())
	for _, p := range hs.peers {
		if p == peer {
			return 0
		}
	}
	if len(hs.peers) == maxPeers {
		hs.peers = append(hs.peers[:0], hs.peers[1:]...)
	}
	hs.peers = append(hs.peers, peer)
	if err := syscall.AttachLsf(hs.fd, peerFilter(hs.domain, hs.peers)); err != nil {
		return errnoOf(err)
	}
	return 0
}

// peerFilter is a classic BPF socket filter that keeps the datagrams whose source is one of
// peers and drops the rest. The filter sees the UDP header at offset 0 and the IP header through
// SKF_NET_OFF; an IPv6 socket's peers may be IPv4 ones (dual stack), so every peer's test
// starts with the IP header's version. Each peer is a block of its own that accepts, or jumps
// over the rest of itself to the next; the last instruction drops.
func peerFilter(domain int, peers []netip.AddrPort) []syscall.SockFilter {
	const (
		netOff = -0x100000 // SKF_NET_OFF
		ldB    = syscall.BPF_LD | syscall.BPF_B | syscall.BPF_ABS
		ldH    = syscall.BPF_LD | syscall.BPF_H | syscall.BPF_ABS
		ldW    = syscall.BPF_LD | syscall.BPF_W | syscall.BPF_ABS
		rsh    = syscall.BPF_ALU | syscall.BPF_RSH | syscall.BPF_K
		jeq    = syscall.BPF_JMP | syscall.BPF_JEQ | syscall.BPF_K
		ret    = syscall.BPF_RET | syscall.BPF_K
	)
	net := func(off int32) uint32 { return uint32(netOff + off) }
	var prog []syscall.SockFilter
	for _, p := range peers {
		a := p.Addr()
		if domain == afINET && !a.Is4() {
			continue
		}
		var words []uint32
		version, srcOff := uint32(4), int32(12)
		if a.Is4() {
			b := a.As4()
			words = []uint32{binary.BigEndian.Uint32(b[:])}
		} else {
			b := a.As16()
			for i := 0; i < 16; i += 4 {
				words = append(words, binary.BigEndian.Uint32(b[i:]))
			}
			version, srcOff = 6, 8
		}
		// The block: version (3), the address (2 a word), the port (2), accept (1).
		n := 3 + 2*len(words) + 2 + 1
		block := make([]syscall.SockFilter, 0, n)
		skip := func() uint8 { return uint8(n - len(block)) } // from the jump just appended to past the block
		block = append(block, syscall.SockFilter{Code: ldB, K: net(0)}, syscall.SockFilter{Code: rsh, K: 4})
		block = append(block, syscall.SockFilter{Code: jeq, K: version})
		block[len(block)-1].Jf = skip()
		for i, w := range words {
			block = append(block, syscall.SockFilter{Code: ldW, K: net(srcOff + 4*int32(i))})
			block = append(block, syscall.SockFilter{Code: jeq, K: w})
			block[len(block)-1].Jf = skip()
		}
		block = append(block, syscall.SockFilter{Code: ldH, K: 0})
		block = append(block, syscall.SockFilter{Code: jeq, K: uint32(p.Port())})
		block[len(block)-1].Jf = skip()
		block = append(block, syscall.SockFilter{Code: ret, K: 0xffffffff})
		prog = append(prog, block...)
	}
	return append(prog, syscall.SockFilter{Code: ret, K: 0})
}

// addrOf is a socket address as an address and port (the zero one for another family).
func addrOf(sa syscall.Sockaddr) netip.AddrPort {
	switch sa := sa.(type) {
	case *syscall.SockaddrInet4:
		return netip.AddrPortFrom(netip.AddrFrom4(sa.Addr), uint16(sa.Port))
	case *syscall.SockaddrInet6:
		return netip.AddrPortFrom(netip.AddrFrom16(sa.Addr), uint16(sa.Port))
	}
	return netip.AddrPort{}
}

// sockaddr is ap as a socket address of the family (an IPv4 address mapped for IPv6).
func sockaddr(domain int, ap netip.AddrPort) syscall.Sockaddr {
	if domain == afINET {
		return &syscall.SockaddrInet4{Addr: ap.Addr().Unmap().As4(), Port: int(ap.Port())}
	}
	return &syscall.SockaddrInet6{Addr: ap.Addr().As16(), Port: int(ap.Port())}
}
