package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/unitrace/unitrace/internal/tracefile"
	"github.com/unitrace/unitrace/internal/vmconfig"
)

// traceSession is the tracing side of "unitrace run -trace": it listens on
// the two port sockets before QEMU starts (QEMU connects to them as a
// client), records the data port and hands the control port to a ctlMux.
type traceSession struct {
	dir           string
	tmp           bool
	dataLn, ctlLn net.Listener
	rec           *recorder
	mu            sync.Mutex
	conns         []net.Conn
	wg            sync.WaitGroup
	stopProgress  func()
	dataErr       error
	dataSeen      bool
	drainTimeout  time.Duration
	logPrefix     string
	file          string // the recording
}

// socketNames are the socket file names inside the session directory.
const (
	dataSocket = "data.sock"
	ctlSocket  = "ctl.sock"
)

// listenTrace makes a temporary directory and listens on both sockets.
func listenTrace() (*traceSession, *vmconfig.TracePorts, error) {
	dir, err := os.MkdirTemp("", "unitrace-")
	if err != nil {
		return nil, nil, err
	}
	s := &traceSession{dir: dir, tmp: true, drainTimeout: 5 * time.Second, logPrefix: "unitrace run: "}
	ports := &vmconfig.TracePorts{Data: filepath.Join(dir, dataSocket), Ctl: filepath.Join(dir, ctlSocket)}
	if s.dataLn, err = net.Listen("unix", ports.Data); err == nil {
		s.ctlLn, err = net.Listen("unix", ports.Ctl)
	}
	if err != nil {
		s.cleanup()
		return nil, nil, err
	}
	return s, ports, nil
}

// start opens the recording and begins accepting QEMU's connections; mux serves the control
// port's.
func (s *traceSession) start(file string, host *tracefile.Host, std stdio, mux *ctlMux) error {
	s.file = file
	rec, err := newRecorder(file, host)
	if err != nil {
		return err
	}
	s.rec = rec
	s.stopProgress = rec.progress(std.err)
	s.wg.Go(func() {
		c, err := s.accept(s.dataLn)
		if err != nil {
			return
		}
		s.dataSeen = true
		s.dataErr = rec.copyFrom(c)
	})
	s.wg.Go(func() {
		c, err := s.accept(s.ctlLn)
		if err != nil {
			return
		}
		mux.attach(c)
	})
	return nil
}

func (s *traceSession) accept(ln net.Listener) (net.Conn, error) {
	c, err := ln.Accept()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.conns = append(s.conns, c)
	s.mu.Unlock()
	return c, nil
}

// finish runs after QEMU has exited: QEMU's end closes the connections, so
// the readers see EOF; a reader still busy after drainTimeout is cut off.
// It closes the file and prints the summary line.
func (s *traceSession) finish(std stdio) error {
	s.dataLn.Close() // unblock Accept if QEMU never connected
	s.ctlLn.Close()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(s.drainTimeout):
		s.mu.Lock()
		for _, c := range s.conns {
			c.Close()
		}
		s.mu.Unlock()
		<-done
	}
	s.stopProgress()
	err := s.rec.close()
	if err == nil {
		err = s.dataErr
	}
	fmt.Fprintf(std.err, "%s%s\n", s.logPrefix, s.rec.summary())
	if !s.dataSeen {
		fmt.Fprintf(std.err, "%sthe guest never opened the trace data port\n", s.logPrefix)
	}
	s.cleanup()
	return err
}

func (s *traceSession) cleanup() {
	if s.dataLn != nil {
		s.dataLn.Close()
	}
	if s.ctlLn != nil {
		s.ctlLn.Close()
	}
	if s.tmp {
		os.RemoveAll(s.dir)
	}
}
