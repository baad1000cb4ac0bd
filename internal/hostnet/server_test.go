package hostnet

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
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

// fakeGuest is the kernel's side of the net port, as a test drives it: it sends requests and
// reads frames until its reply, keeping the events that come meanwhile.
type fakeGuest struct {
	t      *testing.T
	conn   net.Conn
	nextID uint32
	buf    []byte
	have   int
	events map[uint32]uint32 // handle -> the latest readiness
}

func startGuest(t *testing.T, opts Options) (*fakeGuest, chan error) {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	host, guest := fileConn(t, fds[0]), fileConn(t, fds[1])
	done := make(chan error, 1)
	go func() { done <- Serve(context.Background(), host, opts); host.Close() }()
	g := &fakeGuest{t: t, conn: guest, buf: make([]byte, 4*sockwire.MaxFrame), events: map[uint32]uint32{}}
	t.Cleanup(func() {
		guest.Close()
		select {
		case err := <-done:
			if err != nil && !strings.Contains(err.Error(), "refused") {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Error("Serve did not end when the guest closed its port")
		}
	})
	return g, done
}

// fileConn makes a net.Conn of fd, which it takes over (FileConn dups it).
func fileConn(t *testing.T, fd int) net.Conn {
	t.Helper()
	f := os.NewFile(uintptr(fd), "socketpair")
	defer f.Close()
	c, err := net.FileConn(f)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// next reads one frame.
func (g *fakeGuest) next() (sockwire.Header, []byte) {
	g.t.Helper()
	for {
		h, data, n, perr := sockwire.Parse(g.buf[:g.have])
		if perr != sockwire.OK {
			g.t.Fatalf("host sent a bad frame: %v", perr)
		}
		if n > 0 {
			data = append([]byte(nil), data...)
			g.have = copy(g.buf, g.buf[n:g.have])
			return h, data
		}
		g.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		m, err := g.conn.Read(g.buf[g.have:])
		if err != nil {
			g.t.Fatalf("reading the host's frames: %v", err)
		}
		g.have += m
	}
}

// call sends a request and returns its reply's A[0], A[1] and data.
func (g *fakeGuest) call(op sockwire.Op, handle uint32, a [3]int64, data []byte) (int64, int64, []byte) {
	g.t.Helper()
	g.nextID++
	b := make([]byte, sockwire.MaxFrame)
	n := sockwire.Put(b, sockwire.Header{Kind: sockwire.KindRequest, Op: op, ID: g.nextID, Handle: handle, A: a}, data)
	if _, err := g.conn.Write(b[:n]); err != nil {
		g.t.Fatal(err)
	}
	for {
		h, d := g.next()
		switch h.Kind {
		case sockwire.KindEvent:
			g.events[h.Handle] = uint32(h.A[0])
		case sockwire.KindReply:
			if h.ID != g.nextID || h.Op != op {
				g.t.Fatalf("reply %d (%v) to request %d (%v)", h.ID, h.Op, g.nextID, op)
			}
			return h.A[0], h.A[1], d
		}
	}
}

// waitEvent reads frames until handle has one of the bits.
func (g *fakeGuest) waitEvent(handle, bits uint32) uint32 {
	g.t.Helper()
	for g.events[handle]&bits == 0 {
		h, _ := g.next()
		if h.Kind != sockwire.KindEvent {
			g.t.Fatalf("a %v frame while waiting for an event", h.Kind)
		}
		g.events[h.Handle] = uint32(h.A[0])
	}
	ev := g.events[handle]
	g.events[handle] &^= bits
	return ev
}

func inet4(ip [4]byte, port int) []byte {
	return encodeAddr(nil, &syscall.SockaddrInet4{Addr: ip, Port: port})
}

func portOf(t *testing.T, addr []byte) int {
	sa, errno := decodeAddr(addr)
	if errno != 0 {
		t.Fatalf("address %x: %v", addr, errno)
	}
	return addrPort(sa)
}

func errno(e syscall.Errno) int64 { return -int64(e) }

const (
	tcp = syscall.SOCK_STREAM
	udp = syscall.SOCK_DGRAM
)

// TestTCP: a listener, a non-blocking connect (EINPROGRESS, then SO_ERROR 0), accept, bytes
// both ways, EAGAIN on an empty socket, shutdown's end of file, and EPIPE after the peer went.
func TestTCP(t *testing.T) {
	g, _ := startGuest(t, Options{})
	const ln, cl, sv = 1, 2, 3
	if r, _, _ := g.call(sockwire.OpSocket, ln, [3]int64{afINET, tcp, 0}, nil); r != 0 {
		t.Fatalf("socket: %d", r)
	}
	if r, _, _ := g.call(sockwire.OpBind, ln, [3]int64{}, inet4([4]byte{0, 0, 0, 0}, 0)); r != 0 {
		t.Fatalf("bind: %d", r)
	}
	if r, _, _ := g.call(sockwire.OpListen, ln, [3]int64{16}, nil); r != 0 {
		t.Fatalf("listen: %d", r)
	}
	r, _, addr := g.call(sockwire.OpSockName, ln, [3]int64{}, nil)
	if r != 0 || !bytes.Equal(addr[4:8], []byte{127, 0, 0, 1}) {
		t.Fatalf("getsockname = %d %x: want 127.0.0.1 (listeners bind on loopback)", r, addr)
	}
	port := portOf(t, addr)
	g.call(sockwire.OpSocket, cl, [3]int64{afINET, tcp, 0}, nil)
	r, _, _ = g.call(sockwire.OpConnect, cl, [3]int64{}, inet4([4]byte{127, 0, 0, 1}, port))
	if r != 0 && r != errno(syscall.EINPROGRESS) {
		t.Fatalf("connect = %d, want 0 or EINPROGRESS", r)
	}
	g.waitEvent(cl, syscall.EPOLLOUT)
	r, _, val := g.call(sockwire.OpGetSockOpt, cl, [3]int64{solSocket, syscall.SO_ERROR, 4}, nil)
	if r != 0 || len(val) != 4 || binary.LittleEndian.Uint32(val) != 0 {
		t.Fatalf("SO_ERROR = %d %x, want 0 and a zero int", r, val)
	}
	g.waitEvent(ln, syscall.EPOLLIN)
	r, _, peer := g.call(sockwire.OpAccept, ln, [3]int64{sv}, nil)
	if r != 0 || len(peer) != sockaddrIn {
		t.Fatalf("accept = %d %x", r, peer)
	}
	if r, _, _ := g.call(sockwire.OpRecv, sv, [3]int64{0, 100}, nil); r != errno(syscall.EAGAIN) {
		t.Fatalf("recv of an empty socket = %d, want EAGAIN", r)
	}
	msg := []byte("hello, host")
	if r, _, _ := g.call(sockwire.OpSend, cl, [3]int64{}, msg); r != int64(len(msg)) {
		t.Fatalf("send = %d", r)
	}
	g.waitEvent(sv, syscall.EPOLLIN)
	if r, _, v := g.call(sockwire.OpIoctl, sv, [3]int64{fionread}, nil); r != 0 || len(v) != 4 || binary.LittleEndian.Uint32(v) != uint32(len(msg)) {
		t.Fatalf("FIONREAD = %d %x, want %d bytes", r, v, len(msg))
	}
	if r, _, _ := g.call(sockwire.OpIoctl, sv, [3]int64{0x5401}, nil); r != errno(syscall.ENOTTY) {
		t.Fatalf("TCGETS on a socket = %d, want ENOTTY", r)
	}
	r, alen, got := g.call(sockwire.OpRecv, sv, [3]int64{0, 100}, nil)
	if r != int64(len(msg)) || alen != 0 || !bytes.Equal(got, msg) {
		t.Fatalf("recv = %d, %d, %q", r, alen, got)
	}
	if r, _, _ := g.call(sockwire.OpShutdown, cl, [3]int64{syscall.SHUT_WR}, nil); r != 0 {
		t.Fatalf("shutdown = %d", r)
	}
	g.waitEvent(sv, syscall.EPOLLRDHUP|syscall.EPOLLIN)
	if r, _, got := g.call(sockwire.OpRecv, sv, [3]int64{0, 100}, nil); r != 0 || len(got) != 0 {
		t.Fatalf("recv after the peer's shutdown = %d %q, want 0 (end of file)", r, got)
	}
	g.call(sockwire.OpClose, sv, [3]int64{}, nil)
	// The peer is gone: a send gets EPIPE once its reset has come back (the first may go out).
	var last int64
	for i := 0; i < 50 && last != errno(syscall.EPIPE); i++ {
		last, _, _ = g.call(sockwire.OpSend, cl, [3]int64{}, msg)
		time.Sleep(time.Millisecond)
	}
	if last != errno(syscall.EPIPE) {
		t.Fatalf("send to a closed peer = %d, want EPIPE", last)
	}
	if r, _, _ := g.call(sockwire.OpRecv, 99, [3]int64{0, 1}, nil); r != errno(syscall.EBADF) {
		t.Fatalf("recv on an unknown handle = %d, want EBADF", r)
	}
	if r, _, _ := g.call(sockwire.OpSetSockOpt, cl, [3]int64{solSocket, syscall.SO_DEBUG}, []byte{1, 0, 0, 0}); r != errno(syscall.ENOPROTOOPT) {
		t.Fatalf("setsockopt SO_DEBUG = %d, want ENOPROTOOPT", r)
	}
	if r, _, _ := g.call(sockwire.OpSetSockOpt, cl, [3]int64{ipprotoTCP, syscall.TCP_NODELAY}, []byte{1, 0, 0, 0}); r != 0 {
		t.Fatalf("setsockopt TCP_NODELAY = %d", r)
	}
}

// TestConnectRefused: a connection to a closed port fails with ECONNREFUSED, at once or
// through SO_ERROR after EINPROGRESS, as the same calls do when made directly.
func TestConnectRefused(t *testing.T) {
	g, _ := startGuest(t, Options{})
	port := closedPort(t)
	g.call(sockwire.OpSocket, 1, [3]int64{afINET, tcp, 0}, nil)
	r, _, _ := g.call(sockwire.OpConnect, 1, [3]int64{}, inet4([4]byte{127, 0, 0, 1}, port))
	if r == errno(syscall.EINPROGRESS) {
		g.waitEvent(1, syscall.EPOLLERR|syscall.EPOLLHUP|syscall.EPOLLOUT)
		var val []byte
		r, _, val = g.call(sockwire.OpGetSockOpt, 1, [3]int64{solSocket, syscall.SO_ERROR, 4}, nil)
		if r == 0 {
			r = -int64(binary.LittleEndian.Uint32(val))
		}
	}
	if r != errno(syscall.ECONNREFUSED) {
		t.Fatalf("connect to a closed port: %d, want ECONNREFUSED", r)
	}
	// The same, directly.
	fd, _ := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_NONBLOCK, 0)
	defer syscall.Close(fd)
	err := syscall.Connect(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}, Port: port})
	if err == syscall.EINPROGRESS {
		time.Sleep(50 * time.Millisecond)
		v, _ := syscall.GetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_ERROR)
		err = syscall.Errno(v)
	}
	if err != syscall.ECONNREFUSED {
		t.Fatalf("direct connect to a closed port: %v", err)
	}
}

func closedPort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return port
}

// TestUDP: datagrams with addresses, both ways.
func TestUDP(t *testing.T) {
	g, _ := startGuest(t, Options{})
	g.call(sockwire.OpSocket, 1, [3]int64{afINET, udp, 0}, nil)
	g.call(sockwire.OpSocket, 2, [3]int64{afINET, udp, 0}, nil)
	g.call(sockwire.OpBind, 1, [3]int64{}, inet4([4]byte{127, 0, 0, 1}, 0))
	_, _, a := g.call(sockwire.OpSockName, 1, [3]int64{}, nil)
	msg := []byte("ping")
	data := append(append([]byte(nil), a...), msg...)
	if r, _, _ := g.call(sockwire.OpSend, 2, [3]int64{0, int64(len(a))}, data); r != 4 {
		t.Fatalf("sendto = %d", r)
	}
	g.waitEvent(1, syscall.EPOLLIN)
	r, alen, got := g.call(sockwire.OpRecv, 1, [3]int64{0, 100}, nil)
	if r != 4 || alen != sockaddrIn || !bytes.Equal(got[alen:], msg) {
		t.Fatalf("recvfrom = %d %d %x", r, alen, got)
	}
	from := got[:alen]
	echo := append(append([]byte(nil), from...), []byte("pong")...)
	g.call(sockwire.OpSend, 1, [3]int64{0, alen}, echo)
	g.waitEvent(2, syscall.EPOLLIN)
	if r, _, got := g.call(sockwire.OpRecv, 2, [3]int64{0, 100}, nil); r != 4 || string(got[sockaddrIn:]) != "pong" {
		t.Fatalf("echo = %d %q", r, got)
	}
	// Truncation: a datagram longer than asked reports its length with MSG_TRUNC.
	g.call(sockwire.OpSend, 2, [3]int64{0, int64(len(a))}, append(append([]byte(nil), a...), []byte("0123456789")...))
	g.waitEvent(1, syscall.EPOLLIN)
	if r, alen, got := g.call(sockwire.OpRecv, 1, [3]int64{syscall.MSG_TRUNC, 3}, nil); r != 10 || string(got[alen:]) != "012" {
		t.Fatalf("recv MSG_TRUNC = %d %q, want 10 and the first 3 bytes", r, got[alen:])
	}
}

// TestListenRemapAndLog: -listen moves a guest port, getsockname still shows the guest's, and
// the launcher says where the listener is.
func TestListenRemapAndLog(t *testing.T) {
	hostPort := closedPort(t)
	var log bytes.Buffer
	g, _ := startGuest(t, Options{Listen: map[uint16]netip.AddrPort{8080: netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(hostPort))}, Log: &log})
	g.call(sockwire.OpSocket, 1, [3]int64{afINET, tcp, 0}, nil)
	if r, _, _ := g.call(sockwire.OpBind, 1, [3]int64{}, inet4([4]byte{}, 8080)); r != 0 {
		t.Fatalf("bind = %d", r)
	}
	g.call(sockwire.OpListen, 1, [3]int64{4}, nil)
	_, _, a := g.call(sockwire.OpSockName, 1, [3]int64{}, nil)
	if p := portOf(t, a); p != 8080 {
		t.Errorf("getsockname port %d, want the guest's 8080", p)
	}
	c, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(hostPort)))
	if err != nil {
		t.Fatalf("dialing the mapped port: %v", err)
	}
	c.Close()
	if want := "guest port 8080"; !strings.Contains(log.String(), want) {
		t.Errorf("log %q lacks %q", log.String(), want)
	}
}

// TestDualStack: a guest listening on [::] with IPV6_V6ONLY off (Go's ":port") is reached by
// IPv4 clients on 127.0.0.1, as on Linux.
func TestDualStack(t *testing.T) {
	g, _ := startGuest(t, Options{})
	g.call(sockwire.OpSocket, 1, [3]int64{afINET6, tcp, 0}, nil)
	g.call(sockwire.OpSetSockOpt, 1, [3]int64{ipprotoIPv6, syscall.IPV6_V6ONLY}, []byte{0, 0, 0, 0})
	any6 := encodeAddr(nil, &syscall.SockaddrInet6{})
	if r, _, _ := g.call(sockwire.OpBind, 1, [3]int64{}, any6); r != 0 {
		t.Fatalf("bind [::]:0 = %d", r)
	}
	g.call(sockwire.OpListen, 1, [3]int64{4}, nil)
	_, _, a := g.call(sockwire.OpSockName, 1, [3]int64{}, nil)
	c, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(portOf(t, a))))
	if err != nil {
		t.Fatalf("an IPv4 client: %v", err)
	}
	c.Close()
}

func TestNoOutbound(t *testing.T) {
	g, _ := startGuest(t, Options{NoOutbound: true})
	g.call(sockwire.OpSocket, 1, [3]int64{afINET, tcp, 0}, nil)
	if r, _, _ := g.call(sockwire.OpConnect, 1, [3]int64{}, inet4([4]byte{192, 0, 2, 1}, 80)); r != errno(syscall.ENETUNREACH) {
		t.Fatalf("connect outside = %d, want ENETUNREACH", r)
	}
}

func TestRefusals(t *testing.T) {
	g, done := startGuest(t, Options{})
	if r, _, _ := g.call(sockwire.OpSocket, 1, [3]int64{syscall.AF_UNIX, tcp, 0}, nil); r != errno(syscall.EAFNOSUPPORT) {
		t.Errorf("AF_UNIX socket = %d, want EAFNOSUPPORT", r)
	}
	if r, _, _ := g.call(sockwire.OpSocket, 1, [3]int64{afINET, syscall.SOCK_RAW, 0}, nil); r != errno(syscall.ESOCKTNOSUPPORT) {
		t.Errorf("SOCK_RAW = %d, want ESOCKTNOSUPPORT", r)
	}
	g.call(sockwire.OpSocket, 1, [3]int64{afINET, tcp, 0}, nil)
	if r, _, _ := g.call(sockwire.OpSocket, 1, [3]int64{afINET, tcp, 0}, nil); r != errno(syscall.EBADF) {
		t.Errorf("a handle used twice = %d, want EBADF", r)
	}
	if r, _, _ := g.call(sockwire.OpBind, 1, [3]int64{}, []byte{2, 0}); r != errno(syscall.EINVAL) {
		t.Errorf("a short address = %d, want EINVAL", r)
	}
	// A reply from the guest is no request: the stream is refused, and Serve returns.
	b := make([]byte, sockwire.HeaderSize)
	sockwire.Put(b, sockwire.Header{Kind: sockwire.KindReply, Op: sockwire.OpClose, ID: 1}, nil)
	g.conn.Write(b)
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "refused") {
			t.Errorf("Serve after a reply from the guest: %v", err)
		}
		done <- err
	case <-time.After(5 * time.Second):
		t.Fatal("Serve hung on a bad frame")
	}
}

// FuzzGuestStream: whatever the guest sends, Serve returns (an error or nil at the stream's
// end) and never panics. It is offline, so the fuzzer's connections and datagrams reach
// nothing.
func FuzzGuestStream(f *testing.F) {
	b := make([]byte, sockwire.MaxFrame)
	n := sockwire.Put(b, sockwire.Header{Kind: sockwire.KindRequest, Op: sockwire.OpSocket, ID: 1, Handle: 1, A: [3]int64{afINET, tcp, 0}}, nil)
	seed := append([]byte(nil), b[:n]...)
	n = sockwire.Put(b, sockwire.Header{Kind: sockwire.KindRequest, Op: sockwire.OpRecv, ID: 2, Handle: 1, A: [3]int64{0, 10}}, nil)
	seed = append(seed, b[:n]...)
	f.Add(seed)
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, in []byte) {
		rw := &scripted{in: bytes.NewReader(in)}
		err := Serve(context.Background(), rw, Options{Offline: true})
		if err != nil && errors.Is(err, errPanic) {
			t.Fatal(err)
		}
	})
}

var errPanic = errors.New("panic")

// scripted is a guest that sends its bytes and then ends; what the host writes is dropped.
type scripted struct{ in *bytes.Reader }

func (s *scripted) Read(p []byte) (int, error)  { return s.in.Read(p) }
func (s *scripted) Write(p []byte) (int, error) { return len(p), nil }
