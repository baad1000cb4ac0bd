package main

import (
	"fmt"
	"net"
	"slices"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// checkNetlink: the network interfaces, as package net and x/sys see them. net.Interfaces (a
// NETLINK_ROUTE dump) has lo at index 1, up, loopback and running, MTU 65536, with 127.0.0.1/8
// and ::1/128 (in the guest lo is the only interface); the interface ioctls agree with it; a raw
// route socket autobinds to a port its replies carry, truncates a datagram read into a short
// buffer (MSG_TRUNC), reads EAGAIN when nothing is queued and gets EOPNOTSUPP for a request it
// has no handler for.
func checkNetlink() (string, error) {
	ifs, err := net.Interfaces()
	if err != nil {
		return "", fmt.Errorf("net.Interfaces: %v", err)
	}
	i := slices.IndexFunc(ifs, func(ifi net.Interface) bool { return ifi.Name == "lo" })
	if i < 0 || inGuest() && len(ifs) != 1 {
		return "", fmt.Errorf("interfaces %v, want lo (only lo in the guest)", ifs)
	}
	lo := ifs[i]
	if want := net.FlagUp | net.FlagLoopback | net.FlagRunning; lo.Index != 1 || lo.MTU != 65536 || lo.Flags&want != want || len(lo.HardwareAddr) != 0 {
		return "", fmt.Errorf("lo = %+v", lo)
	}
	addrs, err := lo.Addrs()
	if err != nil {
		return "", fmt.Errorf("lo's addresses: %v", err)
	}
	var got []string
	for _, a := range addrs {
		got = append(got, a.String())
	}
	if !slices.Contains(got, "127.0.0.1/8") || inGuest() && !slices.Equal(got, []string{"127.0.0.1/8", "::1/128"}) {
		return "", fmt.Errorf("lo's addresses %v, want 127.0.0.1/8 and ::1/128", got)
	}
	if byName, err := net.InterfaceByName("lo"); err != nil || byName.Index != 1 {
		return "", fmt.Errorf("InterfaceByName(lo) = %v, %v", byName, err)
	}
	if err := checkIfreq(); err != nil {
		return "", err
	}
	if err := checkRouteSocket(); err != nil {
		return "", err
	}
	return fmt.Sprintf("%d interfaces, lo with %v; ioctls agree; a raw route socket", len(ifs), got), nil
}

// checkIfreq asks lo's index, address and flags by ioctl on a socket, and ethtool's two
// answers for lo. Any socket answers the interface requests, but only an AF_INET socket the
// IPv4 address; a guest booted without the launcher's net port has no AF_INET socket, so there
// a netlink socket asks, and its address request must be ENOTTY as on Linux.
func checkIfreq() error {
	s, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM, 0)
	inet := err == nil
	if err == unix.EAFNOSUPPORT && inGuest() {
		s, err = unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_ROUTE)
	}
	if err != nil {
		return fmt.Errorf("socket: %v", err)
	}
	defer unix.Close(s)
	ifr, _ := unix.NewIfreq("lo")
	if err := unix.IoctlIfreq(s, unix.SIOCGIFINDEX, ifr); err != nil || ifr.Uint32() != 1 {
		return fmt.Errorf("SIOCGIFINDEX of lo = %d, %v", ifr.Uint32(), err)
	}
	ifr, _ = unix.NewIfreq("lo")
	err = unix.IoctlIfreq(s, unix.SIOCGIFADDR, ifr)
	switch {
	case !inet && err != unix.ENOTTY:
		return fmt.Errorf("SIOCGIFADDR of lo on a netlink socket: %v, want ENOTTY", err)
	case inet && err != nil:
		return fmt.Errorf("SIOCGIFADDR of lo: %v", err)
	}
	if ip, err := ifr.Inet4Addr(); inet && (err != nil || !net.IP(ip).Equal(net.IPv4(127, 0, 0, 1))) {
		return fmt.Errorf("SIOCGIFADDR of lo = %v, %v", ip, err)
	}
	ifr, _ = unix.NewIfreq("lo")
	if err := unix.IoctlIfreq(s, unix.SIOCGIFFLAGS, ifr); err != nil || ifr.Uint16()&(unix.IFF_UP|unix.IFF_LOOPBACK) != unix.IFF_UP|unix.IFF_LOOPBACK {
		return fmt.Errorf("SIOCGIFFLAGS of lo = %#x, %v", ifr.Uint16(), err)
	}
	ifr, _ = unix.NewIfreq("nonesuch0")
	if err := unix.IoctlIfreq(s, unix.SIOCGIFINDEX, ifr); err != unix.ENODEV {
		return fmt.Errorf("SIOCGIFINDEX of nonesuch0: %v, want ENODEV", err)
	}
	if _, err := unix.IoctlGetEthtoolDrvinfo(s, "lo"); err != unix.EOPNOTSUPP {
		return fmt.Errorf("ETHTOOL_GDRVINFO of lo: %v, want EOPNOTSUPP", err)
	}
	if ts, err := unix.IoctlGetEthtoolTsInfo(s, "lo"); err != nil || ts.Phc_index != -1 {
		return fmt.Errorf("ETHTOOL_GET_TS_INFO of lo = %+v, %v", ts, err)
	}
	return nil
}

// checkRouteSocket drives a raw NETLINK_ROUTE socket by hand.
func checkRouteSocket() error {
	s, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, unix.NETLINK_ROUTE)
	if err != nil {
		return fmt.Errorf("socket: %v", err)
	}
	defer unix.Close(s)
	if v, err := unix.GetsockoptInt(s, unix.SOL_SOCKET, unix.SO_DOMAIN); err != nil || v != unix.AF_NETLINK {
		return fmt.Errorf("SO_DOMAIN = %d, %v", v, err)
	}
	buf := make([]byte, 8192)
	if _, _, err := unix.Recvfrom(s, buf, 0); err != unix.EAGAIN {
		return fmt.Errorf("receive with nothing queued: %v, want EAGAIN", err)
	}
	req := func(typ, flags uint16, seq uint32, payload []byte) []byte {
		b := make([]byte, unix.NLMSG_HDRLEN+len(payload))
		h := (*unix.NlMsghdr)(unsafe.Pointer(&b[0]))
		*h = unix.NlMsghdr{Len: uint32(len(b)), Type: typ, Flags: flags, Seq: seq}
		copy(b[unix.NLMSG_HDRLEN:], payload)
		return b
	}
	// No bind: the send binds it, and the replies carry its port.
	if err := unix.Sendto(s, req(unix.RTM_GETLINK, unix.NLM_F_REQUEST|unix.NLM_F_DUMP, 7, []byte{unix.AF_UNSPEC}), 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return fmt.Errorf("sendto: %v", err)
	}
	sa, err := unix.Getsockname(s)
	nl, ok := sa.(*unix.SockaddrNetlink)
	if err != nil || !ok || nl.Pid == 0 {
		return fmt.Errorf("getsockname = %#v, %v; want a port", sa, err)
	}
	// A short buffer takes the first 16 bytes of the dump's first datagram; the rest is gone.
	n, _, flags, from, err := unix.Recvmsg(s, buf[:16], nil, 0)
	if err != nil || n != 16 || flags&unix.MSG_TRUNC == 0 {
		return fmt.Errorf("short recvmsg = %d, flags %#x, %v; want 16, MSG_TRUNC", n, flags, err)
	}
	if f, ok := from.(*unix.SockaddrNetlink); !ok || f.Pid != 0 {
		return fmt.Errorf("the reply comes from %#v, want the kernel (port 0)", from)
	}
	h := (*unix.NlMsghdr)(unsafe.Pointer(&buf[0]))
	if h.Type != unix.RTM_NEWLINK || h.Seq != 7 || h.Pid != nl.Pid {
		return fmt.Errorf("first reply %+v, want RTM_NEWLINK, seq 7, pid %d", *h, nl.Pid)
	}
	// Then the rest of the dump (in the guest, nothing but NLMSG_DONE), to its NLMSG_DONE.
	for k, done := 0, false; !done; k++ {
		n, err = unix.Read(s, buf)
		msgs, perr := syscall.ParseNetlinkMessage(buf[:max(n, 0)])
		if err != nil || perr != nil || k == 64 || inGuest() && (len(msgs) != 1 || msgs[0].Header.Type != unix.NLMSG_DONE) {
			return fmt.Errorf("datagram %d after the first: %d bytes, %v, %v; want NLMSG_DONE", k, n, err, perr)
		}
		for _, m := range msgs {
			done = done || m.Header.Type == unix.NLMSG_DONE
		}
	}
	// A request of a type past every handler's: NLMSG_ERROR with EOPNOTSUPP.
	if _, err := unix.Write(s, req(0x7f0, unix.NLM_F_REQUEST, 8, make([]byte, 12))); err != nil {
		return fmt.Errorf("write: %v", err)
	}
	n, err = unix.Read(s, buf)
	msgs, perr := syscall.ParseNetlinkMessage(buf[:max(n, 0)])
	if err != nil || perr != nil || len(msgs) != 1 || msgs[0].Header.Type != unix.NLMSG_ERROR || len(msgs[0].Data) < 4 {
		return fmt.Errorf("reply to an unknown type: %d bytes, %v, %v", n, err, perr)
	}
	if errno := unix.Errno(-*(*int32)(unsafe.Pointer(&msgs[0].Data[0]))); errno != unix.EOPNOTSUPP {
		return fmt.Errorf("an unknown type: %v, want EOPNOTSUPP", errno)
	}
	return nil
}
