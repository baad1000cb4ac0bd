package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/unitrace/unitrace/trace/ctl"
	"github.com/unitrace/unitrace/trace/wire"
)

// ctlProxy is run -ctl SOCK: the launcher listens on SOCK and passes each client's commands to
// the guest's control port through the mux, and the replies back. A client speaks to it as to
// the socket QEMU serves under run -sockets DIR (DIR/ctl.sock): CMD frames in, RESP and EVENT
// frames out. Unlike that socket, any number of clients may be connected at once.
type ctlProxy struct {
	path string
	ln   net.Listener
	mux  *ctlMux
	wg   sync.WaitGroup
}

// listenCtlProxy listens on path. A socket file left there by a launcher that is gone (nobody
// accepts on it) is replaced; anything else there is an error.
func listenCtlProxy(path string, mux *ctlMux) (*ctlProxy, error) {
	ln, err := net.Listen("unix", path)
	if errors.Is(err, syscall.EADDRINUSE) {
		if fi, serr := os.Lstat(path); serr == nil && fi.Mode()&os.ModeSocket != 0 {
			if c, derr := net.Dial("unix", path); derr == nil {
				c.Close()
				return nil, fmt.Errorf("-ctl %s: another program listens on it", path)
			}
			os.Remove(path)
			ln, err = net.Listen("unix", path)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("-ctl: %w", err)
	}
	p := &ctlProxy{path: path, ln: ln, mux: mux}
	p.wg.Go(p.accept)
	return p, nil
}

func (p *ctlProxy) accept() {
	for {
		conn, err := p.ln.Accept()
		if err != nil {
			return
		}
		c := &ctlClient{conn: conn, out: wire.NewWriter(conn)}
		if !p.mux.subscribe(c) {
			conn.Close()
			continue
		}
		p.wg.Go(func() {
			defer p.mux.unsubscribe(c)
			defer c.close()
			c.serve(p.mux)
		})
	}
}

// close stops listening, removes the socket and waits for the clients, which the mux's close
// has disconnected.
func (p *ctlProxy) close() {
	p.ln.Close() // a unix listener removes its socket file
	p.wg.Wait()
}

// ctlClient is one connection to the proxy.
type ctlClient struct {
	conn net.Conn
	mu   sync.Mutex
	out  *wire.Writer
}

// serve reads the client's commands until it hangs up. A command the guest would refuse as
// malformed is refused here, in the guest's words (the mux re-encodes what it sends, so it must
// parse it); the rest go to the guest. A command that cannot reach the guest because the guest
// is gone gets no reply, like one the guest got and never answered: the client hears of it
// when the mux closes and hangs up on it, after the replies the guest did send.
func (c *ctlClient) serve(mux *ctlMux) {
	rd := wire.NewReader(c.conn)
	for {
		f, err := rd.Next()
		var fe *wire.FrameError
		switch {
		case errors.As(err, &fe):
			continue // resynchronised on the next frame, as the guest's reader does
		case err != nil:
			return
		}
		if f.Type != wire.TypeCmd {
			continue // the guest ignores everything else too
		}
		cmd, perr := ctl.Parse(f.Payload)
		if perr != ctl.ErrNone {
			c.refuse(lenientID(f.Payload), perr.Message())
			continue
		}
		err = mux.send(cmd, func(reply []byte) { c.write(wire.TypeResp, reply) })
		if errors.Is(err, errCtlClosed) {
			// Not refused: a client cannot tell the launcher's refusal from the guest's (both
			// are a RESP with an error), so one would read as the guest's answer to a
			// command that never reached it.
			continue
		} else if err != nil {
			c.refuse(cmd.ID, err.Error())
		}
	}
}

// refuse answers the client's command id with an error of the launcher's.
func (c *ctlClient) refuse(id uint32, msg string) {
	b, _ := json.Marshal(struct {
		ID    uint32 `json:"id"`
		Error string `json:"error"`
	}{id, msg})
	c.write(wire.TypeResp, b)
}

// write sends one frame to the client; a client that went away is not an error of anyone's,
// and one that does not read is cut off rather than stall the guest's other replies.
func (c *ctlClient) write(typ wire.Type, payload []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.conn.SetWriteDeadline(time.Now().Add(clientWriteTimeout))
	if c.out.WriteFrame(typ, 0, payload) != nil {
		c.conn.Close()
	}
}

// clientWriteTimeout is how long a -ctl client may leave a frame unread.
const clientWriteTimeout = 10 * time.Second

func (c *ctlClient) close() { c.conn.Close() }

// lenientID digs the id out of a command that did not parse, as the guest's agent does, so the
// client can tell which command was refused; 0 when there is none.
func lenientID(body []byte) uint32 {
	var v struct {
		ID uint32 `json:"id"`
	}
	if json.Unmarshal(body, &v) != nil {
		return 0
	}
	return v.ID
}
