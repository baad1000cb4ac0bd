package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/unitrace/unitrace/internal/vmconfig"
	"github.com/unitrace/unitrace/trace/ctl"
	"github.com/unitrace/unitrace/trace/wire"
)

// TestGuestInput: the launcher feeds a pipe, a file or an in-memory reader, and nothing for a
// terminal, /dev/null or a descriptor that is not open.
func TestGuestInput(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	file, err := os.Create(filepath.Join(t.TempDir(), "input"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	closed, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	closed.Close()
	mem := strings.NewReader("x")
	for _, tt := range []struct {
		name string
		in   io.Reader
		want io.Reader
	}{
		{"pipe", r, r},
		{"file", file, file},
		{"reader", mem, mem},
		{"/dev/null", null, nil},
		{"closed", closed, nil},
		{"nil", nil, nil},
	} {
		if got := guestInput(tt.in); got != tt.want {
			t.Errorf("%s: guestInput = %v, want %v", tt.name, got, tt.want)
		}
	}
	if pty, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0); err == nil {
		defer pty.Close()
		if isTerminal(pty) && guestInput(pty) != nil {
			t.Error("a terminal is fed to the guest")
		}
	}
}

// TestGuestStdinOptions: the kernel is told unitrace.stdin=null, once, unless the input is fed,
// and it is fed only where the launcher holds the control port that carries its end.
func TestGuestStdinOptions(t *testing.T) {
	in := strings.NewReader("input")
	for _, tt := range []struct {
		args []string
		in   io.Reader
		feed bool
		note string
	}{
		{[]string{"-net=none", "app"}, in, true, ""},
		{[]string{"-net=none", "-arch", "arm64", "app"}, in, true, ""},
		{[]string{"-net=none", "-trace", "syscall_*", "app"}, in, true, ""},
		{[]string{"-net=none", "app"}, nil, false, ""},
		{[]string{"-net=none", "app", "unitrace.stdin=null"}, in, false, ""},
		{[]string{"-machine", "q35", "app"}, in, false, `machine "q35" has no control port`},
		{[]string{"-net=none", "-sockets", t.TempDir(), "-trace", "syscall_*", "app"}, in, false, "with -sockets"},
	} {
		fs := flag.NewFlagSet("run", flag.ContinueOnError)
		var o runOptions
		o.register(fs)
		o.registerFiles(fs)
		if err := o.parse(fs, tt.args); err != nil {
			t.Fatalf("%q: %v", tt.args, err)
		}
		o.stdin = tt.in
		g, err := o.guest()
		if err != nil {
			t.Fatalf("%q: %v", tt.args, err)
		}
		nulls := 0
		for _, w := range g.cfg.Env {
			if w == stdinNull {
				nulls++
			}
		}
		if (g.input != nil) != tt.feed || nulls != map[bool]int{true: 0, false: 1}[tt.feed] || !strings.Contains(g.inputNote, tt.note) || (tt.note == "") != (g.inputNote == "") {
			t.Errorf("%q: input %v, %d× %s in %q, note %q; want fed %v, note %q", tt.args, g.input != nil, nulls, stdinNull, g.cfg.Env, g.inputNote, tt.feed, tt.note)
		}
	}
}

// stdinAgent answers the control port as the guest's agent does for the stdin commands. At
// stdin.open it checks that QEMU has taken no byte yet (its copy of its standard input, in
// file, is empty) and waits a little before it answers, so a feed that did not wait for the
// answer would show; at stdin.end it sends the total on ends and creates marker, for the fake
// QEMU, which then exits.
func stdinAgent(t *testing.T, conn net.Conn, file, marker string, ends chan<- uint64) {
	rd, w := wire.NewReader(conn), wire.NewWriter(conn)
	for {
		f, err := rd.Next()
		if err != nil {
			return
		}
		c, e := ctl.Parse(f.Payload)
		if e != ctl.ErrNone {
			t.Errorf("fake guest got %q: %s", f.Payload, e.Message())
			return
		}
		switch c.Op {
		case ctl.OpStdinOpen:
			for range 4 {
				if fi, err := os.Stat(file); err == nil && fi.Size() > 0 {
					t.Errorf("QEMU took %d bytes before the guest said its console takes input", fi.Size())
				}
				time.Sleep(50 * time.Millisecond)
			}
		case ctl.OpStdinEnd:
			ends <- c.Total
			os.WriteFile(marker, nil, 0o644)
		default:
			t.Errorf("fake guest got %s", c.Op)
		}
		w.WriteFrame(wire.TypeResp, 0, fmt.Appendf(nil, `{"id":%d,"ok":true}`, c.ID))
	}
}

// TestBootFeedsStdin: QEMU's standard input gets the launcher's input, every byte in order, only
// after the guest said its console takes input, and the guest is told how many bytes there
// were once the input ended; the console still reaches standard output.
func TestBootFeedsStdin(t *testing.T) {
	dir := t.TempDir()
	qemu := filepath.Join(dir, "qemu")
	script := `#!/bin/sh
cat > "$FAKE_IN"
while [ ! -e "$FAKE_END" ]; do sleep 0.05; done
printf 'unitrace: exit status 0\n'
exit 1
`
	if err := os.WriteFile(qemu, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	file, marker := filepath.Join(dir, "in"), filepath.Join(dir, "end")
	t.Setenv("FAKE_IN", file)
	t.Setenv("FAKE_END", marker)
	input := make([]byte, 300<<10+7) // several of the feed's reads and of the pipe's buffer
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range input {
		input[i] = byte(rng.Uint32())
	}
	mux := newCtlMux(nil, "")
	host, guestConn := socketPair(t)
	ends := make(chan uint64, 2)
	go stdinAgent(t, guestConn, file, marker, ends)
	go mux.attach(host)
	var stdout, stderr bytes.Buffer
	out := boot(vmconfig.Config{QEMU: qemu, Kernel: "k.elf"}, time.Minute, stdio{nil, &stdout, &stderr}, "unitrace run", mux, bytes.NewReader(input))
	if out.Kind != vmconfig.Exited || out.Status != 0 {
		t.Errorf("got %+v; stderr %q", out, stderr.String())
	}
	if stdout.String() != "unitrace: exit status 0\n" {
		t.Errorf("console %q", stdout.String())
	}
	got, err := os.ReadFile(file)
	if err != nil || !bytes.Equal(got, input) {
		t.Errorf("QEMU read %d bytes (%v), not the %d of the input", len(got), err, len(input))
	}
	select {
	case n := <-ends:
		if n != uint64(len(input)) {
			t.Errorf("stdin.end said %d bytes, want %d", n, len(input))
		}
	default:
		t.Error("no stdin.end reached the guest")
	}
	if len(ends) > 0 {
		t.Error("stdin.end twice")
	}
}

// TestBootStdinRefused: a guest whose console takes no input gets none, and the launcher says
// why; the run goes on.
func TestBootStdinRefused(t *testing.T) {
	qemu := filepath.Join(t.TempDir(), "qemu")
	script := "#!/bin/sh\nsleep 0.5\nprintf 'unitrace: exit status 0\\n'\nexit 1\n"
	if err := os.WriteFile(qemu, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	mux := newCtlMux(nil, "")
	host, guestConn := socketPair(t)
	go func() {
		rd, w := wire.NewReader(guestConn), wire.NewWriter(guestConn)
		for {
			f, err := rd.Next()
			if err != nil {
				return
			}
			c, _ := ctl.Parse(f.Payload)
			if c.Op != ctl.OpStdinOpen {
				t.Errorf("fake guest got %s after refusing stdin.open", c.Op)
			}
			w.WriteFrame(wire.TypeResp, 0, fmt.Appendf(nil, `{"id":%d,"error":%q}`, c.ID, ctl.ErrNoInput.Message()))
		}
	}()
	go mux.attach(host)
	var stderr lockedBuffer
	out := boot(vmconfig.Config{QEMU: qemu, Kernel: "k.elf"}, time.Minute, stdio{nil, &bytes.Buffer{}, &stderr}, "unitrace run", mux, strings.NewReader("unread"))
	if out.Kind != vmconfig.Exited || out.Status != 0 {
		t.Errorf("got %+v", out)
	}
	want := "unitrace run: standard input is not passed to the program: the guest refused: " + ctl.ErrNoInput.Message() + "\n"
	if got := stderr.String(); !slices.Contains(strings.SplitAfter(got, "\n"), want) {
		t.Errorf("stderr %q lacks %q", got, want)
	}
}
