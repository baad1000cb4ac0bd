package main

import (
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/unitrace/unitrace/internal/tracefile"
	"github.com/unitrace/unitrace/trace/ctl"
	"github.com/unitrace/unitrace/trace/wire"
)

const recordDoc = `Attach to a running guest's trace ports and record them. The sockets are
ones QEMU listens on ("unitrace run -sockets DIR" makes them): record
connects to both, asks the guest for HELLO and DICT (the "hello" command),
enables the -trace tracepoints, and writes everything from the data port to
FILE until -d has passed, the guest ends the session, or ^C. Then it asks
the guest to flush and gives it a second to do so.
`

var recordCommand = command{
	name:     "record",
	synopsis: "-data SOCK -ctl SOCK [-trace GLOBS] [-backtrace] [-d DURATION] [-elf ELF] -o FILE",
	summary:  "attach to a running guest's trace ports (run -sockets DIR) and record",
	doc:      recordDoc,
	setup:    recordSetup,
}

// recordOptions is the parsed command line of "unitrace record".
type recordOptions struct {
	data, ctl string // the port sockets
	trace     string // tracepoint globs, comma-separated
	backtrace bool
	out       string
	duration  time.Duration
	elf       string
}

func recordSetup(fs *flag.FlagSet) func(std stdio, args []string) error {
	var o recordOptions
	fs.StringVar(&o.data, "data", "", "socket of the org.unitrace.data port")
	fs.StringVar(&o.ctl, "ctl", "", "socket of the org.unitrace.ctl port")
	fs.StringVar(&o.trace, "trace", "", "enable these tracepoints (GLOB[,GLOB...])")
	fs.BoolVar(&o.backtrace, "backtrace", false, "with a backtrace")
	fs.StringVar(&o.out, "o", "", "recording file")
	fs.DurationVar(&o.duration, "d", 0, "stop after this long (0: when the guest ends the session or on ^C)")
	fs.StringVar(&o.elf, "elf", "", "the image the guest runs, noted in the recording")
	return func(std stdio, args []string) error {
		if err := fs.Parse(args); err != nil {
			return flagError(err)
		}
		if fs.NArg() != 0 || o.data == "" || o.ctl == "" || o.out == "" {
			return usageError{"want -data SOCK -ctl SOCK -o FILE and no other arguments"}
		}
		for _, g := range globs(o.trace) {
			if g == "" || len(g) > ctl.MaxString {
				return usageError{fmt.Sprintf("-trace glob %q: empty or longer than %d bytes", g, ctl.MaxString)}
			}
		}
		return recordGuest(std, o)
	}
}

// recordGuest attaches to the guest's ports and records until the session ends.
func recordGuest(std stdio, o recordOptions) error {
	dc, err := net.Dial("unix", o.data)
	if err != nil {
		return err
	}
	defer dc.Close()
	cc, err := net.Dial("unix", o.ctl)
	if err != nil {
		return err
	}
	defer cc.Close()

	host := &tracefile.Host{Start: time.Now().UTC(), Tool: "unitrace record"}
	if o.elf != "" {
		host.Image, _ = filepath.Abs(o.elf)
		id, err := tracefile.ReadBuildID(o.elf)
		if err != nil {
			return err
		}
		host.BuildID = tracefile.BuildIDHex(id)
	}
	rec, err := newRecorder(o.out, host)
	if err != nil {
		return err
	}
	stopProgress := rec.progress(std.err)
	var wg sync.WaitGroup
	copied := make(chan error, 1)
	wg.Go(func() { copied <- rec.copyFrom(dc) })
	wg.Go(func() { logControl(cc, std.err, "unitrace record: ") })

	cw := wire.NewWriter(cc)
	id := uint32(0)
	send := func(c ctl.Command) error {
		id++
		c.ID = id
		var buf [ctl.MaxCommand]byte
		n, ok := c.Encode(buf[:])
		if !ok {
			return fmt.Errorf("command %s does not encode", c.Op)
		}
		return cw.WriteFrame(wire.TypeCmd, 0, buf[:n])
	}
	err = send(ctl.Command{Op: ctl.OpHello})
	for _, g := range globs(o.trace) {
		if err != nil {
			break
		}
		c := ctl.Command{Op: ctl.OpEnable, Has: ctl.HasMatch | ctl.HasStack, Stack: o.backtrace, MatchLen: uint8(len(g))}
		copy(c.Match[:], g)
		err = send(c)
	}
	if err == nil {
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
		var timeout <-chan time.Time
		if o.duration > 0 {
			timeout = time.After(o.duration)
		}
		select {
		case err = <-copied: // the guest closed the port
			copied <- err
		case <-timeout:
		case <-sigs:
		}
		signal.Stop(sigs)
		send(ctl.Command{Op: ctl.OpFlush})
		select {
		case err = <-copied:
			copied <- err
		case <-time.After(time.Second):
		}
	}
	dc.Close()
	cc.Close()
	wg.Wait()
	if cerr := <-copied; err == nil {
		err = cerr
	}
	stopProgress()
	if cerr := rec.close(); err == nil {
		err = cerr
	}
	fmt.Fprintf(std.err, "unitrace record: %s\n", rec.summary())
	return err
}
