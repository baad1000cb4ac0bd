package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unitrace/unitrace/internal/profile/profiletest"
	"github.com/unitrace/unitrace/internal/tracefile"
	"github.com/unitrace/unitrace/trace/ctl"
	"github.com/unitrace/unitrace/trace/wire"
)

// fakeGuest plays QEMU's listening control socket: it reads one command, checks that it is a
// well-formed stacks command, and answers with what reply makes of its id (nothing at all
// when reply returns nil). It returns the socket's path.
func fakeGuest(t *testing.T, reply func(id uint32) []byte) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "stk-") // short: a socket path has a length limit
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "ctl.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { ln.Close(); <-done })
	go func() {
		defer close(done)
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		f, err := wire.NewReader(conn).Next()
		if err != nil || f.Type != wire.TypeCmd {
			t.Errorf("command frame: %v %v", f.Type, err)
			return
		}
		c, e := ctl.Parse(f.Payload)
		if e != ctl.ErrNone || c.Op != ctl.OpStacks || c.ID == 0 {
			t.Errorf("command %q: %+v, %s", f.Payload, c, e.Message())
			return
		}
		b := reply(c.ID)
		if b == nil {
			var one [1]byte
			conn.Read(one[:]) // until the client gives up
			return
		}
		conn.Write(b)
	}()
	return sock
}

const stacksBody = `"stacks":{"arch":"amd64","cpus":[{"cpu":1,"tid":0,"gen":0,"state":"idle","frames":[]},
{"cpu":0,"tid":9,"gen":1,"state":"running","by_ipi":true,"pc":16,"frames":[]}],
"threads":[{"cpu":0,"tid":9,"gen":1,"state":"running","by_ipi":true,"pc":4096,"frames":[8192,12288]},
{"cpu":-1,"tid":12,"gen":1,"state":"never-run","no_walk":true,"frames":[]}],"unanswered":[]}`

// guestReply is the guest's output for a stacks command with this id: an EVENT, a stale
// reply to some other command, a damaged frame, then the answer.
func guestReply(id uint32, body string) []byte {
	var b []byte
	b = wire.AppendFrame(b, wire.TypeEvent, 0, 0, []byte(`{"event":"x"}`))
	b = wire.AppendFrame(b, wire.TypeResp, 0, 1, []byte(fmt.Sprintf(`{"id":%d,"ok":true}`, id+1)))
	bad := wire.AppendFrame(nil, wire.TypeResp, 0, 2, []byte(fmt.Sprintf(`{"id":%d,"ok":true}`, id)))
	bad[len(bad)-2] ^= 0xff // its CRC fails: never taken as the answer
	b = append(b, bad...)
	return wire.AppendFrame(b, wire.TypeResp, 0, 3, []byte(fmt.Sprintf(`{"id":%d,%s}`, id, body)))
}

func TestStacksCommand(t *testing.T) {
	sock := fakeGuest(t, func(id uint32) []byte { return guestReply(id, `"ok":true,`+stacksBody) })
	out, errs, st := runCLI(t, "stacks", "-ctl", sock)
	want := `cpu 0: running tid 9 gen 1 (captured by IPI)
cpu 1: idle
thread 9 gen 1: running on cpu 0 (captured by IPI)
  0x1000
  0x2000
  0x3000
thread 12 gen 1: never-run (created, not yet scheduled; no stack)
`
	if st != 0 || out != want {
		t.Errorf("status %d, stderr %q, stdout\n%s\nwant\n%s", st, errs, out, want)
	}

	sock = fakeGuest(t, func(id uint32) []byte { return guestReply(id, `"ok":true,`+stacksBody) })
	out, _, st = runCLI(t, "stacks", "-json", "-ctl", sock)
	if st != 0 || !strings.HasPrefix(out, `{"id":`) || !strings.HasSuffix(out, `"unanswered":[]}}`+"\n") {
		t.Errorf("-json: status %d\n%s", st, out)
	}
}

// TestStacksCommandImage symbolizes with a real image and checks that a different image is
// refused unless -force.
func TestStacksCommandImage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Go program")
	}
	p := profiletest.Build(t, t.TempDir(), "amd64")
	leaf := p.Func("main.leaf").Entry
	ra := p.ReturnAddress("main.outer", "main.mid")
	body := func(buildID string) string {
		return fmt.Sprintf(`"ok":true,"stacks":{"arch":"amd64","build_id":%q,"cpus":[],"threads":[
{"cpu":0,"tid":9,"gen":1,"state":"running","by_ipi":true,"pc":%d,"frames":[%d]}],"unanswered":[2]}`, buildID, leaf, ra)
	}
	id := tracefile.BuildIDHex(profiletest.BuildID)
	sock := fakeGuest(t, func(n uint32) []byte { return guestReply(n, body(id)) })
	out, errs, st := runCLI(t, "stacks", "-ctl", sock, "-image", p.Path)
	wantOuter := fmt.Sprintf("  %#x main.outer+%#x  ", ra, ra-p.Func("main.outer").Entry)
	if st != 0 || !strings.Contains(out, fmt.Sprintf("  %#x main.leaf+0x0  ", leaf)) || !strings.Contains(out, wantOuter) ||
		!strings.HasSuffix(out, "did not answer the capture IPI: cpu 2\n") {
		t.Errorf("status %d, stderr %q, stdout\n%s", st, errs, out)
	}

	sock = fakeGuest(t, func(n uint32) []byte { return guestReply(n, body("0bad")) })
	if _, errs, st := runCLI(t, "stacks", "-ctl", sock, "-image", p.Path); st != 1 || !strings.Contains(errs, "build id") {
		t.Errorf("wrong build id: status %d, %q", st, errs)
	}
	sock = fakeGuest(t, func(n uint32) []byte { return guestReply(n, body("0bad")) })
	if out, errs, st := runCLI(t, "stacks", "-ctl", sock, "-image", p.Path, "-force"); st != 0 || !strings.Contains(out, "main.leaf") {
		t.Errorf("-force: status %d, %q\n%s", st, errs, out)
	}
}

func TestStacksCommandErrors(t *testing.T) {
	refused := fakeGuest(t, func(id uint32) []byte { return guestReply(id, `"error":"not available in this kernel"`) })
	silent := fakeGuest(t, func(uint32) []byte { return nil })
	tests := []struct {
		args   []string
		status int
		stderr string
	}{
		{[]string{"stacks"}, 2, "want -ctl SOCK"},
		{[]string{"stacks", "-ctl", "x", "extra"}, 2, "want -ctl SOCK"},
		{[]string{"stacks", "-ctl", "x", "-timeout", "0s"}, 2, "-timeout must be positive"},
		{[]string{"stacks", "-ctl", filepath.Join(t.TempDir(), "none.sock")}, 1, "connect"},
		{[]string{"stacks", "-ctl", refused}, 1, "unitrace stacks: the guest refused: not available in this kernel\n"},
		{[]string{"stacks", "-ctl", silent, "-timeout", "200ms"}, 1, "no reply from the guest within 200ms"},
	}
	for _, tt := range tests {
		_, errs, st := runCLI(t, tt.args...)
		if st != tt.status || !strings.Contains(errs, tt.stderr) {
			t.Errorf("%v: status %d, stderr %q; want %d, ...%s...", tt.args, st, errs, tt.status, tt.stderr)
		}
	}
}
