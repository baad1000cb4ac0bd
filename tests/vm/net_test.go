package vm_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"sync"
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
		if len(s.threadPart()) > 0 && s.hasPrefix("github.com/unitrace/unitrace/kernel.sock") &&
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
