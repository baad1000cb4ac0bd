// Package netlink is the guest's routing netlink (NETLINK_ROUTE) and the interface ioctls
// (SIOCGIF*): what a program learns of the network interfaces. The guest has one, the loopback
// interface "lo" (loopback.go): its sockets are the launcher's sockets on the host, and its only
// addresses of its own are loopback ones. Serve answers route requests as Linux's rtnetlink
// answers them for lo (route.go); Ifreq answers the ioctls (ifreq.go).
//
// The package is kernel-mode Go: it never allocates and never panics on any input; its callers
// hand it the bytes to read and the buffers to fill.
package netlink

// Linux's layouts and values, from include/uapi/linux/netlink.h, rtnetlink.h, if_link.h,
// if_addr.h, if.h, if_arp.h, sockios.h and ethtool.h; TestABI checks them against
// golang.org/x/sys/unix.
const (
	AF_NETLINK     = 16
	NETLINK_ROUTE  = 0
	SOL_NETLINK    = 270
	SockaddrNLSize = 12 // struct sockaddr_nl: family u16, pad u16, pid u32, groups u32

	hdrLen = 16 // struct nlmsghdr: len u32, type u16, flags u16, seq u32, pid u32

	// Message types.
	NLMSG_NOOP     = 1
	NLMSG_ERROR    = 2
	NLMSG_DONE     = 3
	NLMSG_MIN_TYPE = 16 // below it, control messages
	RTM_NEWLINK    = 16
	RTM_GETLINK    = 18
	RTM_NEWADDR    = 20
	RTM_GETADDR    = 22

	// Message flags.
	NLM_F_REQUEST = 0x1
	NLM_F_MULTI   = 0x2
	NLM_F_ACK     = 0x4
	NLM_F_ROOT    = 0x100
	NLM_F_MATCH   = 0x200
	NLM_F_DUMP    = NLM_F_ROOT | NLM_F_MATCH
	NLM_F_CAPPED  = 0x100 // on NLMSG_ERROR: the request is cut to its header

	ifinfomsgLen = 16 // family u8, pad u8, type u16, index i32, flags u32, change u32
	ifaddrmsgLen = 8  // family u8, prefixlen u8, flags u8, scope u8, index u32

	// Link attributes.
	IFLA_ADDRESS        = 1
	IFLA_BROADCAST      = 2
	IFLA_IFNAME         = 3
	IFLA_MTU            = 4
	IFLA_QDISC          = 6
	IFLA_TXQLEN         = 13
	IFLA_OPERSTATE      = 16
	IFLA_LINKMODE       = 17
	IFLA_GROUP          = 27
	IFLA_NUM_TX_QUEUES  = 31
	IFLA_NUM_RX_QUEUES  = 32
	IFLA_CARRIER        = 33
	IFLA_MIN_MTU        = 50
	IFLA_MAX_MTU        = 51
	IFA_ADDRESS         = 1
	IFA_LOCAL           = 2
	IFA_LABEL           = 3
	IFA_CACHEINFO       = 6
	IFA_FLAGS           = 8
	IFA_F_PERMANENT     = 0x80
	RT_SCOPE_HOST       = 254
	IF_OPER_UNKNOWN     = 0
	ARPHRD_LOOPBACK     = 772
	IFF_UP              = 0x1
	IFF_LOOPBACK        = 0x8
	IFF_RUNNING         = 0x40
	IFF_LOWER_UP        = 0x10000
	IFNAMSIZ            = 16
	AF_UNSPEC           = 0
	AF_INET             = 2
	AF_INET6            = 10
	ifaCacheinfoLen     = 16 // prefered u32, valid u32, cstamp u32, tstamp u32
	infinityLifeTime    = 0xFFFFFFFF
	rtaHdrLen           = 4 // struct rtattr: len u16, type u16
	IfreqSize           = 40
	SIOCGIFNAME         = 0x8910
	SIOCGIFCONF         = 0x8912
	SIOCGIFFLAGS        = 0x8913
	SIOCGIFADDR         = 0x8915
	SIOCGIFDSTADDR      = 0x8917
	SIOCGIFBRDADDR      = 0x8919
	SIOCGIFNETMASK      = 0x891b
	SIOCGIFMETRIC       = 0x891d
	SIOCGIFMTU          = 0x8921
	SIOCGIFHWADDR       = 0x8927
	SIOCGIFINDEX        = 0x8933
	SIOCGIFTXQLEN       = 0x8942
	SIOCETHTOOL         = 0x8946
	ETHTOOL_GDRVINFO    = 0x3
	ETHTOOL_GET_TS_INFO = 0x41
	ethtoolTsInfoLen    = 44 // cmd, so_timestamping, phc_index, tx_types, 3 reserved, rx_filters, 3 reserved

	// SOF_TIMESTAMPING_TX_SOFTWARE | RX_SOFTWARE | SOFTWARE: what ethtool_op_get_ts_info, lo's,
	// reports (include/uapi/linux/net_tstamp.h).
	softwareTimestamping = 0x2 | 0x8 | 0x10
)

func align4(n int) int { return (n + 3) &^ 3 }

func le16(b []byte) uint16 { return uint16(b[0]) | uint16(b[1])<<8 }

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

func put16(b []byte, v uint16) { b[0], b[1] = byte(v), byte(v>>8) }

func put32(b []byte, v uint32) {
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}
