package hostnet

import (
	"encoding/binary"
	"syscall"
)

// Socket addresses cross the wire in Linux's own layout (struct sockaddr_in and sockaddr_in6,
// <netinet/in.h>): the family in host order, then the port in network order.
const (
	afINET      = 2
	afINET6     = 10
	sockaddrIn  = 16 // sizeof(struct sockaddr_in)
	sockaddrIn6 = 28 // sizeof(struct sockaddr_in6)
)

// decodeAddr reads a guest's socket address. A short address is EINVAL and a family other
// than AF_INET and AF_INET6 EAFNOSUPPORT, as Linux's connect and bind answer.
func decodeAddr(b []byte) (syscall.Sockaddr, syscall.Errno) {
	if len(b) < 2 {
		return nil, syscall.EINVAL
	}
	switch binary.LittleEndian.Uint16(b) {
	case afINET:
		if len(b) < sockaddrIn {
			return nil, syscall.EINVAL
		}
		sa := &syscall.SockaddrInet4{Port: int(binary.BigEndian.Uint16(b[2:]))}
		copy(sa.Addr[:], b[4:8])
		return sa, 0
	case afINET6:
		if len(b) < sockaddrIn6 {
			return nil, syscall.EINVAL
		}
		sa := &syscall.SockaddrInet6{Port: int(binary.BigEndian.Uint16(b[2:])), ZoneId: binary.LittleEndian.Uint32(b[24:])}
		copy(sa.Addr[:], b[8:24])
		return sa, 0
	}
	return nil, syscall.EAFNOSUPPORT
}

// encodeAddr appends sa in the guest's layout; an address of another family appends nothing.
func encodeAddr(dst []byte, sa syscall.Sockaddr) []byte {
	switch sa := sa.(type) {
	case *syscall.SockaddrInet4:
		var b [sockaddrIn]byte
		binary.LittleEndian.PutUint16(b[0:], afINET)
		binary.BigEndian.PutUint16(b[2:], uint16(sa.Port))
		copy(b[4:8], sa.Addr[:])
		return append(dst, b[:]...)
	case *syscall.SockaddrInet6:
		var b [sockaddrIn6]byte
		binary.LittleEndian.PutUint16(b[0:], afINET6)
		binary.BigEndian.PutUint16(b[2:], uint16(sa.Port))
		copy(b[8:24], sa.Addr[:])
		binary.LittleEndian.PutUint32(b[24:], sa.ZoneId)
		return append(dst, b[:]...)
	}
	return dst
}

// addrPort reads and sets a socket address's port.
func addrPort(sa syscall.Sockaddr) int {
	switch sa := sa.(type) {
	case *syscall.SockaddrInet4:
		return sa.Port
	case *syscall.SockaddrInet6:
		return sa.Port
	}
	return 0
}

func setAddrPort(sa syscall.Sockaddr, port int) {
	switch sa := sa.(type) {
	case *syscall.SockaddrInet4:
		sa.Port = port
	case *syscall.SockaddrInet6:
		sa.Port = port
	}
}
