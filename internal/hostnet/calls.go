package hostnet

import (
	"fmt"
	"net/netip"
	"syscall"
	"unsafe"

	"github.com/unitrace/unitrace/kernel/sockwire"
)

const (
	epollET     = 1 << 31 // EPOLLET as the event mask's bit (syscall's constant is negative)
	msgDontwait = syscall.MSG_DONTWAIT
	msgNosignal = syscall.MSG_NOSIGNAL
	// sendFlags and recvFlags are the flags a guest's send and recv may pass on; the launcher
	// adds MSG_DONTWAIT (the guest blocks, not the launcher) and MSG_NOSIGNAL (the guest's
	// kernel raises SIGPIPE itself).
	sendFlags = syscall.MSG_OOB | syscall.MSG_DONTROUTE | msgDontwait | syscall.MSG_EOR | msgNosignal | syscall.MSG_MORE
	recvFlags = syscall.MSG_OOB | syscall.MSG_PEEK | msgDontwait | syscall.MSG_TRUNC | syscall.MSG_WAITALL
)

// call makes one request's call: its reply's A[0] and A[1], and data.
func (s *server) call(h sockwire.Header, data []byte) (int64, int64, []byte) {
	if h.Op == sockwire.OpSocket {
		return s.socket(h), 0, nil
	}
	hs, ok := s.socks[h.Handle]
	if !ok {
		return -int64(syscall.EBADF), 0, nil
	}
	switch h.Op {
	case sockwire.OpBind:
		return s.bind(hs, data), 0, nil
	case sockwire.OpListen:
		return s.listen(hs, h.A[0]), 0, nil
	case sockwire.OpAccept:
		return s.accept(hs, h.A[0])
	case sockwire.OpConnect:
		sa, errno := decodeAddr(data)
		if errno == 0 {
			errno = s.mayReach(sa)
		}
		if errno == 0 {
			errno = s.bindForPeer(hs, sa, true)
		}
		if errno != 0 {
			return -int64(errno), 0, nil
		}
		return result(0, syscall.Connect(hs.fd, sa)), 0, nil
	case sockwire.OpSockName:
		sa, err := syscall.Getsockname(hs.fd)
		if err != nil {
			return result(0, err), 0, nil
		}
		if hs.remapped {
			setAddrPort(sa, hs.guestPort)
		}
		return 0, 0, encodeAddr(nil, sa)
	case sockwire.OpPeerName:
		sa, err := syscall.Getpeername(hs.fd)
		if err != nil {
			return result(0, err), 0, nil
		}
		return 0, 0, encodeAddr(nil, sa)
	case sockwire.OpSetSockOpt:
		return setsockopt(hs.fd, h.A[0], h.A[1], data), 0, nil
	case sockwire.OpIoctl:
		return ioctlInt(hs.fd, h.A[0])
	case sockwire.OpGetSockOpt:
		return getsockopt(hs.fd, h.A[0], h.A[1], h.A[2])
	case sockwire.OpSend:
		return s.send(hs, h.A[0], h.A[1], data), 0, nil
	case sockwire.OpRecv:
		return s.recv(hs, h.A[0], h.A[1])
	case sockwire.OpShutdown:
		return result(0, syscall.Shutdown(hs.fd, int(h.A[0]))), 0, nil
	case sockwire.OpClose:
		syscall.EpollCtl(s.epfd, syscall.EPOLL_CTL_DEL, hs.fd, nil)
		syscall.Close(hs.fd)
		delete(s.socks, h.Handle)
		return 0, 0, nil
	}
	return -int64(syscall.EINVAL), 0, nil
}

// socket makes a TCP or UDP socket over IPv4 or IPv6 (the guest keeps AF_UNIX to itself).
func (s *server) socket(h sockwire.Header) int64 {
	domain, typ, proto := h.A[0], h.A[1], h.A[2]
	switch {
	case domain != afINET && domain != afINET6:
		return -int64(syscall.EAFNOSUPPORT)
	case typ != syscall.SOCK_STREAM && typ != syscall.SOCK_DGRAM:
		return -int64(syscall.ESOCKTNOSUPPORT)
	case proto != 0 && (typ != syscall.SOCK_STREAM || proto != syscall.IPPROTO_TCP) && (typ != syscall.SOCK_DGRAM || proto != syscall.IPPROTO_UDP):
		// TCP and UDP only: not SCTP, UDP-Lite or ICMP echo, whose binding (autobind.go) the
		// launcher does not oversee.
		return -int64(syscall.EPROTONOSUPPORT)
	}
	return s.adopt(h.Handle, func() (int, error) {
		return syscall.Socket(int(domain), int(typ)|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, int(proto))
	}, int(domain), int(typ))
}

// adopt makes a host socket with mk for the guest's handle and watches it.
func (s *server) adopt(handle uint32, mk func() (int, error), domain, typ int) int64 {
	if _, dup := s.socks[handle]; dup || handle == 0 {
		return -int64(syscall.EBADF) // the guest named a handle it holds already
	}
	if len(s.socks) >= MaxSockets {
		return -int64(syscall.EMFILE)
	}
	fd, err := mk()
	if err != nil {
		return result(0, err)
	}
	if errno := s.watch(handle, fd); errno != 0 {
		syscall.Close(fd)
		return -int64(errno)
	}
	s.socks[handle] = &hostSocket{fd: fd, domain: domain, typ: typ}
	return 0
}

// bind binds on the loopback address, or where Options.Listen maps the port.
func (s *server) bind(hs *hostSocket, data []byte) int64 {
	sa, errno := decodeAddr(data)
	if errno != 0 {
		return -int64(errno)
	}
	port := addrPort(sa)
	if to, ok := s.opts.Listen[uint16(port)]; ok && port != 0 {
		mapped, errno := sockaddrOf(to, hs.domain)
		if errno != 0 {
			return -int64(errno)
		}
		if err := syscall.Bind(hs.fd, mapped); err != nil {
			return result(0, err)
		}
		hs.guestPort, hs.remapped, hs.mapped = port, int(to.Port()) != port, true
		return 0
	}
	switch sa := sa.(type) {
	case *syscall.SockaddrInet4:
		sa.Addr = [4]byte{127, 0, 0, 1}
	case *syscall.SockaddrInet6:
		sa.Addr, sa.ZoneId = loopback6(sa.Addr, hs.fd), 0
	}
	return result(0, syscall.Bind(hs.fd, sa))
}

// loopback6 is the host address an IPv6 socket binds for the guest's addr: "::1", or for the
// unspecified address of a dual-stack socket (IPV6_V6ONLY off, Linux's default) the IPv4
// loopback address as a mapped one, so that IPv4 clients reach it as they would on Linux.
func loopback6(addr [16]byte, fd int) [16]byte {
	a := netip.AddrFrom16(addr)
	if a.IsUnspecified() {
		if v6only, err := syscall.GetsockoptInt(fd, syscall.IPPROTO_IPV6, syscall.IPV6_V6ONLY); err == nil && v6only == 0 {
			return netip.AddrFrom4([4]byte{127, 0, 0, 1}).As16()
		}
	}
	if a.Is4In6() && a.Unmap().IsLoopback() {
		return addr
	}
	return netip.IPv6Loopback().As16()
}

// sockaddrOf is a -listen address as a socket address of the socket's family.
func sockaddrOf(ap netip.AddrPort, domain int) (syscall.Sockaddr, syscall.Errno) {
	a := ap.Addr()
	switch {
	case domain == afINET && a.Is4():
		return &syscall.SockaddrInet4{Port: int(ap.Port()), Addr: a.As4()}, 0
	case domain == afINET6:
		return &syscall.SockaddrInet6{Port: int(ap.Port()), Addr: a.As16()}, 0
	}
	return nil, syscall.EAFNOSUPPORT
}

func (s *server) listen(hs *hostSocket, backlog int64) int64 {
	if hs.typ == syscall.SOCK_STREAM {
		if errno := s.bindBeforeListen(hs); errno != 0 {
			return -int64(errno)
		}
	}
	if err := syscall.Listen(hs.fd, int(min(max(backlog, 0), 4096))); err != nil {
		return result(0, err)
	}
	if s.opts.Log != nil {
		if sa, err := syscall.Getsockname(hs.fd); err == nil {
			where := ""
			if hs.remapped {
				where = fmt.Sprintf(" (guest port %d)", hs.guestPort)
			}
			fmt.Fprintf(s.opts.Log, "unitrace: the guest listens on %s%s\n", addrString(sa), where)
		}
	}
	return 0
}

// addrString is the address the host's clients dial: a dual-stack socket's IPv4 one unmapped.
func addrString(sa syscall.Sockaddr) string {
	ap := addrOf(sa)
	if !ap.IsValid() {
		return "?"
	}
	return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()).String()
}

func (s *server) accept(hs *hostSocket, newHandle int64) (int64, int64, []byte) {
	var peer syscall.Sockaddr
	r := s.adopt(uint32(newHandle), func() (int, error) {
		fd, sa, err := syscall.Accept4(hs.fd, syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC)
		peer = sa
		return fd, err
	}, hs.domain, hs.typ)
	if r != 0 {
		return r, 0, nil
	}
	return 0, 0, encodeAddr(nil, peer)
}

func (s *server) send(hs *hostSocket, flags, addrLen int64, data []byte) int64 {
	if flags&^sendFlags != 0 {
		return -int64(syscall.EOPNOTSUPP)
	}
	if addrLen < 0 || addrLen > int64(len(data)) || addrLen > sockwire.MaxAddr {
		return -int64(syscall.EINVAL)
	}
	var to syscall.Sockaddr
	var errno syscall.Errno
	if addrLen > 0 {
		if to, errno = decodeAddr(data[:addrLen]); errno == 0 {
			errno = s.mayReach(to)
		}
		if errno == 0 {
			errno = s.bindForPeer(hs, to, false)
		}
	} else {
		errno = s.sendBeforeBind(hs)
	}
	if errno != 0 {
		return -int64(errno)
	}
	p := data[addrLen:]
	var ptr unsafe.Pointer
	if len(p) > 0 {
		ptr = unsafe.Pointer(&p[0])
	}
	// syscall.Sendto returns no count, so the call is made here: sendto(fd, p, flags, to).
	var n uintptr
	var e syscall.Errno
	f := uintptr(flags | msgDontwait | msgNosignal)
	if to == nil {
		n, _, e = syscall.Syscall6(syscall.SYS_SENDTO, uintptr(hs.fd), uintptr(ptr), uintptr(len(p)), f, 0, 0)
	} else {
		raw := encodeAddr(nil, to) // the guest's layout is Linux's: pass it on as it is
		n, _, e = syscall.Syscall6(syscall.SYS_SENDTO, uintptr(hs.fd), uintptr(ptr), uintptr(len(p)), f,
			uintptr(unsafe.Pointer(&raw[0])), uintptr(len(raw)))
	}
	if e != 0 {
		return -int64(e)
	}
	return int64(n)
}

// recv reads at most want bytes; the reply's data is the sender's address (A[1] bytes of it),
// then the bytes.
func (s *server) recv(hs *hostSocket, flags, want int64) (int64, int64, []byte) {
	if flags&^recvFlags != 0 {
		return -int64(syscall.EOPNOTSUPP), 0, nil
	}
	if want < 0 {
		return -int64(syscall.EINVAL), 0, nil
	}
	want = min(want, sockwire.MaxData-sockwire.MaxAddr)
	buf := make([]byte, sockwire.MaxAddr+want)
	var rsa [sockwire.MaxAddr]byte
	alen := uint32(len(rsa))
	var ptr unsafe.Pointer
	if want > 0 {
		ptr = unsafe.Pointer(&buf[sockwire.MaxAddr])
	}
	n, _, e := syscall.Syscall6(syscall.SYS_RECVFROM, uintptr(hs.fd), uintptr(ptr), uintptr(want),
		uintptr(flags|msgDontwait), uintptr(unsafe.Pointer(&rsa[0])), uintptr(unsafe.Pointer(&alen)))
	if e != 0 {
		return -int64(e), 0, nil
	}
	if hs.typ == syscall.SOCK_STREAM {
		alen = 0 // a connected stream reports no address
	}
	alen = min(alen, sockwire.MaxAddr)
	out := append(buf[:0], rsa[:alen]...)
	// With MSG_TRUNC, or a datagram longer than want, n may exceed what was copied.
	out = append(out, buf[sockwire.MaxAddr:sockwire.MaxAddr+min(int(n), int(want))]...)
	return int64(n), int64(alen), out
}

// mayReach is ENETUNREACH under Options.Offline, and for an address other than loopback under
// Options.NoOutbound.
func (s *server) mayReach(sa syscall.Sockaddr) syscall.Errno {
	switch {
	case s.opts.Offline:
		return syscall.ENETUNREACH
	case !s.opts.NoOutbound:
		return 0
	}
	switch sa := sa.(type) {
	case *syscall.SockaddrInet4:
		if sa.Addr[0] == 127 {
			return 0
		}
	case *syscall.SockaddrInet6:
		if netip.AddrFrom16(sa.Addr).IsLoopback() {
			return 0
		}
	}
	return syscall.ENETUNREACH
}
