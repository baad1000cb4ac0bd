package main

import (
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

func recordCommand(std stdio, name string, args []string) error {
	fs := newFlagSet(std, name, "-data SOCK -ctl SOCK [-trace GLOBS] [-backtrace] [-d DURATION] -o FILE", recordDoc)
	data := fs.String("data", "", "socket of the org.unitrace.data port")
	ctlPath := fs.String("ctl", "", "socket of the org.unitrace.ctl port")
	tps := fs.String("trace", "", "enable these tracepoints (GLOB[,GLOB...])")
	bt := fs.Bool("backtrace", false, "with a backtrace")
	out := fs.String("o", "", "recording file")
	dur := fs.Duration("d", 0, "stop after this long (0: when the guest ends the session or on ^C)")
	elfPath := fs.String("elf", "", "the image the guest runs, noted in the recording")
	if err := fs.Parse(args); err != nil {
		return flagError(err)
	}
	if fs.NArg() != 0 || *data == "" || *ctlPath == "" || *out == "" {
		return usageError{"want -data SOCK -ctl SOCK -o FILE and no other arguments"}
	}
	for _, g := range globs(*tps) {
		if g == "" || len(g) > ctl.MaxString {
			return usageError{fmt.Sprintf("-trace glob %q: empty or longer than %d bytes", g, ctl.MaxString)}
		}
	}
	dc, err := net.Dial("unix", *data)
	if err != nil {
		return err
	}
	defer dc.Close()
	cc, err := net.Dial("unix", *ctlPath)
	if err != nil {
		return err
	}
	defer cc.Close()

	host := &tracefile.Host{Start: time.Now().UTC(), Tool: "unitrace record"}
	if *elfPath != "" {
		host.Image, _ = filepath.Abs(*elfPath)
		id, err := tracefile.ReadBuildID(*elfPath)
		if err != nil {
			return err
		}
		host.BuildID = tracefile.BuildIDHex(id)
	}
	rec, err := newRecorder(*out, host)
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
	for _, g := range globs(*tps) {
		if err != nil {
			break
		}
		c := ctl.Command{Op: ctl.OpEnable, Has: ctl.HasMatch | ctl.HasStack, Stack: *bt, MatchLen: uint8(len(g))}
		copy(c.Match[:], g)
		err = send(c)
	}
	if err == nil {
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
		var timeout <-chan time.Time
		if *dur > 0 {
			timeout = time.After(*dur)
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
