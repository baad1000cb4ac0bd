package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"syscall"
	"time"

	"github.com/unitrace/unitrace/internal/profile"
	"github.com/unitrace/unitrace/internal/threadsnap"
	"github.com/unitrace/unitrace/trace/ctl"
	"github.com/unitrace/unitrace/trace/wire"
)

const stacksDoc = `Ask a running guest for the stacks of all its CPUs and threads and print
them: each CPU's state (running a thread, idle, did not answer), then each
thread's state and stack, innermost first. Threads running on other CPUs are
captured there by an IPI; blocked and runnable ones from their saved
context; a thread that never ran has no stack. The guest must have been
started with its ports on sockets ("unitrace run -sockets DIR": -ctl is
DIR/ctl.sock), and nothing else may hold that socket (QEMU serves one client
at a time). -image symbolizes with inline frames; its GNU build id must match
the guest's unless -force.

With -g it prints every goroutine instead, as the runtime's own dump does
(SIGQUIT, runtime.Stack), read by the kernel from outside the program without
stopping it: the state, the wait reason (named from -image), how long as far
as the kernel knows, the system call and what its thread waits on, the stack
where the goroutine resumes (a goroutine running on a CPU: its thread's, which
the CPU captured), and the go statement that created it.
`

var stacksCommand = command{
	name:     "stacks",
	synopsis: "-ctl SOCK [-g] [-image ELF] [-force] [-json] [-timeout D]",
	summary:  "print the stacks of every CPU and thread, or every goroutine, of a running guest (run -sockets DIR)",
	doc:      stacksDoc,
	setup:    stacksSetup,
}

func stacksSetup(fs *flag.FlagSet) func(std stdio, args []string) error {
	ctlPath := fs.String("ctl", "", "socket of the org.unitrace.ctl port")
	img := fs.String("image", "", "the image the guest runs (default: print addresses only)")
	force := fs.Bool("force", false, "symbolize even if the image's build id or architecture differs from the guest's")
	raw := fs.Bool("json", false, "print the guest's JSON reply as it came")
	timeout := fs.Duration("timeout", 30*time.Second, "give up when the guest has not answered by then")
	goroutines := fs.Bool("g", false, "print every goroutine (state, wait reason, stack) instead of the CPUs and threads")
	return func(std stdio, args []string) error {
		if err := fs.Parse(args); err != nil {
			return flagError(err)
		}
		if fs.NArg() != 0 || *ctlPath == "" {
			return usageError{"want -ctl SOCK and no other arguments"}
		}
		if *timeout <= 0 {
			return usageError{"-timeout must be positive"}
		}
		op := ctl.OpStacks
		if *goroutines {
			op = ctl.OpGoroutines
		}
		reply, err := askGuest(*ctlPath, ctl.Command{Op: op}, *timeout)
		if err != nil {
			return err
		}
		if *raw {
			if _, err := fmt.Fprintf(std.out, "%s\n", reply); err != nil {
				return err
			}
		}
		s, err := threadsnap.Parse(reply)
		if err != nil || *raw {
			return err
		}
		if *img != "" {
			im, err := profile.OpenImage(*img)
			if err != nil {
				return err
			}
			if err := threadsnap.SymbolizeImage(s, im, *force); err != nil {
				return err
			}
		}
		if *goroutines {
			return threadsnap.FormatGoroutines(std.out, s)
		}
		return threadsnap.Format(std.out, s)
	}
}

// askGuest sends c, under a random id, on the control socket sock (QEMU's under run -sockets
// DIR, or the launcher's under run -ctl SOCK) and returns the payload of the RESP frame that
// answers it. Other frames (EVENTs, replies to a previous client's commands that were still
// queued) are skipped.
func askGuest(sock string, c ctl.Command, timeout time.Duration) ([]byte, error) {
	conn, err := net.DialTimeout("unix", sock, timeout)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(timeout))
	c.ID = rand.Uint32N(1<<31) + 1 // 0 is the id of refused garbage
	var buf [ctl.MaxCommand]byte
	n, ok := c.Encode(buf[:])
	if !ok {
		return nil, fmt.Errorf("the %s command does not encode", c.Op)
	}
	errClosed := errors.New("the guest's control port closed before the guest replied")
	if err := wire.NewWriter(conn).WriteFrame(wire.TypeCmd, 0, buf[:n]); errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET) {
		return nil, errClosed
	} else if err != nil {
		return nil, fmt.Errorf("sending the command: %w", err)
	}
	rd := wire.NewReader(conn)
	for {
		f, err := rd.Next()
		var fe *wire.FrameError
		switch {
		case errors.As(err, &fe):
			continue // the reader resynchronised on the next frame
		case errors.Is(err, os.ErrDeadlineExceeded):
			return nil, fmt.Errorf("no reply from the guest within %v", timeout)
		case errors.Is(err, io.EOF), errors.Is(err, syscall.ECONNRESET):
			return nil, errClosed
		case err != nil:
			return nil, fmt.Errorf("reading the reply: %w", err)
		}
		if f.Type != wire.TypeResp {
			continue
		}
		var id struct {
			ID uint32 `json:"id"`
		}
		if json.Unmarshal(f.Payload, &id) == nil && id.ID == c.ID {
			return f.Payload, nil
		}
	}
}
