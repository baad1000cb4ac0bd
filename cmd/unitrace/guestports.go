package main

import (
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/unitrace/unitrace/internal/hostnet"
	"github.com/unitrace/unitrace/internal/vmconfig"
)

// guestPorts is what the launcher holds of the guest's ports while QEMU runs: the trace
// session (data and control port, when tracing), or the control port alone (every other run
// on a machine with virtio-mmio), the mux over the control port, and the -ctl proxy. Under
// -sockets QEMU serves the ports itself and the launcher holds none.
type guestPorts struct {
	session *traceSession
	control *controlPort
	mux     *ctlMux // nil: no control port of the launcher's (-sockets, q35, pc)
	proxy   *ctlProxy
	net     *netPort // the guest's sockets; nil with -net=none or without virtio-mmio
}

// setupPorts listens on the sockets cfg.Trace names (guest put placeholders there), before
// QEMU starts, and on -ctl SOCK.
func setupPorts(o runOptions, cfg *vmconfig.Config, image, accel, tool string, std stdio) (*guestPorts, error) {
	p := &guestPorts{}
	switch {
	case o.tracing():
		if o.sockets == "" {
			p.mux = newCtlMux(std.err, tool+": ") // the session logged the control port, and still does
		}
		var err error
		if p.session, err = setupTrace(o, cfg, image, accel, tool, std, p.mux); err != nil {
			return nil, err
		}
	case cfg.Trace != nil:
		p.mux = newCtlMux(nil, "")
		var err error
		if p.control, err = listenControl(cfg.Trace, p.mux); err != nil {
			return nil, err
		}
	}
	if o.ctlSock != "" && p.mux != nil {
		var err error
		if p.proxy, err = listenCtlProxy(o.ctlSock, p.mux); err != nil {
			p.finish(std)
			return nil, err
		}
	}
	if cfg.Trace != nil && o.netMode != netNone {
		var err error
		opts := hostnet.Options{Listen: o.listen, Log: std.err}
		if p.net, cfg.Trace.Net, err = listenNet(opts, tool, std.err); err != nil {
			p.finish(std)
			return nil, err
		}
	}
	return p, nil
}

// finish runs after QEMU has exited: it ends the recording (the error is the recording's),
// disconnects the -ctl clients and removes the sockets.
func (p *guestPorts) finish(std stdio) error {
	var err error
	if p.session != nil {
		err = p.session.finish(std)
	}
	if p.control != nil {
		p.control.finish()
	}
	if p.mux != nil {
		p.mux.close()
	}
	if p.proxy != nil {
		p.proxy.close()
	}
	if p.net != nil {
		p.net.finish()
	}
	return err
}

// controlPort is the control port of a run without tracing: the launcher listens on a socket
// in a temporary directory, QEMU connects to it, and the mux serves the connection.
type controlPort struct {
	dir  string
	ln   net.Listener
	wg   sync.WaitGroup
	mu   sync.Mutex
	conn net.Conn
}

// listenControl makes the temporary directory, points ports.Ctl into it and listens there.
func listenControl(ports *vmconfig.TracePorts, mux *ctlMux) (*controlPort, error) {
	dir, err := os.MkdirTemp("", "unitrace-")
	if err != nil {
		return nil, err
	}
	ports.Ctl = filepath.Join(dir, ctlSocket)
	ln, err := net.Listen("unix", ports.Ctl)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	p := &controlPort{dir: dir, ln: ln}
	p.wg.Go(func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		p.conn = c
		p.mu.Unlock()
		mux.attach(c)
	})
	return p, nil
}

// controlDrain is how long finish waits for the guest's connection to end by itself.
const controlDrain = 2 * time.Second

// finish stops listening, gives the connection a moment to end (QEMU's exit closes it) and
// removes the directory.
func (p *controlPort) finish() {
	p.ln.Close()
	done := make(chan struct{})
	go func() { p.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(controlDrain):
		p.mu.Lock()
		if p.conn != nil {
			p.conn.Close()
		}
		p.mu.Unlock()
		<-done
	}
	os.RemoveAll(p.dir)
}
