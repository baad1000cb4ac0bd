package netlink

import (
	"bytes"
	"encoding/binary"
	"net"
	"runtime"
	"syscall"
	"testing"
	"unsafe"

	"github.com/unitrace/unitrace/kernel/abi"

	"golang.org/x/sys/unix"
)

// request builds a netlink message of type typ with payload p.
func request(typ, flags uint16, seq uint32, p []byte) []byte {
	b := make([]byte, hdrLen+len(p), align4(hdrLen+len(p)))
	binary.LittleEndian.PutUint32(b[0:], uint32(len(b)))
	binary.LittleEndian.PutUint16(b[4:], typ)
	binary.LittleEndian.PutUint16(b[6:], flags)
	binary.LittleEndian.PutUint32(b[8:], seq)
	copy(b[hdrLen:], p)
	return b[:cap(b)]
}

// datagrams returns each datagram of r parsed, failing if one does not parse.
func datagrams(t *testing.T, r *Replies) [][]syscall.NetlinkMessage {
	t.Helper()
	var out [][]syscall.NetlinkMessage
	for i := range r.Len() {
		msgs, err := syscall.ParseNetlinkMessage(bytes.Clone(r.Datagram(i)))
		if err != nil {
			t.Fatalf("datagram %d does not parse: %v", i, err)
		}
		out = append(out, msgs)
	}
	return out
}

// ifaceView is what net.Interfaces and Addrs read from link and address messages.
type ifaceView struct {
	index, flags, mtu uint32
	typ               uint16
	name              string
	addrs             []string // "family/prefix/scope/address"
}

// view parses a dump's link and address messages as package net does.
func view(t *testing.T, links, addrs []syscall.NetlinkMessage) map[string]*ifaceView {
	t.Helper()
	out := map[string]*ifaceView{}
	byIndex := map[uint32]*ifaceView{}
	for _, m := range links {
		if m.Header.Type != syscall.RTM_NEWLINK {
			continue
		}
		ifi := (*syscall.IfInfomsg)(unsafe.Pointer(&m.Data[0]))
		attrs, err := syscall.ParseNetlinkRouteAttr(&m)
		if err != nil {
			t.Fatalf("link attributes: %v", err)
		}
		v := &ifaceView{index: uint32(ifi.Index), flags: ifi.Flags, typ: ifi.Type}
		for _, a := range attrs {
			switch a.Attr.Type {
			case syscall.IFLA_IFNAME:
				v.name = string(bytes.TrimRight(a.Value, "\x00"))
			case syscall.IFLA_MTU:
				v.mtu = binary.LittleEndian.Uint32(a.Value)
			}
		}
		out[v.name], byIndex[v.index] = v, v
	}
	for _, m := range addrs {
		if m.Header.Type != syscall.RTM_NEWADDR {
			continue
		}
		ifa := (*syscall.IfAddrmsg)(unsafe.Pointer(&m.Data[0]))
		attrs, err := syscall.ParseNetlinkRouteAttr(&m)
		if err != nil {
			t.Fatalf("address attributes: %v", err)
		}
		v := byIndex[ifa.Index]
		if v == nil {
			t.Fatalf("address of unknown interface %d", ifa.Index)
		}
		for _, a := range attrs {
			if a.Attr.Type == syscall.IFA_ADDRESS {
				ipn := net.IPNet{IP: net.IP(a.Value), Mask: net.CIDRMask(int(ifa.Prefixlen), 8*len(a.Value))}
				v.addrs = append(v.addrs, ipn.String())
			}
		}
	}
	return out
}

// TestDumpMatchesHost dumps links and addresses and checks lo's against the host's lo, as
// package net sees them: index, name, flags, type, MTU and addresses.
func TestDumpMatchesHost(t *testing.T) {
	var r Replies
	Serve(request(RTM_GETLINK, NLM_F_REQUEST|NLM_F_DUMP, 1, []byte{AF_UNSPEC}), 77, &r)
	links := datagrams(t, &r)
	if len(links) != 2 || len(links[0]) != 1 || len(links[1]) != 1 || links[1][0].Header.Type != NLMSG_DONE {
		t.Fatalf("link dump: %d datagrams, want the link then NLMSG_DONE", len(links))
	}
	for _, d := range links {
		for _, m := range d {
			if m.Header.Seq != 1 || m.Header.Pid != 77 || m.Header.Flags&NLM_F_MULTI == 0 {
				t.Errorf("dump message %+v: want seq 1, pid 77, NLM_F_MULTI", m.Header)
			}
		}
	}
	Serve(request(RTM_GETADDR, NLM_F_REQUEST|NLM_F_DUMP, 1, []byte{AF_UNSPEC}), 77, &r)
	addrs := datagrams(t, &r)
	if len(addrs) != 2 || len(addrs[0]) != 2 {
		t.Fatalf("address dump: %d datagrams, want two addresses then NLMSG_DONE", len(addrs))
	}
	got := view(t, links[0], addrs[0])["lo"]
	if got == nil {
		t.Fatal("no lo in the dump")
	}
	want := &ifaceView{index: 1, flags: unix.IFF_UP | unix.IFF_LOOPBACK | unix.IFF_RUNNING | unix.IFF_LOWER_UP,
		mtu: 65536, typ: unix.ARPHRD_LOOPBACK, name: "lo", addrs: []string{"127.0.0.1/8", "::1/128"}}
	if got.index != want.index || got.flags != want.flags || got.mtu != want.mtu || got.typ != want.typ ||
		len(got.addrs) != 2 || got.addrs[0] != want.addrs[0] || got.addrs[1] != want.addrs[1] {
		t.Errorf("lo = %+v, want %+v", got, want)
	}
	if runtime.GOOS != "linux" {
		return
	}
	hl, err1 := syscall.NetlinkRIB(syscall.RTM_GETLINK, syscall.AF_UNSPEC)
	ha, err2 := syscall.NetlinkRIB(syscall.RTM_GETADDR, syscall.AF_UNSPEC)
	if err1 != nil || err2 != nil {
		t.Skipf("the host's netlink: %v, %v", err1, err2)
	}
	hlm, _ := syscall.ParseNetlinkMessage(hl)
	ham, _ := syscall.ParseNetlinkMessage(ha)
	host := view(t, hlm, ham)["lo"]
	if host == nil {
		t.Skip("the host has no lo")
	}
	if host.index != got.index || host.flags&^unix.IFF_LOWER_UP != got.flags&^unix.IFF_LOWER_UP || host.typ != got.typ {
		t.Errorf("lo = %+v, the host's %+v", got, host)
	}
	for _, a := range host.addrs {
		if a != "127.0.0.1/8" && a != "::1/128" {
			t.Logf("the host's lo has %s too", a)
		}
	}
}

// TestAddrFamily checks that an address dump keeps to the family asked for.
func TestAddrFamily(t *testing.T) {
	for _, c := range []struct {
		family byte
		want   []uint8
	}{{AF_INET, []uint8{AF_INET}}, {AF_INET6, []uint8{AF_INET6}}, {AF_UNSPEC, []uint8{AF_INET, AF_INET6}}} {
		var r Replies
		Serve(request(RTM_GETADDR, NLM_F_REQUEST|NLM_F_DUMP, 5, []byte{c.family}), 3, &r)
		d := datagrams(t, &r)
		var got []uint8
		for _, m := range d[0] {
			got = append(got, m.Data[0])
		}
		if !bytes.Equal(got, c.want) {
			t.Errorf("family %d: addresses of families %v, want %v", c.family, got, c.want)
		}
	}
}

// errorOf returns the errno and echoed header of an NLMSG_ERROR message.
func errorOf(t *testing.T, m syscall.NetlinkMessage) (int32, syscall.NlMsghdr) {
	t.Helper()
	if m.Header.Type != NLMSG_ERROR || len(m.Data) < 4+hdrLen {
		t.Fatalf("message %+v is no NLMSG_ERROR", m.Header)
	}
	var h syscall.NlMsghdr
	h.Len = binary.LittleEndian.Uint32(m.Data[4:])
	h.Type = binary.LittleEndian.Uint16(m.Data[8:])
	h.Seq = binary.LittleEndian.Uint32(m.Data[12:])
	return int32(binary.LittleEndian.Uint32(m.Data)), h
}

// TestGetLinkAndErrors checks a get of one link by index and by name, and Linux's errors and
// acknowledgements.
func TestGetLinkAndErrors(t *testing.T) {
	ifi := func(index int32, attrs ...byte) []byte {
		b := make([]byte, ifinfomsgLen, ifinfomsgLen+len(attrs))
		binary.LittleEndian.PutUint32(b[4:], uint32(index))
		return append(b, attrs...)
	}
	name := func(s string) []byte {
		b := make([]byte, align4(rtaHdrLen+len(s)+1))
		binary.LittleEndian.PutUint16(b, uint16(rtaHdrLen+len(s)+1))
		binary.LittleEndian.PutUint16(b[2:], IFLA_IFNAME)
		copy(b[rtaHdrLen:], s)
		return b
	}
	for _, c := range []struct {
		what    string
		req     []byte
		link    bool  // a link comes back
		errno   int32 // then an NLMSG_ERROR with this (0: an acknowledgement), or none if -1
		wantLen int   // the datagrams
	}{
		{"by index", request(RTM_GETLINK, NLM_F_REQUEST, 9, ifi(1)), true, -1, 1},
		{"by index, acknowledged", request(RTM_GETLINK, NLM_F_REQUEST|NLM_F_ACK, 9, ifi(1)), true, 0, 2},
		{"by name", request(RTM_GETLINK, NLM_F_REQUEST, 9, ifi(0, name("lo")...)), true, -1, 1},
		{"unknown index", request(RTM_GETLINK, NLM_F_REQUEST, 9, ifi(2)), false, -abi.ENODEV, 1},
		{"unknown name", request(RTM_GETLINK, NLM_F_REQUEST, 9, ifi(0, name("eth0")...)), false, -abi.ENODEV, 1},
		{"neither", request(RTM_GETLINK, NLM_F_REQUEST, 9, ifi(0)), false, -abi.EINVAL, 1},
		{"short", request(RTM_GETLINK, NLM_F_REQUEST, 9, []byte{0}), false, -abi.EINVAL, 1},
		{"get of an address", request(RTM_GETADDR, NLM_F_REQUEST, 9, make([]byte, 8)), false, -abi.EOPNOTSUPP, 1},
		{"new link", request(RTM_NEWLINK, NLM_F_REQUEST, 9, ifi(0)), false, -abi.EOPNOTSUPP, 1},
		{"no NLM_F_REQUEST", request(RTM_GETLINK, NLM_F_DUMP, 9, nil), false, -1, 0},
		{"no NLM_F_REQUEST, acknowledged", request(RTM_GETLINK, NLM_F_DUMP|NLM_F_ACK, 9, nil), false, 0, 1},
		{"control message", request(NLMSG_NOOP, NLM_F_REQUEST|NLM_F_ACK, 9, nil), false, 0, 1},
	} {
		var r Replies
		Serve(c.req, 12, &r)
		d := datagrams(t, &r)
		if len(d) != c.wantLen {
			t.Errorf("%s: %d datagrams, want %d", c.what, len(d), c.wantLen)
			continue
		}
		i := 0
		if c.link {
			if m := d[0][0]; m.Header.Type != RTM_NEWLINK || m.Header.Flags != 0 || m.Header.Seq != 9 || m.Header.Pid != 12 {
				t.Errorf("%s: link reply %+v", c.what, m.Header)
			}
			i++
		}
		if c.errno != -1 {
			if i >= len(d) {
				t.Errorf("%s: no NLMSG_ERROR", c.what)
				continue
			}
			errno, echo := errorOf(t, d[i][0])
			if errno != c.errno || echo.Seq != 9 {
				t.Errorf("%s: NLMSG_ERROR %d for seq %d, want %d", c.what, errno, echo.Seq, c.errno)
			}
			if errno != 0 && int(d[i][0].Header.Len) != hdrLen+4+len(c.req) {
				t.Errorf("%s: the error echoes %d bytes, want the request's %d", c.what, d[i][0].Header.Len-hdrLen-4, len(c.req))
			}
		}
	}
}

// TestSeveralMessages checks that one datagram's messages are each answered, in order, and that
// a header running past the datagram ends it.
func TestSeveralMessages(t *testing.T) {
	req := append(request(RTM_GETLINK, NLM_F_REQUEST|NLM_F_DUMP, 1, []byte{0}), request(RTM_GETADDR, NLM_F_REQUEST|NLM_F_DUMP, 2, []byte{AF_INET})...)
	bad := request(RTM_GETLINK, NLM_F_REQUEST|NLM_F_DUMP, 3, nil)
	binary.LittleEndian.PutUint32(bad, 1000)
	req = append(req, bad...)
	var r Replies
	Serve(req, 1, &r)
	d := datagrams(t, &r)
	if len(d) != 4 || d[0][0].Header.Seq != 1 || d[2][0].Header.Seq != 2 || d[2][0].Header.Type != RTM_NEWADDR || r.Lost {
		t.Errorf("%d datagrams (lost %v), want a link dump and an address dump, each with its NLMSG_DONE", len(d), r.Lost)
	}
}

// FuzzServe checks that any datagram is answered without a panic and with datagrams that parse,
// each message carrying the port.
func FuzzServe(f *testing.F) {
	f.Add(request(RTM_GETLINK, NLM_F_REQUEST|NLM_F_DUMP, 1, []byte{0}))
	f.Add(request(RTM_GETLINK, NLM_F_REQUEST|NLM_F_ACK, 1, make([]byte, 24)))
	f.Add(request(RTM_GETADDR, NLM_F_REQUEST|NLM_F_DUMP, 1, []byte{10}))
	f.Fuzz(func(t *testing.T, req []byte) {
		var r Replies
		Serve(req, 42, &r)
		for i := range r.Len() {
			msgs, err := syscall.ParseNetlinkMessage(bytes.Clone(r.Datagram(i)))
			if err != nil {
				t.Fatalf("datagram %d does not parse: %v", i, err)
			}
			for _, m := range msgs {
				if m.Header.Pid != 42 {
					t.Fatalf("message %+v not for port 42", m.Header)
				}
			}
		}
	})
}
