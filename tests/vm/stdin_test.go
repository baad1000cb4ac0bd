package vm_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hugelgupf/vmtest/qemu"
	"github.com/unitrace/unitrace/internal/vmconfig"
)

const stdinApp = "examples/stdin"

// stdinMachines are the machines TestConsoleInput boots examples/stdin on: COM1's IRQ 4 goes
// through the I/O APIC on both amd64 machines, the PL011's SPI through GICv2 and GICv3.
var stdinMachines = map[string][]string{"amd64": {"microvm", "q35"}, "arm64": {"virt", "virt-gicv3"}}

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
		for _, machine := range stdinMachines[a.name] {
			t.Run(machine, func(t *testing.T) {
				t.Parallel()
				cfg := a.config(kernel)
				cfg.Machine = machine
				console, out := bootVMTyping(t, cfg, map[string]string{
					"stdin: lines": "hello, console\nsecond line\n",
					"stdin: poll":  "polled\n",
					"stdin: big":   stdinBig,
				})
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

// bootVMTyping boots cfg like bootVM and, each time the console shows a line that is a key of
// input, waits a second (so that the program is blocked in its read by then) and types the
// value into the guest's serial line.
func bootVMTyping(t *testing.T, cfg vmconfig.Config, input map[string]string) ([]string, vmconfig.Outcome) {
	t.Helper()
	if cfg.Timeout == 0 {
		cfg.Timeout = vmTimeout
	}
	var console vmconfig.Console
	var rec lines
	prompts := &promptWatcher{input: input, typeCh: make(chan string, len(input))}
	opts, err := cfg.Options(qemu.WithSerialOutput(&console, &rec, prompts))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Timeout+time.Minute)
	defer cancel()
	vm, err := opts.Start(ctx)
	if err != nil {
		t.Fatalf("starting QEMU: %v", err)
	}
	t.Logf("QEMU: %s", vm.CmdlineQuoted())
	// Typing may block (the pty fills while the guest's UART holds QEMU back): never in the
	// serial writer, which must not stall QEMU's output, and never in Wait's goroutine.
	typed := make(chan error, 1)
	go func() {
		for s := range prompts.typeCh {
			time.Sleep(time.Second)
			if _, err := vm.Console.Send(s); err != nil {
				typed <- fmt.Errorf("typing %d bytes: %w", len(s), err)
				return
			}
		}
		typed <- nil
	}()
	waitErr := vm.Wait()
	prompts.close()
	if err := <-typed; err != nil {
		t.Error(err)
	}
	out := vmconfig.GuestExit(cfg.Arch, waitErr, console.Seen())
	got := rec.all()
	if t.Failed() || testing.Verbose() {
		t.Logf("console:\n%s", strings.Join(got, "\n"))
	}
	return got, out
}

// promptWatcher is a serial writer that hands the input for each prompt line it sees to the
// typing goroutine. It never blocks: the channel holds one entry per prompt.
type promptWatcher struct {
	mu      sync.Mutex
	partial []byte
	input   map[string]string
	typeCh  chan string
	closed  bool
}

func (p *promptWatcher) Write(b []byte) (int, error) {
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

func (p *promptWatcher) Close() error { p.close(); return nil }

func (p *promptWatcher) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.closed {
		p.closed = true
		close(p.typeCh)
	}
}
