package netlink

import (
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestABI checks the constants against golang.org/x/sys/unix, generated from Linux's headers.
func TestABI(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want uint64
	}{
		{"AF_NETLINK", AF_NETLINK, unix.AF_NETLINK},
		{"NETLINK_ROUTE", NETLINK_ROUTE, unix.NETLINK_ROUTE},
		{"SOL_NETLINK", SOL_NETLINK, unix.SOL_NETLINK},
		{"sockaddr_nl", SockaddrNLSize, unix.SizeofSockaddrNetlink},
		{"nlmsghdr", hdrLen, unix.SizeofNlMsghdr},
		{"ifinfomsg", ifinfomsgLen, unix.SizeofIfInfomsg},
		{"ifaddrmsg", ifaddrmsgLen, unix.SizeofIfAddrmsg},
		{"rtattr", rtaHdrLen, unix.SizeofRtAttr},
		{"ifa_cacheinfo", ifaCacheinfoLen, unix.SizeofIfaCacheinfo},
		{"ifreq", IfreqSize, uint64(unsafe.Sizeof(unix.Ifreq{}))},
		{"ethtool_ts_info", ethtoolTsInfoLen, uint64(unsafe.Sizeof(unix.EthtoolTsInfo{}))},
		{"NLMSG_NOOP", NLMSG_NOOP, unix.NLMSG_NOOP},
		{"NLMSG_ERROR", NLMSG_ERROR, unix.NLMSG_ERROR},
		{"NLMSG_DONE", NLMSG_DONE, unix.NLMSG_DONE},
		{"NLMSG_MIN_TYPE", NLMSG_MIN_TYPE, unix.NLMSG_MIN_TYPE},
		{"RTM_NEWLINK", RTM_NEWLINK, unix.RTM_NEWLINK},
		{"RTM_GETLINK", RTM_GETLINK, unix.RTM_GETLINK},
		{"RTM_NEWADDR", RTM_NEWADDR, unix.RTM_NEWADDR},
		{"RTM_GETADDR", RTM_GETADDR, unix.RTM_GETADDR},
		{"NLM_F_REQUEST", NLM_F_REQUEST, unix.NLM_F_REQUEST},
		{"NLM_F_MULTI", NLM_F_MULTI, unix.NLM_F_MULTI},
		{"NLM_F_ACK", NLM_F_ACK, unix.NLM_F_ACK},
		{"NLM_F_DUMP", NLM_F_DUMP, unix.NLM_F_DUMP},
		{"NLM_F_CAPPED", NLM_F_CAPPED, unix.NLM_F_CAPPED},
		{"IFLA_ADDRESS", IFLA_ADDRESS, unix.IFLA_ADDRESS},
		{"IFLA_BROADCAST", IFLA_BROADCAST, unix.IFLA_BROADCAST},
		{"IFLA_IFNAME", IFLA_IFNAME, unix.IFLA_IFNAME},
		{"IFLA_MTU", IFLA_MTU, unix.IFLA_MTU},
		{"IFLA_QDISC", IFLA_QDISC, unix.IFLA_QDISC},
		{"IFLA_TXQLEN", IFLA_TXQLEN, unix.IFLA_TXQLEN},
		{"IFLA_OPERSTATE", IFLA_OPERSTATE, unix.IFLA_OPERSTATE},
		{"IFLA_LINKMODE", IFLA_LINKMODE, unix.IFLA_LINKMODE},
		{"IFLA_GROUP", IFLA_GROUP, unix.IFLA_GROUP},
		{"IFLA_NUM_TX_QUEUES", IFLA_NUM_TX_QUEUES, unix.IFLA_NUM_TX_QUEUES},
		{"IFLA_NUM_RX_QUEUES", IFLA_NUM_RX_QUEUES, unix.IFLA_NUM_RX_QUEUES},
		{"IFLA_CARRIER", IFLA_CARRIER, unix.IFLA_CARRIER},
		{"IFLA_MIN_MTU", IFLA_MIN_MTU, unix.IFLA_MIN_MTU},
		{"IFLA_MAX_MTU", IFLA_MAX_MTU, unix.IFLA_MAX_MTU},
		{"IFA_ADDRESS", IFA_ADDRESS, unix.IFA_ADDRESS},
		{"IFA_LOCAL", IFA_LOCAL, unix.IFA_LOCAL},
		{"IFA_LABEL", IFA_LABEL, unix.IFA_LABEL},
		{"IFA_CACHEINFO", IFA_CACHEINFO, unix.IFA_CACHEINFO},
		{"IFA_FLAGS", IFA_FLAGS, unix.IFA_FLAGS},
		{"IFA_F_PERMANENT", IFA_F_PERMANENT, unix.IFA_F_PERMANENT},
		{"RT_SCOPE_HOST", RT_SCOPE_HOST, unix.RT_SCOPE_HOST},
		{"ARPHRD_LOOPBACK", ARPHRD_LOOPBACK, unix.ARPHRD_LOOPBACK},
		{"IFF_UP", IFF_UP, unix.IFF_UP},
		{"IFF_LOOPBACK", IFF_LOOPBACK, unix.IFF_LOOPBACK},
		{"IFF_RUNNING", IFF_RUNNING, unix.IFF_RUNNING},
		{"IFF_LOWER_UP", IFF_LOWER_UP, unix.IFF_LOWER_UP},
		{"IFNAMSIZ", IFNAMSIZ, unix.IFNAMSIZ},
		{"SIOCGIFNAME", SIOCGIFNAME, unix.SIOCGIFNAME},
		{"SIOCGIFCONF", SIOCGIFCONF, unix.SIOCGIFCONF},
		{"SIOCGIFFLAGS", SIOCGIFFLAGS, unix.SIOCGIFFLAGS},
		{"SIOCGIFADDR", SIOCGIFADDR, unix.SIOCGIFADDR},
		{"SIOCGIFDSTADDR", SIOCGIFDSTADDR, unix.SIOCGIFDSTADDR},
		{"SIOCGIFBRDADDR", SIOCGIFBRDADDR, unix.SIOCGIFBRDADDR},
		{"SIOCGIFNETMASK", SIOCGIFNETMASK, unix.SIOCGIFNETMASK},
		{"SIOCGIFMETRIC", SIOCGIFMETRIC, unix.SIOCGIFMETRIC},
		{"SIOCGIFMTU", SIOCGIFMTU, unix.SIOCGIFMTU},
		{"SIOCGIFHWADDR", SIOCGIFHWADDR, unix.SIOCGIFHWADDR},
		{"SIOCGIFINDEX", SIOCGIFINDEX, unix.SIOCGIFINDEX},
		{"SIOCGIFTXQLEN", SIOCGIFTXQLEN, unix.SIOCGIFTXQLEN},
		{"SIOCETHTOOL", SIOCETHTOOL, unix.SIOCETHTOOL},
		{"ETHTOOL_GDRVINFO", ETHTOOL_GDRVINFO, unix.ETHTOOL_GDRVINFO},
		{"ETHTOOL_GET_TS_INFO", ETHTOOL_GET_TS_INFO, unix.ETHTOOL_GET_TS_INFO},
		{"software time stamps", softwareTimestamping, unix.SOF_TIMESTAMPING_TX_SOFTWARE | unix.SOF_TIMESTAMPING_RX_SOFTWARE | unix.SOF_TIMESTAMPING_SOFTWARE},
	} {
		if c.got != c.want {
			t.Errorf("%s = %#x, want %#x", c.name, c.got, c.want)
		}
	}
}
