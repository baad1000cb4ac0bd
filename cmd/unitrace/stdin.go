package main

import (
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/unitrace/unitrace/trace/ctl"
)

// The guest's standard input. The program's standard input is the console's serial line, and
// QEMU's -serial stdio takes the line's input from QEMU's own standard input. When the
// launcher's standard input is a pipe or a file, run makes QEMU's standard input a pipe of its
// own and copies its input into it, so that `echo hi | unitrace run ./prog` and
// `unitrace run ./prog < file` give the program those bytes. A serial line cannot carry an end
// of file, so the launcher counts the bytes and, at its own end of file, tells the guest the
// count over the control port (stdin.end); the kernel returns end of file once the program has
// read that many. Before the first byte it asks whether the console takes input (stdin.open):
// the agent that answers runs long after the kernel set its UART up, which would have dropped
// a byte the line held before (both UARTs empty their FIFOs when FIFOs are turned on).
//
// A terminal stays the terminal's: reading it eagerly would take keystrokes the program may
// never ask for, and stop a launcher in the background (SIGTTIN), so the guest gets no input, as
// from /dev/null; /dev/null itself needs no feeding either. Either way the kernel is told
// unitrace.stdin=null.

// stdinNull is the kernel option of a console without input.
const stdinNull = "unitrace.stdin=null"

// guestInput returns what run feeds the guest's console: in, when it is a pipe, a file or
// another reader; nil (no input) for a terminal, /dev/null or a descriptor that is not open.
func guestInput(in io.Reader) io.Reader {
	f, ok := in.(*os.File)
	switch {
	case in == nil:
		return nil
	case !ok:
		return in
	case isTerminal(f):
		return nil
	}
	fi, err := f.Stat()
	if err != nil {
		return nil // not open (unitrace run <&-)
	}
	if null, err := os.Stat(os.DevNull); err == nil && os.SameFile(fi, null) {
		return nil
	}
	return f
}

// stdinFeed copies the launcher's standard input into QEMU's and tells the guest where it ends.
type stdinFeed struct {
	src  io.Reader
	mux  *ctlMux
	log  io.Writer
	tool string
	r, w *os.File // the pipe: QEMU reads r, the feed writes w

	done     chan struct{} // closed once QEMU has exited
	stopOnce sync.Once
	closeW   sync.Once
}

// newStdinFeed makes the pipe whose read end is QEMU's standard input (cmd.Stdin = f.r).
func newStdinFeed(src io.Reader, mux *ctlMux, log io.Writer, tool string) (*stdinFeed, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("standard input: %w", err)
	}
	return &stdinFeed{src: src, mux: mux, log: log, tool: tool, r: r, w: w, done: make(chan struct{})}, nil
}

// start runs once QEMU has started with f.r: it drops the launcher's copy of the read end and
// feeds the pipe in the background.
func (f *stdinFeed) start() {
	f.r.Close()
	go f.run()
}

// stop runs once QEMU has exited (or failed to start): what the feed still does fails quietly.
// A read of the launcher's standard input that is under way stays blocked; the launcher exits
// without waiting for it.
func (f *stdinFeed) stop() {
	f.stopOnce.Do(func() { close(f.done) })
	f.r.Close()
	f.closeWrite()
}

func (f *stdinFeed) closeWrite() { f.closeW.Do(func() { f.w.Close() }) }

// feedChunk is how much one read of the launcher's standard input takes.
const feedChunk = 64 << 10

// run waits until the guest's console takes input, copies the launcher's standard input into
// QEMU's, and at its end tells the guest how many bytes there were.
func (f *stdinFeed) run() {
	defer f.closeWrite() // QEMU sees end of file too; it then stops reading its standard input
	if err := f.ask(ctl.Command{Op: ctl.OpStdinOpen}); err != nil || f.stopped() {
		f.logf("standard input is not passed to the program: %v", err)
		return
	}
	buf := make([]byte, feedChunk)
	var total uint64
	for {
		n, rerr := f.src.Read(buf)
		if n > 0 {
			if _, err := f.w.Write(buf[:n]); err != nil {
				return // QEMU has gone
			}
			total += uint64(n)
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			f.logf("reading standard input: %v: the program's input ends after %d bytes", rerr, total)
			break
		}
	}
	f.closeWrite()
	if err := f.ask(ctl.Command{Op: ctl.OpStdinEnd, Has: ctl.HasTotal, Total: total}); err != nil {
		f.logf("the end of standard input (%d bytes) did not reach the guest: %v", total, err)
	}
}

// ask sends c to the guest and waits for its reply; nil when the guest said ok or QEMU has
// exited meanwhile (nothing is left to say then).
func (f *stdinFeed) ask(c ctl.Command) error {
	reply := make(chan error, 1)
	if err := f.mux.send(c, func(b []byte) { reply <- replyError(b) }); err != nil {
		if f.stopped() {
			return nil
		}
		return err
	}
	select {
	case err := <-reply:
		return err
	case <-f.done:
		return nil
	}
}

// stopped reports whether QEMU has exited.
func (f *stdinFeed) stopped() bool {
	select {
	case <-f.done:
		return true
	default:
		return false
	}
}

func (f *stdinFeed) logf(format string, args ...any) {
	if f.stopped() {
		return // QEMU has exited: the feed's failure is no news
	}
	fmt.Fprintf(f.log, "%s: "+format+"\n", append([]any{f.tool}, args...)...)
}
