package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/unitrace/unitrace/trace/ctl"
	"github.com/unitrace/unitrace/trace/wire"
)

func TestReplaceID(t *testing.T) {
	for _, tt := range []struct {
		in, want string
		ok       bool
	}{
		{`{"id":7,"ok":true}`, `{"id":1,"ok":true}`, true},
		{`{"ok":true, "id" : 4294967295 ,"stacks":{"id":3}}`, `{"ok":true, "id" : 1 ,"stacks":{"id":3}}`, true},
		{`{"stacks":{"id":3},"id":12}`, `{"stacks":{"id":3},"id":1}`, true},
		{`{"error":"x id 5","id":5}`, `{"error":"x id 5","id":1}`, true},
		{`{"error":"internal error"}`, ``, false},
		{`{"id":"5"}`, ``, false},
		{`{"id":-5}`, ``, false},
		{`[1]`, ``, false},
		{`{"id":`, ``, false},
	} {
		got, ok := replaceID([]byte(tt.in), 1)
		if ok != tt.ok || (ok && string(got) != tt.want) {
			t.Errorf("replaceID(%s) = %s, %v; want %s, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// fakeAgent answers each CMD frame on conn as the agent would, with the command's id and its
// sig, in the order they came. Before the first reply it sends an EVENT and a RESP to an id
// nobody was given; it hangs up after hangup replies.
func fakeAgent(t *testing.T, conn net.Conn, hangup int, got chan<- ctl.Command) {
	t.Helper()
	rd, w := wire.NewReader(conn), wire.NewWriter(conn)
	w.WriteFrame(wire.TypeEvent, 0, []byte(`{"event":"hi"}`))
	w.WriteFrame(wire.TypeResp, 0, []byte(`{"id":999,"ok":true}`))
	for range hangup {
		f, err := rd.Next()
		if err != nil {
			t.Errorf("fake guest: %v", err)
			return
		}
		c, e := ctl.Parse(f.Payload)
		if e != ctl.ErrNone {
			t.Errorf("fake guest got %q: %s", f.Payload, e.Message())
			return
		}
		if got != nil {
			got <- c
		}
		w.WriteFrame(wire.TypeResp, 0, fmt.Appendf(nil, `{"id":%d,"ok":true,"sig":%d}`, c.ID, c.Sig))
	}
	conn.Close()
}

// TestCtlProxy: two clients of run -ctl SOCK that both use id 1 get each their own reply,
// with id 1; commands sent before the guest connects wait for it, in order; a malformed
// command is refused by the proxy, in the guest's words, without reaching the guest; EVENTs
// reach every client, and frames nobody asked for are logged; when the guest hangs up, a
// client waiting for a reply is told so.
func TestCtlProxy(t *testing.T) {
	var log lockedBuffer
	mux := newCtlMux(&log, "unitrace run: ")
	sock := filepath.Join(t.TempDir(), "ctl.sock")
	proxy, err := listenCtlProxy(sock, mux)
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.close()

	// The launcher's own command, before the guest is there.
	own := make(chan []byte, 1)
	if err := mux.send(ctl.Command{ID: 1, Op: ctl.OpSignal, Has: ctl.HasSig, Sig: 2}, func(r []byte) { own <- r }); err != nil {
		t.Fatal(err)
	}
	a, b := dialProxy(t, sock), dialProxy(t, sock)
	a.send(t, `{"id":1,"cmd":"signal","sig":10}`)
	b.send(t, `{"id":1,"cmd":"signal","sig":12}`)
	b.send(t, `{"id":5,"cmd":"signal","sig":99}`) // the proxy refuses it
	time.Sleep(50 * time.Millisecond)             // both are queued now

	host, guest := socketPair(t)
	got := make(chan ctl.Command, 8)
	go fakeAgent(t, guest, 3, got)
	go mux.attach(host)

	if r := <-own; string(r) != `{"id":1,"ok":true,"sig":2}` {
		t.Errorf("launcher's reply: %s", r)
	}
	var order []uint8
	for range 3 {
		c := <-got
		order = append(order, c.Sig)
	}
	if o := fmt.Sprint(order); o != "[2 10 12]" && o != "[2 12 10]" {
		t.Errorf("the guest got the signals %v, want 2 (the first sent) and then 10 and 12", order)
	}
	if f := a.next(t, wire.TypeEvent); string(f) != `{"event":"hi"}` {
		t.Errorf("client a's event: %s", f)
	}
	if r := a.next(t, wire.TypeResp); string(r) != `{"id":1,"ok":true,"sig":10}` {
		t.Errorf("client a's reply: %s", r)
	}
	if r := b.next(t, wire.TypeResp); string(r) != `{"id":5,"error":"bad signal (sig must be 1..64)"}` {
		t.Errorf("client b's refused command: %s", r)
	}
	b.next(t, wire.TypeEvent)
	if r := b.next(t, wire.TypeResp); string(r) != `{"id":1,"ok":true,"sig":12}` {
		t.Errorf("client b's reply: %s", r)
	}
	// The guest hung up after three replies: this command gets none.
	if _, err := a.conn.Read(make([]byte, 1)); err == nil {
		t.Error("client a's connection is still open after the guest hung up")
	}
	proxy.close()
	for _, want := range []string{`unitrace run: ctl EVENT: {"event":"hi"}`, `unitrace run: ctl RESP: {"id":999,"ok":true}`} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log %q lacks %q", log.String(), want)
		}
	}
	if strings.Count(log.String(), "\n") != 2 {
		t.Errorf("log %q: want just the two frames nobody asked for", log.String())
	}
	if err := mux.send(ctl.Command{Op: ctl.OpSignal, Has: ctl.HasSig, Sig: 2}, func([]byte) {}); err != errCtlClosed {
		t.Errorf("send after the guest hung up: %v", err)
	}
}

// serveProxy starts the launcher's proxy for mux on a socket in a temporary directory, closed
// when the test ends, and returns the socket's path.
func serveProxy(t *testing.T, mux *ctlMux) string {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "ctl.sock")
	proxy, err := listenCtlProxy(sock, mux)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proxy.close)
	return sock
}

// TestAskGuestThroughProxy runs unitrace signal's side against the proxy: the reply comes back
// under the client's own random id; a refusal and a guest that hangs up are errors that say so.
func TestAskGuestThroughProxy(t *testing.T) {
	mux := newCtlMux(nil, "")
	sock := serveProxy(t, mux)
	host, guest := socketPair(t)
	go fakeAgent(t, guest, 1, nil)
	go mux.attach(host)
	reply, err := askGuest(sock, ctl.Command{Op: ctl.OpSignal, Has: ctl.HasSig, Sig: 3}, 5*time.Second)
	if err != nil || !strings.Contains(string(reply), `"ok":true,"sig":3}`) || replyError(reply) != nil {
		t.Fatalf("reply %s, %v", reply, err)
	}
	if err := replyError([]byte(`{"id":1,"error":"bad signal (sig must be 1..64)"}`)); err == nil || err.Error() != "the guest refused: bad signal (sig must be 1..64)" {
		t.Errorf("refusal: %v", err)
	}
	if _, err := askGuest(sock, ctl.Command{Op: ctl.OpSignal, Has: ctl.HasSig, Sig: 3}, 5*time.Second); err == nil ||
		!strings.Contains(err.Error(), "closed before the guest replied") {
		t.Errorf("after the guest hung up: %v", err)
	}
}

// TestCtlProxyGuestGone: a command whose write to the guest fails (the guest has hung up, and
// the mux's reader has not yet seen its connection end) gets no reply from the proxy, which a
// client would take for the guest's; the client's connection ends once the mux sees the end.
func TestCtlProxyGuestGone(t *testing.T) {
	mux := newCtlMux(nil, "")
	sock := serveProxy(t, mux)
	g := &goneGuest{reading: make(chan struct{}), wrote: make(chan struct{}, 1), hangup: make(chan struct{})}
	go mux.attach(g)
	<-g.reading // attached: commands are written to the guest from now on

	c := dialProxy(t, sock)
	c.send(t, `{"id":1,"cmd":"signal","sig":10}`) // its write fails
	c.send(t, `{"id":5,"cmd":"signal","sig":99}`) // refused by the proxy, after the first
	// The proxy answers a client's commands in order, so a reply to the first would come first.
	if r := c.next(t, wire.TypeResp); string(r) != `{"id":5,"error":"bad signal (sig must be 1..64)"}` {
		t.Errorf("first frame: %s, want the refusal of id 5", r)
	}
	select {
	case <-g.wrote: // the first command's send was over before the second was refused
	default:
		t.Error("the first command was not written to the guest")
	}
	close(g.hangup)
	if f, err := c.rd.Next(); err == nil {
		t.Errorf("after the guest hung up: frame %s %s, want the connection closed", f.Type, f.Payload)
	}
	if err := mux.send(ctl.Command{Op: ctl.OpSignal, Has: ctl.HasSig, Sig: 2}, func([]byte) {}); !errors.Is(err, errCtlClosed) {
		t.Errorf("send after the guest hung up: %v", err)
	}
}

// goneGuest is the guest's end of a control connection the guest has closed, as the mux sees
// it before its reader gets there: writes fail, and reads block until hangup is closed.
type goneGuest struct {
	once    sync.Once
	reading chan struct{} // closed at the first read
	wrote   chan struct{} // gets a value at each write
	hangup  chan struct{}
}

func (g *goneGuest) Read([]byte) (int, error) {
	g.once.Do(func() { close(g.reading) })
	<-g.hangup
	return 0, io.EOF
}

func (g *goneGuest) Write([]byte) (int, error) {
	select {
	case g.wrote <- struct{}{}:
	default:
	}
	return 0, syscall.EPIPE
}

// TestCtlProxyStaleSocket: a socket file nobody listens on is replaced; a live one is not.
func TestCtlProxyStaleSocket(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "ctl.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := listenCtlProxy(sock, newCtlMux(nil, "")); err == nil || !strings.Contains(err.Error(), "another program listens") {
		t.Errorf("live socket: %v", err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	p, err := listenCtlProxy(sock, newCtlMux(nil, ""))
	if err != nil {
		t.Fatalf("stale socket: %v", err)
	}
	p.close()
}

// socketPair is a connected pair of unix sockets, buffered as QEMU's connection is.
func socketPair(t *testing.T) (net.Conn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("unix", filepath.Join(t.TempDir(), "pair.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	a, err := net.Dial("unix", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	b, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close(); b.Close() })
	return a, b
}

type proxyClient struct {
	conn net.Conn
	rd   *wire.Reader
	w    *wire.Writer
}

func dialProxy(t *testing.T, sock string) *proxyClient {
	t.Helper()
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(10 * time.Second))
	return &proxyClient{conn: c, rd: wire.NewReader(c), w: wire.NewWriter(c)}
}

func (c *proxyClient) send(t *testing.T, cmd string) {
	t.Helper()
	if err := c.w.WriteFrame(wire.TypeCmd, 0, []byte(cmd)); err != nil {
		t.Fatal(err)
	}
}

// next returns the payload of the next frame, which must be of type typ.
func (c *proxyClient) next(t *testing.T, typ wire.Type) []byte {
	t.Helper()
	f, err := c.rd.Next()
	if err != nil {
		t.Fatal(err)
	}
	if f.Type != typ {
		t.Fatalf("frame %s %s, want %s", f.Type, f.Payload, typ)
	}
	if !json.Valid(f.Payload) {
		t.Fatalf("payload %q is not JSON", f.Payload)
	}
	return f.Payload
}

// lockedBuffer is a bytes.Buffer several goroutines write.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
