package vm_test

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hugelgupf/vmtest/qemu"
	"github.com/unitrace/unitrace/internal/vmconfig"
)

const stdinApp = "examples/stdin"

// stdinBig is what the test types at examples/stdin's "stdin: big" prompt: more than the
// kernel's ring (4 KiB) and the UART's FIFO hold, so the receive interrupt goes off and QEMU
// stops taking input until the program reads.
var stdinBig = func() string {
	b := make([]byte, 8192)
	for i := range b {
		b[i] = byte('a' + i%26)
	}
	return string(b)
}()

// TestConsoleInput types into the guest's serial line (QEMU's standard input, vmtest's pty) and
// checks that examples/stdin reads it from os.Stdin: EAGAIN before any input, blocking reads
// that wait for input typed later (through a signal, which restarts them), epoll readiness,
// readv, and 8 KiB typed while the program sleeps, which only flow control can bring through
// whole.
func TestConsoleInput(t *testing.T) {
	want := []string{
		"stdin: nonblock",
		"nonblocking read: 0 resource temporarily unavailable",
		"epoll before input: 0 <nil>",
		"stdin: lines",
		"got: hello, console",
		"got: second line",
		"signals during the read: 1",
		"stdin: poll",
		"epoll: EPOLLIN",
		`readv: "polled\n"`,
		"stdin: big",
		"big: 8192 bytes in order",
		"stdin: done",
	}
	forEachArch(t, func(t *testing.T, a guestArch) {
		kernel := buildImage(t, a, stdinApp)
		// helloMachines: COM1's IRQ 4 goes through the I/O APIC on both amd64 machines, the
		// PL011's SPI through GICv2 and GICv3.
		for _, machine := range helloMachines[a.name] {
			t.Run(machine, func(t *testing.T) {
				t.Parallel()
				cfg := a.config(kernel)
				cfg.Machine = machine
				console, out := bootVMDriven(t, cfg, newPromptTyper(map[string]string{
					"stdin: lines": "hello, console\nsecond line\n",
					"stdin: poll":  "polled\n",
					"stdin: big":   stdinBig,
				}))
				got := programLines(console)
				for i, l := range got {
					if strings.HasPrefix(l, "big: ") {
						got[i], _, _ = strings.Cut(l, " (") // the number of reads varies
					}
				}
				compareLines(t, got, want)
				if out.Kind != vmconfig.Exited || out.Status != 0 {
					t.Errorf("outcome %+v, want exit status 0", out)
				}
			})
		}
	})
}

// TestLauncherStdin pipes 24 KiB into `unitrace run examples/stdin -- eof`, as `cat file |
// unitrace run` would: every byte value, and more than the kernel's ring holds, which fills while
// the program sleeps, so the receiver stops and resumes on the way. The program must read
// exactly the input (its count and SHA-256), then end of file for good, blocking or not, with
// the console polling readable; the launcher feeds QEMU's serial line and says over the control
// port where the input ends. A guest that never learns the end would wait for good: -timeout
// bounds it.
func TestLauncherStdin(t *testing.T) {
	input := make([]byte, 24<<10)
	rng := rand.New(rand.NewPCG(9, 10))
	for i := range input {
		input[i] = byte(rng.Uint32())
	}
	want := []string{
		fmt.Sprintf("eof: %d bytes, sha256 %x", len(input), sha256.Sum256(input)),
		"read after the end: 0 <nil>",
		"read after the end: 0 <nil>",
		"nonblocking read after the end: 0 <nil>",
		"epoll at the end: 1 events, EPOLLIN true, EPOLLHUP false, <nil>",
		"unitrace: exit status 0",
	}
	forEachArch(t, func(t *testing.T, a guestArch) {
		stdout, _, status := runToolInput(t, bytes.NewReader(input), "run", "-arch", a.name, "-net=none", "-timeout", "2m",
			"-image", a.path("stdin-eof.elf"), stdinApp, "--", "eof")
		got := slices.DeleteFunc(consoleLines(stdout), func(l string) bool { return l == "" })
		compareLines(t, got, want)
		if status != 0 {
			t.Errorf("status %d, want 0", status)
		}
	})
}

// promptTyper is the vmDriver of TestConsoleInput: each time the console shows a line that is a
// key of input, it waits a second (so that the program is blocked in its read by then) and types
// the value into the guest's serial line. Write never blocks (the channel holds one entry per
// prompt), and the typing runs in a goroutine of its own: it may block while the guest's UART
// holds QEMU back, and must stall neither QEMU's output nor the wait for it.
type promptTyper struct {
	mu      sync.Mutex
	partial []byte
	input   map[string]string
	typeCh  chan string
	closed  bool
	typed   chan error
}

func newPromptTyper(input map[string]string) *promptTyper {
	return &promptTyper{input: input, typeCh: make(chan string, len(input)), typed: make(chan error, 1)}
}

func (p *promptTyper) start(vm *qemu.VM) {
	go func() {
		for s := range p.typeCh {
			time.Sleep(time.Second)
			if _, err := vm.Console.Send(s); err != nil {
				p.typed <- fmt.Errorf("typing %d bytes: %w", len(s), err)
				return
			}
		}
		p.typed <- nil
	}()
}

func (p *promptTyper) end() error {
	p.close()
	return <-p.typed
}

func (p *promptTyper) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range b {
		if c != '\n' {
			if len(p.partial) < maxLineBytes {
				p.partial = append(p.partial, c)
			}
			continue
		}
		line := strings.TrimRight(string(p.partial), "\r")
		p.partial = p.partial[:0]
		if s, ok := p.input[line]; ok && !p.closed {
			delete(p.input, line)
			p.typeCh <- s
		}
	}
	return len(b), nil
}

func (p *promptTyper) Close() error { p.close(); return nil }

func (p *promptTyper) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.closed {
		p.closed = true
		close(p.typeCh)
	}
}
