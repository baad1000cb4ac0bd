package hostnet

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/unitrace/unitrace/kernel/sockwire"
)

// sockName is the guest socket's address as the host socket has it (getsockname of the host
// fd: the guest's answer is the host's unless -listen moved the port).
func sockName(t *testing.T, g *fakeGuest, h uint32) netip.AddrPort {
	t.Helper()
	r, _, a := g.call(sockwire.OpSockName, h, [3]int64{}, nil)
	if r != 0 {
		t.Fatalf("getsockname = %d", r)
	}
	sa, e := decodeAddr(a)
	if e != 0 {
		t.Fatalf("getsockname's address %x: %v", a, e)
	}
	return addrOf(sa)
}

// localAddr is an address of this machine other than loopback (and link-local), of the
// family; ok is false when it has none.
func localAddr(v6 bool) (netip.Addr, bool) {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return netip.Addr{}, false
	}
	for _, a := range addrs {
		p, err := netip.ParsePrefix(a.String())
		if err != nil {
			continue
		}
		ip := p.Addr()
		if ip.IsLoopback() || ip.IsLinkLocalUnicast() || ip.Is4() == v6 {
			continue
		}
		return ip, true
	}
	return netip.Addr{}, false
}

// procListener is the local address of the socket listening on port in /proc/net/tcp or tcp6,
// or ok false.
func procListener(t *testing.T, port uint16) (netip.Addr, bool) {
	t.Helper()
	for _, file := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(file)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 4 || fields[3] != "0A" { // TCP_LISTEN
				continue
			}
			addr, p, ok := strings.Cut(fields[1], ":")
			if n, err := strconv.ParseUint(p, 16, 16); !ok || err != nil || uint16(n) != port {
				continue
			}
			f.Close()
			return procAddr(t, addr), true
		}
		f.Close()
	}
	return netip.Addr{}, false
}

// procAddr reads /proc/net/tcp's hex address: 32-bit words in the host's byte order.
func procAddr(t *testing.T, hex string) netip.Addr {
	t.Helper()
	var b []byte
	for i := 0; i+8 <= len(hex); i += 8 {
		w, err := strconv.ParseUint(hex[i:i+8], 16, 32)
		if err != nil {
			t.Fatalf("address %q", hex)
		}
		b = binary.NativeEndian.AppendUint32(b, uint32(w))
	}
	a, ok := netip.AddrFromSlice(b)
	if !ok {
		t.Fatalf("address %q", hex)
	}
	return a
}

// dialRefused dials addr:port and wants ECONNREFUSED: nothing listens there.
func dialRefused(t *testing.T, a netip.Addr, port uint16) {
	t.Helper()
	c, err := net.DialTimeout("tcp", netip.AddrPortFrom(a, port).String(), 5*time.Second)
	if err == nil {
		c.Close()
		t.Errorf("a connection from %v to the guest's listener was accepted: it must listen on loopback only", a)
		return
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("dial %v: %v, want ECONNREFUSED", a, err)
	}
}

// TestListenWithoutBind: listen on a socket never bound binds the loopback address of its
// family on the host, with an ephemeral port, where Linux would bind every interface; the host
// sees it there (/proc/net/tcp), the launcher says so, a client on loopback connects and one
// from the machine's other addresses is refused.
func TestListenWithoutBind(t *testing.T) {
	lo4 := netip.MustParseAddr("127.0.0.1")
	for _, tc := range []struct {
		name   string
		domain int64
		v6only int // -1: left as it is (off, Linux's default)
		want   netip.Addr
		dial   netip.Addr
	}{
		{"ipv4", afINET, -1, lo4, lo4},
		{"ipv6 dual-stack", afINET6, -1, netip.AddrFrom16(lo4.As16()), lo4},
		{"ipv6 v6only", afINET6, 1, netip.IPv6Loopback(), netip.IPv6Loopback()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log bytes.Buffer
			g, _ := startGuest(t, Options{Log: &log})
			if r, _, _ := g.call(sockwire.OpSocket, 1, [3]int64{tc.domain, tcp, 0}, nil); r != 0 {
				t.Fatalf("socket = %d", r)
			}
			if tc.v6only >= 0 {
				g.call(sockwire.OpSetSockOpt, 1, [3]int64{ipprotoIPv6, syscall.IPV6_V6ONLY}, []byte{byte(tc.v6only), 0, 0, 0})
			}
			if r, _, _ := g.call(sockwire.OpListen, 1, [3]int64{8}, nil); r != 0 {
				t.Fatalf("listen = %d", r)
			}
			got := sockName(t, g, 1)
			if got.Addr() != tc.want || got.Port() == 0 {
				t.Fatalf("the host socket is bound at %v, want %v and an ephemeral port", got, tc.want)
			}
			if want := fmt.Sprintf("unitrace: the guest listens on %s\n", netip.AddrPortFrom(tc.want.Unmap(), got.Port())); log.String() != want {
				t.Errorf("log %q, want %q", log.String(), want)
			}
			if a, ok := procListener(t, got.Port()); !ok || a != tc.want {
				t.Errorf("/proc/net/tcp: the listener on port %d is at %v (found %v), want %v", got.Port(), a, ok, tc.want)
			}
			c, err := net.Dial("tcp", netip.AddrPortFrom(tc.dial, got.Port()).String())
			if err != nil {
				t.Fatalf("a client on loopback: %v", err)
			}
			c.Close()
			checked := false
			for _, v6 := range []bool{false, true} {
				if a, ok := localAddr(v6); ok {
					dialRefused(t, a, got.Port())
					checked = true
				}
			}
			if !checked {
				t.Log("this machine has no address but loopback: no connection from elsewhere tried")
			}
		})
	}
}

// TestListenNotStream: listen on a datagram socket is Linux's EOPNOTSUPP, and binds nothing.
func TestListenNotStream(t *testing.T) {
	g, _ := startGuest(t, Options{})
	g.call(sockwire.OpSocket, 1, [3]int64{afINET, udp, 0}, nil)
	if r, _, _ := g.call(sockwire.OpListen, 1, [3]int64{8}, nil); r != errno(syscall.EOPNOTSUPP) {
		t.Fatalf("listen on UDP = %d, want EOPNOTSUPP", r)
	}
	if a := sockName(t, g, 1); a.Port() != 0 {
		t.Errorf("after the failed listen the socket is bound at %v", a)
	}
}

// TestExplicitBind: bind of the unspecified address, or of another address of the machine,
// binds loopback; port 0 stays an ephemeral port; only -listen puts a listener elsewhere.
func TestExplicitBind(t *testing.T) {
	other, haveOther := localAddr(false)
	var log bytes.Buffer
	hostPort := closedPort(t)
	g, _ := startGuest(t, Options{Log: &log, Listen: map[uint16]netip.AddrPort{
		9: netip.AddrPortFrom(netip.IPv4Unspecified(), uint16(hostPort))}})
	lo4, lo6 := netip.MustParseAddr("127.0.0.1"), netip.IPv6Loopback()
	h := uint32(0)
	bind := func(domain, typ int64, v6only bool, sa syscall.Sockaddr) netip.AddrPort {
		t.Helper()
		h++
		g.call(sockwire.OpSocket, h, [3]int64{domain, typ, 0}, nil)
		if v6only {
			g.call(sockwire.OpSetSockOpt, h, [3]int64{ipprotoIPv6, syscall.IPV6_V6ONLY}, []byte{1, 0, 0, 0})
		}
		if r, _, _ := g.call(sockwire.OpBind, h, [3]int64{}, encodeAddr(nil, sa)); r != 0 {
			t.Fatalf("bind %v = %d", addrOf(sa), r)
		}
		return sockName(t, g, h)
	}
	type bindCase struct {
		domain, typ int64
		v6only      bool
		sa          syscall.Sockaddr
		want        netip.Addr
	}
	cases := []bindCase{
		{afINET, tcp, false, &syscall.SockaddrInet4{}, lo4},
		{afINET, udp, false, &syscall.SockaddrInet4{}, lo4},
		{afINET6, tcp, true, &syscall.SockaddrInet6{}, lo6},
		{afINET6, udp, false, &syscall.SockaddrInet6{}, netip.AddrFrom16(lo4.As16())},
	}
	if haveOther {
		cases = append(cases, bindCase{afINET, tcp, false, &syscall.SockaddrInet4{Addr: other.As4()}, lo4})
	}
	for _, tc := range cases {
		if got := bind(tc.domain, tc.typ, tc.v6only, tc.sa); got.Addr() != tc.want || got.Port() == 0 {
			t.Errorf("bind %v (family %d, type %d) bound %v on the host, want %v and an ephemeral port", addrOf(tc.sa), tc.domain, tc.typ, got, tc.want)
		}
	}
	// -listen 9=0.0.0.0:PORT: the user's word, the only way past loopback.
	got := bind(afINET, tcp, false, &syscall.SockaddrInet4{Port: 9})
	if r, _, _ := g.call(sockwire.OpListen, h, [3]int64{8}, nil); r != 0 {
		t.Fatalf("listen of the mapped socket = %d", r)
	}
	if a, ok := procListener(t, uint16(hostPort)); !ok || !a.IsUnspecified() || got.Port() != 9 {
		t.Errorf("-listen 9=0.0.0.0:%d: on the host at %v (%v), getsockname port %d", hostPort, a, ok, got.Port())
	}
	if !strings.Contains(log.String(), fmt.Sprintf("listens on 0.0.0.0:%d (guest port 9)", hostPort)) {
		t.Errorf("log %q", log.String())
	}
}

// udpPeer is a host UDP socket at addr; it answers every datagram with "re:" and the datagram.
func udpPeer(t *testing.T, addr netip.Addr) *net.UDPConn {
	t.Helper()
	c, err := net.ListenUDP("udp", net.UDPAddrFromAddrPort(netip.AddrPortFrom(addr, 0)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// echoOnce reads one datagram on c and sends it back to its sender.
func echoOnce(t *testing.T, c *net.UDPConn) netip.AddrPort {
	t.Helper()
	buf := make([]byte, 100)
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	n, from, err := c.ReadFromUDPAddrPort(buf)
	if err != nil {
		t.Fatalf("the peer's read: %v", err)
	}
	if _, err := c.WriteToUDPAddrPort(append([]byte("re:"), buf[:n]...), from); err != nil {
		t.Fatal(err)
	}
	return from
}

// sendTo is the guest's sendto of msg to ap (in the socket's own family's layout if v6).
func sendTo(g *fakeGuest, h uint32, sa syscall.Sockaddr, msg string) int64 {
	a := encodeAddr(nil, sa)
	r, _, _ := g.call(sockwire.OpSend, h, [3]int64{0, int64(len(a))}, append(a, msg...))
	return r
}

// recvNow is the guest's recv: the bytes, or "" after EAGAIN once wait has passed.
func recvNow(t *testing.T, g *fakeGuest, h uint32, wait time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(wait)
	for {
		r, alen, got := g.call(sockwire.OpRecv, h, [3]int64{0, 100}, nil)
		if r >= 0 {
			return string(got[alen:])
		}
		if r != errno(syscall.EAGAIN) {
			t.Fatalf("recv = %d", r)
		}
		if time.Now().After(deadline) {
			return ""
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestUDPSendWithoutBind: a datagram socket's first sendto to loopback binds loopback, of the
// family the peer has, where Linux would bind every interface; the reply comes back.
func TestUDPSendWithoutBind(t *testing.T) {
	lo4 := netip.MustParseAddr("127.0.0.1")
	peer4, peer6 := udpPeer(t, lo4), udpPeer(t, netip.IPv6Loopback())
	p4, p6 := peer4.LocalAddr().(*net.UDPAddr).AddrPort(), peer6.LocalAddr().(*net.UDPAddr).AddrPort()
	for _, tc := range []struct {
		name   string
		domain int64
		to     syscall.Sockaddr
		peer   *net.UDPConn
		want   netip.Addr
	}{
		{"ipv4", afINET, sockaddr(afINET, p4), peer4, lo4},
		{"ipv6 to ::1", afINET6, sockaddr(afINET6, p6), peer6, netip.IPv6Loopback()},
		{"ipv6 to mapped 127.0.0.1", afINET6, sockaddr(afINET6, p4), peer4, netip.AddrFrom16(lo4.As16())},
		{"ipv6 to sockaddr_in 127.0.0.1", afINET6, sockaddr(afINET, p4), peer4, netip.AddrFrom16(lo4.As16())},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, _ := startGuest(t, Options{})
			g.call(sockwire.OpSocket, 1, [3]int64{tc.domain, udp, 0}, nil)
			if r := sendTo(g, 1, tc.to, "hi"); r != 2 {
				t.Fatalf("sendto = %d", r)
			}
			if got := sockName(t, g, 1); got.Addr() != tc.want || got.Port() == 0 {
				t.Errorf("the host socket is bound at %v, want %v", got, tc.want)
			}
			echoOnce(t, tc.peer)
			if got := recvNow(t, g, 1, 5*time.Second); got != "re:hi" {
				t.Errorf("the reply: %q", got)
			}
		})
	}
	// Sends that fail bind nothing, where Linux binds every interface before it answers.
	g, _ := startGuest(t, Options{})
	g.call(sockwire.OpSocket, 1, [3]int64{afINET, udp, 0}, nil)
	if r, _, _ := g.call(sockwire.OpSend, 1, [3]int64{}, []byte("x")); r != errno(syscall.EDESTADDRREQ) {
		t.Errorf("send without an address = %d, want EDESTADDRREQ", r)
	}
	if r := sendTo(g, 1, sockaddr(afINET6, p6), "x"); r != errno(syscall.EAFNOSUPPORT) {
		t.Errorf("IPv4 socket's sendto an IPv6 address = %d, want EAFNOSUPPORT", r)
	}
	g.call(sockwire.OpSocket, 2, [3]int64{afINET6, udp, 0}, nil)
	g.call(sockwire.OpSetSockOpt, 2, [3]int64{ipprotoIPv6, syscall.IPV6_V6ONLY}, []byte{1, 0, 0, 0})
	if r := sendTo(g, 2, sockaddr(afINET, p4), "x"); r != errno(syscall.ENETUNREACH) {
		t.Errorf("IPV6_V6ONLY socket's sendto an IPv4 address = %d, want ENETUNREACH", r)
	}
	for h := uint32(1); h <= 2; h++ {
		if a := sockName(t, g, h); a.Port() != 0 {
			t.Errorf("socket %d is bound at %v after failed sends", h, a)
		}
	}
	// -net's refusal comes first: nothing is bound.
	g2, _ := startGuest(t, Options{NoOutbound: true})
	g2.call(sockwire.OpSocket, 1, [3]int64{afINET, udp, 0}, nil)
	if r := sendTo(g2, 1, &syscall.SockaddrInet4{Addr: [4]byte{192, 0, 2, 200}, Port: 9}, "x"); r != errno(syscall.ENETUNREACH) {
		t.Errorf("NoOutbound sendto = %d", r)
	}
	if a := sockName(t, g2, 1); a.Port() != 0 {
		t.Errorf("bound at %v after a refused send", a)
	}
}

// TestUDPConnectWithoutBind: a datagram socket's connect binds loopback for a loopback peer,
// and a connect the family cannot make binds nothing (Linux binds every interface first).
func TestUDPConnectWithoutBind(t *testing.T) {
	lo4 := netip.MustParseAddr("127.0.0.1")
	peer := udpPeer(t, lo4)
	p := peer.LocalAddr().(*net.UDPAddr).AddrPort()
	g, _ := startGuest(t, Options{})
	g.call(sockwire.OpSocket, 1, [3]int64{afINET, udp, 0}, nil)
	if r, _, _ := g.call(sockwire.OpConnect, 1, [3]int64{}, encodeAddr(nil, sockaddr(afINET, p))); r != 0 {
		t.Fatalf("connect = %d", r)
	}
	if got := sockName(t, g, 1); got.Addr() != lo4 || got.Port() == 0 {
		t.Errorf("bound at %v, want 127.0.0.1", got)
	}
	if r, _, _ := g.call(sockwire.OpSend, 1, [3]int64{}, []byte("hi")); r != 2 {
		t.Fatalf("send = %d", r)
	}
	echoOnce(t, peer)
	if got := recvNow(t, g, 1, 5*time.Second); got != "re:hi" {
		t.Errorf("the reply: %q", got)
	}
	g.call(sockwire.OpSocket, 2, [3]int64{afINET6, udp, 0}, nil)
	g.call(sockwire.OpSetSockOpt, 2, [3]int64{ipprotoIPv6, syscall.IPV6_V6ONLY}, []byte{1, 0, 0, 0})
	if r, _, _ := g.call(sockwire.OpConnect, 2, [3]int64{}, encodeAddr(nil, sockaddr(afINET, p))); r != errno(syscall.EAFNOSUPPORT) {
		t.Errorf("IPV6_V6ONLY connect to sockaddr_in = %d, want EAFNOSUPPORT", r)
	}
	if a := sockName(t, g, 2); a.Port() != 0 {
		t.Errorf("bound at %v after a failed connect", a)
	}
	// TCP's connect binds the route's source, as Linux does: a connected stream accepts nothing.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	g.call(sockwire.OpSocket, 3, [3]int64{afINET, tcp, 0}, nil)
	r, _, _ := g.call(sockwire.OpConnect, 3, [3]int64{}, encodeAddr(nil, sockaddr(afINET, ln.Addr().(*net.TCPAddr).AddrPort())))
	if r != 0 && r != errno(syscall.EINPROGRESS) {
		t.Fatalf("TCP connect = %d", r)
	}
	if got := sockName(t, g, 3); got.Addr() != lo4 {
		t.Errorf("TCP connect to loopback bound %v", got)
	}
}

// TestUDPSendElsewhere: a datagram socket's first sendto to an address other than loopback
// binds the one address the host's routing sends from to it, not every interface, and takes
// datagrams only from the peers it sent to: another sender, even at the peer's address, is
// dropped by the host kernel. A connect does the same. It needs an address of this machine
// other than loopback to stand for the other host.
func TestUDPSendElsewhere(t *testing.T) {
	for _, v6 := range []bool{false, true} {
		other, ok := localAddr(v6)
		if !ok {
			t.Logf("no address but loopback for IPv6 %v: skipped", v6)
			continue
		}
		domain := int64(afINET)
		if v6 {
			domain = afINET6
		}
		for _, connect := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v connect=%v", other, connect), func(t *testing.T) {
				peer, stranger, strangerLo := udpPeer(t, other), udpPeer(t, other), udpPeer(t, netip.MustParseAddr("127.0.0.1"))
				if v6 {
					strangerLo = udpPeer(t, netip.IPv6Loopback())
				}
				p := peer.LocalAddr().(*net.UDPAddr).AddrPort()
				g, _ := startGuest(t, Options{})
				g.call(sockwire.OpSocket, 1, [3]int64{domain, udp, 0}, nil)
				if connect {
					if r, _, _ := g.call(sockwire.OpConnect, 1, [3]int64{}, encodeAddr(nil, sockaddr(int(domain), p))); r != 0 {
						t.Fatalf("connect = %d", r)
					}
					if r, _, _ := g.call(sockwire.OpSend, 1, [3]int64{}, []byte("hi")); r != 2 {
						t.Fatalf("send = %d", r)
					}
				} else if r := sendTo(g, 1, sockaddr(int(domain), p), "hi"); r != 2 {
					t.Fatalf("sendto = %d", r)
				}
				me := sockName(t, g, 1)
				if me.Addr().Unmap() != other || me.Port() == 0 {
					t.Fatalf("the host socket is bound at %v, want %v (the route's source) and an ephemeral port", me, other)
				}
				for _, s := range []*net.UDPConn{stranger, strangerLo} {
					if _, err := s.WriteToUDPAddrPort([]byte("stranger"), me); err != nil {
						t.Fatal(err)
					}
				}
				echoOnce(t, peer)
				if got := recvNow(t, g, 1, 5*time.Second); got != "re:hi" {
					t.Errorf("first datagram %q, want the peer's reply (the strangers' dropped)", got)
				}
				if got := recvNow(t, g, 1, 200*time.Millisecond); got != "" {
					t.Errorf("a datagram from a stranger came through: %q", got)
				}
				if connect {
					return
				}
				// A second peer, sent to, is let in too.
				second := udpPeer(t, other)
				if r := sendTo(g, 1, sockaddr(int(domain), second.LocalAddr().(*net.UDPAddr).AddrPort()), "two"); r != 3 {
					t.Fatalf("sendto the second peer = %d", r)
				}
				echoOnce(t, second)
				if got := recvNow(t, g, 1, 5*time.Second); got != "re:two" {
					t.Errorf("the second peer's reply: %q", got)
				}
			})
		}
	}
}

// TestPeerFilterSize: the most peers a socket keeps fit a classic BPF program (4096
// instructions), and every jump stays inside its block.
func TestPeerFilterSize(t *testing.T) {
	var peers []netip.AddrPort
	for i := range maxPeers {
		peers = append(peers, netip.AddrPortFrom(netip.AddrFrom16([16]byte{0xfd, 15: byte(i)}), uint16(i+1)))
	}
	prog := peerFilter(afINET6, peers)
	if len(prog) > 4096 {
		t.Fatalf("%d instructions", len(prog))
	}
	for i, ins := range prog {
		if ins.Code&0x07 != syscall.BPF_JMP {
			continue
		}
		// A mismatch goes to the next peer's block (its first load) or to the final drop.
		to := i + 1 + int(ins.Jf)
		if to >= len(prog) || (to != len(prog)-1 && prog[to].Code != syscall.BPF_LD|syscall.BPF_B|syscall.BPF_ABS) {
			t.Fatalf("instruction %d's mismatch goes to %d of %d (%+v)", i, to, len(prog), prog[min(to, len(prog)-1)])
		}
	}
	if last := prog[len(prog)-1]; last.Code != syscall.BPF_RET|syscall.BPF_K || last.K != 0 {
		t.Errorf("the program ends with %+v, want a drop", last)
	}
	// An IPv4 socket's filter leaves IPv6 peers out.
	if n := len(peerFilter(afINET, peers)); n != 1 {
		t.Errorf("an IPv4 socket's filter for IPv6 peers has %d instructions, want the drop alone", n)
	}
}

// TestSocketProtocols: TCP and UDP by number or 0; SCTP, UDP-Lite and ICMP echo are refused.
func TestSocketProtocols(t *testing.T) {
	g, _ := startGuest(t, Options{})
	h := uint32(0)
	for _, tc := range []struct {
		typ, proto int64
		want       int64
	}{
		{tcp, 0, 0}, {tcp, syscall.IPPROTO_TCP, 0}, {udp, 0, 0}, {udp, syscall.IPPROTO_UDP, 0},
		{tcp, 132 /* SCTP */, errno(syscall.EPROTONOSUPPORT)}, {tcp, syscall.IPPROTO_UDP, errno(syscall.EPROTONOSUPPORT)},
		{udp, 136 /* UDP-Lite */, errno(syscall.EPROTONOSUPPORT)}, {udp, syscall.IPPROTO_ICMP, errno(syscall.EPROTONOSUPPORT)},
	} {
		h++
		if r, _, _ := g.call(sockwire.OpSocket, h, [3]int64{afINET, tc.typ, tc.proto}, nil); r != tc.want {
			t.Errorf("socket(AF_INET, %d, %d) = %d, want %d", tc.typ, tc.proto, r, tc.want)
		}
	}
}
