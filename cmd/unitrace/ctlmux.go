package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/unitrace/unitrace/trace/ctl"
	"github.com/unitrace/unitrace/trace/wire"
)

// ctlMux shares the guest's control port (one connection, which QEMU makes to the launcher)
// among the launcher's own commands (the signal on ^C) and the clients of run -ctl SOCK. Each
// command goes out with an id of the mux's own and its reply comes back to whoever sent it
// with the sender's id, so two clients that both use id 1 cannot take each other's replies.
// Commands sent before QEMU has connected wait in order; the guest reads them once its agent
// runs. Frames nobody asked for (EVENTs, replies to ids the mux did not give out) are logged
// when log is set, as the trace session always did, and EVENTs go to every client.
type ctlMux struct {
	log    io.Writer // nil: log nothing
	prefix string    // starts each log line ("unitrace run: ")

	mu      sync.Mutex
	guest   io.Writer // nil until attach
	out     *wire.Writer
	waiting [][]byte // encoded commands sent before attach
	next    uint32   // the last id given out
	pending map[uint32]pendingReply
	events  map[*ctlClient]bool
	closed  bool
	writeMu sync.Mutex // one frame at a time on the guest connection
}

// pendingReply is where the reply to one command goes: deliver gets the reply with the
// sender's id back in it.
type pendingReply struct {
	id      uint32
	deliver func(reply []byte)
}

// maxWaiting bounds the commands held for a guest that has not connected.
const maxWaiting = 64

func newCtlMux(log io.Writer, prefix string) *ctlMux {
	return &ctlMux{log: log, prefix: prefix, pending: map[uint32]pendingReply{}, events: map[*ctlClient]bool{}}
}

// errCtlClosed is the error of a command sent after the guest's control port went away. The
// error of a command whose write to the guest failed wraps it too: the guest will not answer
// either, and the mux closes once its reader sees the connection end.
var errCtlClosed = errors.New("the guest's control port is closed")

// send sends c to the guest under a fresh id; deliver gets the guest's reply, with c.ID in it.
// It does not wait for the reply. An error that wraps errCtlClosed means the guest is gone.
func (m *ctlMux) send(c ctl.Command, deliver func(reply []byte)) error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return errCtlClosed
	}
	m.next++
	if m.next == 0 {
		m.next = 1 // 0 is the id of a command the guest could not parse
	}
	id := m.next
	if _, busy := m.pending[id]; busy {
		m.mu.Unlock()
		return fmt.Errorf("%d commands await a reply", len(m.pending))
	}
	orig := c.ID
	c.ID = id
	var buf [ctl.MaxCommand]byte
	n, ok := c.Encode(buf[:])
	if !ok {
		m.mu.Unlock()
		return fmt.Errorf("the %s command does not encode", c.Op)
	}
	payload := bytes.Clone(buf[:n])
	if m.guest == nil {
		if len(m.waiting) >= maxWaiting {
			m.mu.Unlock()
			return fmt.Errorf("%d commands already wait for the guest to connect", maxWaiting)
		}
		m.waiting = append(m.waiting, payload)
	}
	m.pending[id] = pendingReply{id: orig, deliver: deliver}
	attached := m.guest != nil
	m.mu.Unlock()
	if !attached {
		return nil
	}
	if err := m.write(payload); err != nil {
		m.mu.Lock()
		delete(m.pending, id)
		m.mu.Unlock()
		return fmt.Errorf("sending the %s command: %w: %w", c.Op, errCtlClosed, err)
	}
	return nil
}

func (m *ctlMux) write(payload []byte) error {
	m.writeMu.Lock()
	defer m.writeMu.Unlock()
	return m.out.WriteFrame(wire.TypeCmd, 0, payload)
}

// attach serves the guest's control connection until it ends: first the commands that waited
// for it, then every reply routed to its sender. It closes the mux when the guest is gone.
func (m *ctlMux) attach(conn io.ReadWriter) {
	defer m.close()
	m.writeMu.Lock() // before the commands that wait are released: they go out first, in order
	m.mu.Lock()
	m.guest, m.out = conn, wire.NewWriter(conn)
	waiting := m.waiting
	m.waiting = nil
	m.mu.Unlock()
	var err error
	for _, p := range waiting {
		if err = m.out.WriteFrame(wire.TypeCmd, 0, p); err != nil {
			break
		}
	}
	m.writeMu.Unlock()
	if err != nil {
		m.logf("ctl: sending the commands that waited: %v", err)
	}
	rd := wire.NewReader(conn)
	for {
		f, err := rd.Next()
		var fe *wire.FrameError
		switch {
		case errors.As(err, &fe):
			m.logf("ctl: %v", fe)
			continue
		case err != nil:
			return
		}
		switch f.Type {
		case wire.TypeResp:
			m.reply(f.Payload)
		case wire.TypeEvent:
			m.logf("ctl %s: %s", f.Type, f.Payload)
			m.broadcast(f.Payload)
		}
	}
}

// reply hands a RESP payload to the sender of its command, with the sender's id.
func (m *ctlMux) reply(payload []byte) {
	var head struct {
		ID uint32 `json:"id"`
	}
	json.Unmarshal(payload, &head)
	m.mu.Lock()
	p, ok := m.pending[head.ID]
	if ok && head.ID != 0 {
		delete(m.pending, head.ID)
	}
	m.mu.Unlock()
	if !ok || head.ID == 0 {
		m.logf("ctl %s: %s", wire.TypeResp, payload) // nobody here asked for it
		return
	}
	if back, ok := replaceID(payload, p.id); ok {
		payload = back
	}
	p.deliver(payload)
}

// broadcast sends an EVENT to every client.
func (m *ctlMux) broadcast(payload []byte) {
	m.mu.Lock()
	var to []*ctlClient
	for c := range m.events {
		to = append(to, c)
	}
	m.mu.Unlock()
	for _, c := range to {
		c.write(wire.TypeEvent, payload)
	}
}

// subscribe and unsubscribe add and remove a client for the EVENT frames.
func (m *ctlMux) subscribe(c *ctlClient) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return false
	}
	m.events[c] = true
	return true
}

func (m *ctlMux) unsubscribe(c *ctlClient) {
	m.mu.Lock()
	delete(m.events, c)
	m.mu.Unlock()
}

// close ends the mux: later commands fail, and the clients are closed (a client waiting for a
// reply sees its connection end).
func (m *ctlMux) close() {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.closed = true
	clients := m.events
	m.events = map[*ctlClient]bool{}
	m.pending = map[uint32]pendingReply{}
	m.mu.Unlock()
	for c := range clients {
		c.close()
	}
}

func (m *ctlMux) logf(format string, args ...any) {
	if m.log != nil {
		fmt.Fprintf(m.log, "%s"+format+"\n", append([]any{m.prefix}, args...)...)
	}
}

// replaceID returns a copy of payload, a JSON object, whose top-level "id" member has the
// number id instead, every other byte as it was (a client printing the reply as it came sees
// the guest's own text).
func replaceID(payload []byte, id uint32) ([]byte, bool) {
	dec := json.NewDecoder(bytes.NewReader(payload))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, false
		}
		start := dec.InputOffset() // after the key: the colon, space and the value follow
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		if t != "id" {
			continue
		}
		if _, err := strconv.ParseUint(string(v), 10, 32); err != nil {
			return nil, false
		}
		end := dec.InputOffset()
		i := int(start) + bytes.LastIndex(payload[start:end], v)
		out := append(bytes.Clone(payload[:i]), strconv.FormatUint(uint64(id), 10)...)
		return append(out, payload[i+len(v):]...), true
	}
	return nil, false
}
