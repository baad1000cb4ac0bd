package netlink

import "github.com/unitrace/unitrace/kernel/abi"

// The interface ioctls on a socket (struct ifreq: the interface's name in its first IFNAMSIZ
// bytes, then a union of 24), as Linux's dev_ioctl and, for the IPv4 address requests on an
// AF_INET socket, devinet_ioctl answer them for the loopback interface.

// ifrData is where struct ifreq's union begins.
const ifrData = IFNAMSIZ

// IsIfreq reports whether req is one of the interface ioctls Ifreq answers (SIOCETHTOOL and
// SIOCGIFCONF are the caller's, as they point at more memory).
func IsIfreq(req uint32) bool {
	switch req {
	case SIOCGIFNAME, SIOCGIFFLAGS, SIOCGIFADDR, SIOCGIFDSTADDR, SIOCGIFBRDADDR, SIOCGIFNETMASK,
		SIOCGIFMETRIC, SIOCGIFMTU, SIOCGIFHWADDR, SIOCGIFINDEX, SIOCGIFTXQLEN:
		return true
	}
	return false
}

// IsAddrRequest reports whether req asks for an IPv4 address, which only an AF_INET socket
// answers (devinet_ioctl; on another socket Linux's answer is ENOTTY).
func IsAddrRequest(req uint32) bool {
	switch req {
	case SIOCGIFADDR, SIOCGIFDSTADDR, SIOCGIFBRDADDR, SIOCGIFNETMASK:
		return true
	}
	return false
}

// Ifreq answers request req (IsIfreq) on ifr, a copy of the program's struct ifreq
// (IfreqSize bytes), rewriting it with the answer. SIOCGIFNAME names the interface of
// ifr_ifindex; the rest find theirs by name (its last byte taken as NUL, as Linux does): ENODEV
// for a name or index that is not lo's.
func Ifreq(req uint32, ifr []byte) int {
	if len(ifr) < IfreqSize {
		return abi.EFAULT
	}
	if req == SIOCGIFNAME {
		if int32(le32(ifr[ifrData:])) != LoopbackIndex {
			return abi.ENODEV
		}
		clear(ifr[:IFNAMSIZ])
		copy(ifr, loopbackName[:])
		return 0
	}
	ifr[IFNAMSIZ-1] = 0
	if !isLoopbackName(ifr[:IFNAMSIZ]) {
		return abi.ENODEV
	}
	u := ifr[ifrData:IfreqSize]
	switch req {
	case SIOCGIFFLAGS:
		put16(u, loopbackFlags&0xffff) // ifr_flags is a short: IFF_LOWER_UP does not fit
	case SIOCGIFMETRIC:
		put32(u, 0)
	case SIOCGIFMTU:
		put32(u, loopbackMTU)
	case SIOCGIFINDEX:
		put32(u, LoopbackIndex)
	case SIOCGIFTXQLEN:
		put32(u, txQueueLen)
	case SIOCGIFHWADDR:
		clear(u[:16])
		put16(u, ARPHRD_LOOPBACK) // sa_family is the hardware type; the address, all zeros
	case SIOCGIFADDR, SIOCGIFDSTADDR: // lo is no point-to-point link: its "peer" is itself
		putSockaddrIn(u, loopbackV4)
	case SIOCGIFBRDADDR: // 127.0.0.1/8 has no broadcast address
		putSockaddrIn(u, [4]byte{})
	case SIOCGIFNETMASK:
		putSockaddrIn(u, loopbackV4Net)
	default:
		return abi.ENOTTY
	}
	return 0
}

// putSockaddrIn writes a struct sockaddr_in of address a, port 0.
func putSockaddrIn(b []byte, a [4]byte) {
	clear(b[:16])
	put16(b, AF_INET)
	copy(b[4:8], a[:])
}

// IfconfEntries is how many entries SIOCGIFCONF lists: one per interface with an IPv4
// address.
const IfconfEntries = 1

// IfconfEntry writes SIOCGIFCONF's entry i into ifr (IfreqSize bytes): the interface's name
// and IPv4 address.
func IfconfEntry(i int, ifr []byte) bool {
	if i != 0 || len(ifr) < IfreqSize {
		return false
	}
	clear(ifr[:IfreqSize])
	copy(ifr, loopbackName[:])
	putSockaddrIn(ifr[ifrData:], loopbackV4)
	return true
}

// Ethtool answers SIOCETHTOOL command cmd for the interface named in ifr: the bytes of the
// command's struct to write back at ifr_data (into out, which must hold them), or an errno. lo
// answers ETHTOOL_GET_TS_INFO (software time stamps, no clock: ethtool_op_get_ts_info's answer)
// and nothing else (EOPNOTSUPP: it has no driver information, ETHTOOL_GDRVINFO's).
func Ethtool(ifr []byte, cmd uint32, out []byte) (int, int) {
	if len(ifr) < IfreqSize {
		return 0, abi.EFAULT
	}
	ifr[IFNAMSIZ-1] = 0
	if !isLoopbackName(ifr[:IFNAMSIZ]) {
		return 0, abi.ENODEV
	}
	if cmd != ETHTOOL_GET_TS_INFO {
		return 0, abi.EOPNOTSUPP
	}
	if len(out) < ethtoolTsInfoLen {
		return 0, abi.EFAULT
	}
	b := out[:ethtoolTsInfoLen]
	clear(b)
	put32(b[0:], cmd)
	put32(b[4:], softwareTimestamping)
	put32(b[8:], 0xFFFFFFFF) // phc_index -1: no hardware clock
	return ethtoolTsInfoLen, 0
}

// EthtoolTsInfoLen is the size of struct ethtool_ts_info, what Ethtool's out must hold.
const EthtoolTsInfoLen = ethtoolTsInfoLen
