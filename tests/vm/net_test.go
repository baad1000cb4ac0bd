package vm_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/unitrace/unitrace/internal/httpload"
)

const netApp = "examples/nethttp"

// TestNetHTTP boots examples/nethttp: net/http unchanged over the guest's sockets (a server on
// 127.0.0.1:0 and 200 GETs against it, with keep-alive and without, every byte checked), a
// dial of a closed port (ECONNREFUSED), a UDP echo, a non-blocking connect's SO_ERROR, a
// socketpair made net.Conns, and names resolved by Go's resolver: localhost from the guest's /etc/hosts, and a name the host
// can resolve through the host's nameservers.
func TestNetHTTP(t *testing.T) { forEachArch(t, testNetHTTP) }

func testNetHTTP(t *testing.T, a guestArch) {
	args := []string{"-timeout", "8m", "-image", a.path("nethttp.elf"), netApp, "--"}
	const name = "proxy.golang.org" // resolvable wherever Go modules are fetched, as make test does
	hostAddrs, err := net.DefaultResolver.LookupHost(context.Background(), name)
	if err == nil {
		args = append(args, "-lookup", name)
	} else {
		t.Logf("the host cannot resolve %s (%v): the guest's lookup through the nameservers is not checked", name, err)
	}
	out, stderr, status := runLauncher(t, a, args...)
	got := programLines(consoleLines(out))
	want := []string{
		"http keep-alive: 200 gets, 3226924 bytes checked",
		"http no keep-alive: 200 gets, 3226924 bytes checked",
		"refused: ECONNREFUSED",
		"udp: 10 datagrams echoed",
		"nonblocking connect: SO_ERROR 0, then ECONNREFUSED",
		"localhost: 127.0.0.1 ::1",
		"socketpair: 102400 bytes one way, end of file after CloseWrite, 4 back",
	}
	var lookup string
	if len(got) > len(want) && strings.HasPrefix(got[len(want)], "lookup ") {
		lookup = got[len(want)]
		got = slices.Delete(got, len(want), len(want)+1)
	}
	compareLines(t, got, append(want, "nethttp: ok"))
	if status != 0 {
		t.Errorf("status %d", status)
	}
	if !strings.Contains(stderr, "the guest listens on 127.0.0.1:") {
		t.Errorf("the launcher did not report the guest's listeners:\n%s", stderr)
	}
	if hostAddrs != nil {
		sort.Strings(hostAddrs)
		t.Logf("%s; on the host: %s", lookup, strings.Join(hostAddrs, " "))
		if !strings.HasPrefix(lookup, "lookup "+name+": ") || len(strings.Fields(lookup)) < 3 {
			t.Errorf("the guest's lookup of %s: %q", name, lookup)
		}
	}
}

// TestNetLoad serves examples/nethttp's handlers in the guest with the sampler at 1 kHz and
// drives bounded load at them from the host over loopback: 4 workers for 5 s, keep-alive. It
// wants no errors, logs requests per second and latency, and wants the server's profile to show
// its handler, and the kernel's frames under the socket calls with the program's beneath.
func TestNetLoad(t *testing.T) { forEachArch(t, testNetLoad) }

func testNetLoad(t *testing.T, a guestArch) {
	img, file := a.path("netload.elf"), a.path("netload.utrace")
	port := freePort(t)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	cmd := exec.Command(launcherPath(t), "run", "-arch", a.name, "-timeout", "5m", "-image", img, "-sample", "1000", "-o", file,
		netApp, "--", "-serve", addr)
	cmd.Dir = repoRoot
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var console lockedBuilder
	serving := httpload.AwaitLine(stdout, "nethttp: serving on", &console)
	select {
	case ok := <-serving:
		if !ok {
			cmd.Wait()
			t.Fatalf("the guest ended before serving:\n%s\n%s", console.String(), stderr.String())
		}
	case <-time.After(4 * time.Minute):
		t.Fatalf("the guest did not serve in time:\n%s", stderr.String())
	}
	res := httpload.Run("http://"+addr+"/size/1024", 1024, 4, 5*time.Second)
	t.Logf("%s: %v", a.name, res)
	if res.Errors != 0 || res.Requests == 0 {
		t.Errorf("%d errors in %d requests; first: %v", res.Errors, res.Requests, res.FirstErr)
	}
	if resp, err := http.Get("http://" + addr + "/quit"); err == nil {
		resp.Body.Close()
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("launcher: %v\n%s", err, stderr.String())
	}
	t.Logf("stderr:\n%s", stderr.String())
	if !strings.Contains(stderr.String(), "the guest listens on "+addr) {
		t.Errorf("the launcher did not report the guest's listener on %s", addr)
	}
	_, samples, _ := loadRecording(t, img, file)
	handler, kernelUnderSocket := 0, 0
	for _, s := range samples {
		if s.has("main.handler.func1") {
			handler++
		}
		if len(s.threadPart()) > 0 && s.hasPrefix("github.com/unitrace/unitrace/kernel/syscalls/files.sock") &&
			(s.has("internal/poll.(*FD).Read") || s.has("internal/poll.(*FD).Write")) {
			kernelUnderSocket++
		}
	}
	t.Logf("%d samples: %d in the /size handler, %d in the kernel's socket calls beneath the program's reads and writes", len(samples), handler, kernelUnderSocket)
	if handler == 0 {
		t.Error("no sample in the server's handler (main.handler.func1)")
	}
	if kernelUnderSocket == 0 {
		t.Error("no sample in the kernel's socket calls with the program's read or write beneath")
	}
}

// lockedBuilder is a strings.Builder that one goroutine writes while another reads it.
type lockedBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuilder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// hasPrefix reports whether some function on the stack starts with prefix.
func (s gtSample) hasPrefix(prefix string) bool {
	for _, f := range s.funcs {
		if strings.HasPrefix(f, prefix) {
			return true
		}
	}
	return false
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// TestNetUnbound boots examples/nethttp -unbound: a TCP listener of each family that calls
// listen with no bind first, and a UDP socket whose first call is sendto. Linux would bind
// every interface of the host for them; the launcher must bind loopback. The launcher says so,
// the host's /proc/net/tcp and tcp6 show the listeners there, a client on loopback is greeted
// and one from another address of this machine is refused (when it has one).
func TestNetUnbound(t *testing.T) { forEachArch(t, testNetUnbound) }

func testNetUnbound(t *testing.T, a guestArch) {
	cmd := exec.Command(launcherPath(t), "run", "-arch", a.name, "-timeout", "5m", "-image", a.path("nethttp.elf"),
		netApp, "--", "-unbound")
	cmd.Dir = repoRoot
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr, console lockedBuilder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	select {
	case ok := <-httpload.AwaitLine(stdout, "nethttp: unbound ready", &console):
		if !ok {
			cmd.Wait()
			t.Fatalf("the guest ended before it was ready:\n%s\n%s", console.String(), stderr.String())
		}
	case <-time.After(4 * time.Minute):
		t.Fatalf("the guest was not ready in time:\n%s\n%s", console.String(), stderr.String())
	}
	// The guest's own view: its sockets' addresses, which are the host sockets'.
	listeners := map[string]netip.AddrPort{}
	for _, line := range programLines(consoleLines(console.String())) {
		name, addr, ok := strings.Cut(strings.TrimPrefix(line, "unbound "), ": listening on ")
		if !ok {
			continue
		}
		ap, err := netip.ParseAddrPort(addr)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		listeners[name] = ap
	}
	if len(listeners) != 2 {
		t.Fatalf("want the guest's tcp4 and tcp6 listeners, got %v:\n%s", listeners, console.String())
	}
	if want := "unbound udp: sent from 127.0.0.1, echoed"; !strings.Contains(console.String(), want) {
		t.Errorf("the console lacks %q:\n%s", want, console.String())
	}
	for name, ap := range listeners {
		if !ap.Addr().Unmap().IsLoopback() || ap.Port() == 0 {
			t.Errorf("the guest's %s listener is at %v: want loopback and an ephemeral port", name, ap)
		}
		// The launcher says where, and it is loopback (a dual-stack listener's IPv4 address).
		said := fmt.Sprintf("unitrace: the guest listens on 127.0.0.1:%d\n", ap.Port())
		for deadline := time.Now().Add(5 * time.Second); !strings.Contains(stderr.String(), said) && time.Now().Before(deadline); {
			time.Sleep(50 * time.Millisecond)
		}
		if !strings.Contains(stderr.String(), said) {
			t.Errorf("the launcher did not say %q:\n%s", said, stderr.String())
		}
		if at, ok := hostListener(t, ap.Port()); !ok || !at.Unmap().IsLoopback() {
			t.Errorf("/proc/net/tcp{,6}: the host's listener on port %d is at %v (found %v): want loopback", ap.Port(), at, ok)
		}
		others := 0
		for _, addr := range hostAddrs(t) {
			others++
			c, err := net.DialTimeout("tcp", netip.AddrPortFrom(addr, ap.Port()).String(), 5*time.Second)
			if err == nil {
				c.Close()
				t.Errorf("a connection from %v to the guest's %s listener was accepted", addr, name)
			} else if !errors.Is(err, syscall.ECONNREFUSED) {
				t.Errorf("dial %v: %v, want ECONNREFUSED", addr, err)
			}
		}
		if others == 0 {
			t.Log("this machine has no address but loopback: no connection from elsewhere tried")
		}
	}
	for _, name := range []string{"tcp4", "tcp6"} {
		c, err := net.DialTimeout("tcp", netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), listeners[name].Port()).String(), 30*time.Second)
		if err != nil {
			t.Fatalf("dial the guest's %s listener on loopback: %v", name, err)
		}
		c.SetDeadline(time.Now().Add(time.Minute))
		got, err := io.ReadAll(c)
		c.Close()
		if string(got) != name+"\n" {
			t.Errorf("the %s listener's greeting: %q, %v", name, got, err)
		}
	}
	err = cmd.Wait()
	t.Logf("console:\n%s\nstderr:\n%s", console.String(), stderr.String())
	if err != nil {
		t.Fatalf("launcher: %v", err)
	}
	if !strings.Contains(console.String(), "nethttp: ok") {
		t.Errorf("the guest did not finish")
	}
}

// hostListener is the local address of the host's TCP socket listening on port, from
// /proc/net/tcp and tcp6 (each address there is 32-bit words in the host's byte order).
func hostListener(t *testing.T, port uint16) (netip.Addr, bool) {
	t.Helper()
	for _, file := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			f := strings.Fields(line)
			if len(f) < 4 || f[3] != "0A" { // TCP_LISTEN
				continue
			}
			hex, p, _ := strings.Cut(f[1], ":")
			if n, err := strconv.ParseUint(p, 16, 16); err != nil || uint16(n) != port {
				continue
			}
			var raw []byte
			for i := 0; i+8 <= len(hex); i += 8 {
				w, err := strconv.ParseUint(hex[i:i+8], 16, 32)
				if err != nil {
					t.Fatalf("%s: address %q", file, hex)
				}
				raw = binary.NativeEndian.AppendUint32(raw, uint32(w))
			}
			a, ok := netip.AddrFromSlice(raw)
			return a, ok
		}
	}
	return netip.Addr{}, false
}

// hostAddrs are this machine's addresses other than loopback and link-local.
func hostAddrs(t *testing.T) []netip.Addr {
	t.Helper()
	ifaddrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	var out []netip.Addr
	for _, ia := range ifaddrs {
		p, err := netip.ParsePrefix(ia.String())
		if err == nil && !p.Addr().IsLoopback() && !p.Addr().IsLinkLocalUnicast() {
			out = append(out, p.Addr())
		}
	}
	return out
}
