package agent

import (
	"encoding/json"
	"errors"
	"io"
	"syscall"

	"github.com/unitrace/unitrace/sampler"
	"github.com/unitrace/unitrace/trace"
	"github.com/unitrace/unitrace/trace/ctl"
	"github.com/unitrace/unitrace/trace/ring"
	"github.com/unitrace/unitrace/trace/wire"
)

// The control loop: CMD frames from the host on the control port, each answered by one RESP
// frame with the command's id. Commands are parsed strictly (trace/ctl); a malformed or unknown
// one gets an error reply and changes nothing.

// ctlPort reads and writes the control port descriptor.
type ctlPort struct{}

func (ctlPort) Read(p []byte) (int, error) {
	for {
		n, err := syscall.Read(CtlFD, p)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return 0, err
		case n == 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (ctlPort) Write(p []byte) (int, error) {
	done := 0
	for done < len(p) {
		n, err := syscall.Write(CtlFD, p[done:])
		if err != nil {
			return done, err
		}
		done += n
	}
	return done, nil
}

func (a *agent) serveControl() {
	r := wire.NewReader(ctlPort{})
	w := wire.NewWriter(ctlPort{})
	for {
		f, err := r.Next()
		if err != nil {
			var fe *wire.FrameError
			if errors.As(err, &fe) {
				continue // a damaged frame: the reader has resynchronised on the next one
			}
			return // the port is gone
		}
		if f.Type != wire.TypeCmd {
			continue
		}
		body, then := a.execute(f.Payload)
		if w.WriteFrame(wire.TypeResp, 0, body) != nil {
			return
		}
		if then != nil {
			then()
		}
	}
}

// response is a RESP body: the command's id, then ok or error, then what the command returns.
type response struct {
	ID     uint32      `json:"id"`
	OK     bool        `json:"ok,omitempty"`
	Error  string      `json:"error,omitempty"`
	Points []pointInfo `json:"points,omitempty"`
	// Matched is how many tracepoints an enable or disable changed.
	Matched *int `json:"matched,omitempty"`
	// Bytes is how many record bytes a flush, snapshot or stop sent.
	Bytes *uint64 `json:"bytes,omitempty"`
	// Written and Dropped total the counters of every CPU (stats).
	Written *uint64 `json:"written,omitempty"`
	Dropped *uint64 `json:"dropped,omitempty"`
	// Hz is the sampling rate in force after sampler.start.
	Hz *uint64 `json:"hz,omitempty"`
	// Ticks bounds the sampler's run in record time: sampler.start's samples are all younger,
	// sampler.stop's all older.
	Ticks *uint64 `json:"ticks,omitempty"`
	// CPUs is how many CPUs are online, and Unanswered those that did not acknowledge a
	// sampler.start or sampler.stop (left out when all did: the command still succeeded on the
	// others).
	CPUs       *uint64 `json:"cpus,omitempty"`
	Unanswered []int   `json:"unanswered,omitempty"`
	// Sites is how many breakpoints a probe.arm wrote; Hits how many hits a probe's sites
	// counted (probe.hits, and probe.del: up to its removal).
	Sites *uint64 `json:"sites,omitempty"`
	Hits  *uint64 `json:"hits,omitempty"`
	// Probe is the number probe.new took; ProbeSites the sites probe.list found.
	Probe      *uint64         `json:"probe,omitempty"`
	ProbeSites []probeSiteInfo `json:"probe_sites,omitempty"`
	// Stacks is the stacks command's snapshot; the goroutines command's has the goroutines
	// too.
	Stacks     *stacksReply     `json:"stacks,omitempty"`
	Goroutines *goroutinesReply `json:"goroutines,omitempty"`

	// detail is appended to the error text (a malformed snapshot: which entry and why).
	detail string
}

type pointInfo struct {
	Name               string `json:"name"`
	Format             string `json:"format"`
	Enabled            bool   `json:"enabled"`
	Backtrace          bool   `json:"backtrace"`
	InterruptBacktrace bool   `json:"interrupt_backtrace"`
}

// execute runs one command and returns its RESP body, and what to do once the reply is out
// (nil for nothing).
func (a *agent) execute(body []byte) (reply []byte, then func()) {
	c, perr := ctl.Parse(body)
	resp := response{ID: c.ID}
	if perr != ctl.ErrNone {
		resp.ID = lenientID(body) // so the host can tell which command was refused
		resp.Error = perr.Message()
		return encode(resp), nil
	}
	if c.Op == ctl.OpSignal {
		// Also after stop and without the tracer. The signal goes after the reply: it may end
		// the program (SIGQUIT's dump, a signal the program does not handle), and the host must
		// still learn that it was sent.
		if e := canSignal(); e != ctl.ErrNone {
			return encode(response{ID: c.ID, Error: e.Message()}), nil
		}
		return encode(response{ID: c.ID, OK: true}), func() { raise(c.Sig) }
	}
	if c.Op == ctl.OpResume {
		resume()
		return encode(response{ID: c.ID, OK: true}), nil
	}
	if c.Op == ctl.OpStdinOpen || c.Op == ctl.OpStdinEnd {
		if e := stdinCommand(&c); e != ctl.ErrNone {
			return encode(response{ID: c.ID, Error: e.Message()}), nil
		}
		return encode(response{ID: c.ID, OK: true}), nil
	}
	if e := a.run1(&c, &resp); e != ctl.ErrNone {
		msg := e.Message()
		if resp.detail != "" {
			msg += ": " + resp.detail
		}
		resp = response{ID: c.ID, Error: msg}
	} else {
		resp.OK = true
	}
	return encode(resp), nil
}

// encode marshals a reply. One that would not fit a frame is replaced by an error: the frame
// writer would refuse it, and the control loop would end.
func encode(r response) []byte {
	b, err := json.Marshal(r)
	if err != nil {
		return []byte(`{"error":"internal error"}`)
	}
	if len(b) > wire.MaxPayload {
		b, _ = json.Marshal(response{ID: r.ID, Error: "reply too large for one frame"})
	}
	return b
}

// run1 carries out a parsed command.
func (a *agent) run1(c *ctl.Command, resp *response) ctl.Err {
	if !a.tracer {
		return ctl.ErrNoTracer
	}
	switch c.Op {
	case ctl.OpStacks:
		return stacks(resp) // reads no ring and sends nothing on the data port: also after stop
	case ctl.OpGoroutines:
		return goroutinesCmd(resp)
	case ctl.OpProbeSite, ctl.OpProbeArm, ctl.OpProbeDel, ctl.OpProbeNew, ctl.OpProbeList:
		return probeCmd(c, resp)
	}
	if trace.Stopped() && c.Op != ctl.OpList {
		return ctl.ErrStopped // after stop the session is over: END is out
	}
	switch c.Op {
	case ctl.OpList:
		for i := 0; i < trace.NumPoints(); i++ {
			p := trace.PointAt(i)
			if !ctl.Match(c.Pattern(), p.Name) {
				continue
			}
			f := p.Flags()
			resp.Points = append(resp.Points, pointInfo{Name: p.Name, Format: p.Format,
				Enabled: f&trace.Enabled != 0, Backtrace: f&trace.Backtrace != 0,
				InterruptBacktrace: f&trace.InterruptBacktrace != 0})
		}
		return ctl.ErrNone
	case ctl.OpEnable:
		flags := trace.Enabled
		if c.Stack {
			flags |= trace.Backtrace
		}
		n := trace.Enable(c.Pattern(), flags)
		resp.Matched = &n
		return ctl.ErrNone
	case ctl.OpDisable:
		flags := trace.Enabled | trace.Backtrace
		if c.Has&ctl.HasStack != 0 && c.Stack {
			flags = trace.Backtrace // "stack": keep the points on, stop their backtraces
		}
		n := trace.Disable(c.Pattern(), flags)
		resp.Matched = &n
		return ctl.ErrNone
	case ctl.OpSamplerStart:
		hz := uint64(sampler.DefaultHz)
		if c.Has&ctl.HasHz != 0 {
			hz = uint64(c.Hz)
		}
		force := uint64(0)
		if c.Force {
			force = 1
		}
		before := trace.Ticks() // no sample of this run is older
		got, err := kernelCtlValue(trace.CtlSamplerStart, hz, force)
		switch err {
		case nil:
		case syscall.ENOSYS, syscall.ENODEV:
			return ctl.ErrUnavailable
		default:
			return ctl.ErrBadHz // EINVAL: the kernel's sampler refuses the rate
		}
		resp.Hz, resp.Ticks = &got, &before
		crossCPU(resp)
		return ctl.ErrNone
	case ctl.OpSamplerStop:
		// The kernel returns once the timer can take no further sample, with the tick count
		// at that moment: the reply is the acknowledgement the host waits for, and no sample
		// is younger than its ticks.
		at, err := kernelCtlValue(trace.CtlSamplerStop, 0, 0)
		switch err {
		case nil:
		case syscall.ENOSYS, syscall.ENODEV, syscall.EINVAL:
			return ctl.ErrUnavailable
		default:
			return ctl.ErrFailed
		}
		resp.Ticks = &at
		crossCPU(resp)
		return ctl.ErrNone
	}
	// The rest use the data port: one at a time, between the drain loop's passes.
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.stopped {
		return ctl.ErrFailed
	}
	switch c.Op {
	case ctl.OpHello:
		return status(a.sendHello())
	case ctl.OpMode:
		return a.setMode(c)
	case ctl.OpFlush, ctl.OpSnapshot:
		// A flush empties the stream rings; a snapshot dumps what the flight rings hold that was
		// not sent yet. Both do both kinds: a ring's records go out once either way.
		if err := kernelCtl(trace.CtlFlushLost, 0, 0); err != nil {
			return ctl.ErrFailed
		}
		n, err := a.drainAll()
		resp.Bytes = &n
		return status(err)
	case ctl.OpStats:
		s := stats()
		var written, dropped uint64
		for _, c := range s.CPUs {
			written += c.Written
			dropped += c.Dropped()
		}
		resp.Written, resp.Dropped = &written, &dropped
		return status(send(s))
	case ctl.OpStop:
		return status(a.finish())
	}
	return ctl.ErrUnknownCmd
}

// setMode re-initialises the rings; the host learns the new mode from the HELLO that follows.
func (a *agent) setMode(c *ctl.Command) ctl.Err {
	r := trace.Ring(0)
	if r == nil {
		return ctl.ErrFailed
	}
	mode := r.Mode()
	switch c.Ring {
	case ctl.RingStream:
		mode = ring.Stream
	case ctl.RingFlight:
		mode = ring.Flight
	}
	// Send what the rings hold first: re-initialising discards it.
	if kernelCtl(trace.CtlFlushLost, 0, 0) != nil {
		return ctl.ErrFailed
	}
	if _, err := a.drainAll(); err != nil {
		return ctl.ErrFailed
	}
	if err := kernelCtl(trace.CtlMode, uint64(mode), c.Size); err != nil {
		if err == syscall.ENOMEM {
			return ctl.ErrBadSize
		}
		return ctl.ErrFailed
	}
	return status(a.sendHello())
}

func status(err error) ctl.Err {
	if err != nil {
		return ctl.ErrFailed
	}
	return ctl.ErrNone
}

// lenientID digs the id out of a command that did not parse, if it has one a lenient JSON
// reading finds; 0 otherwise.
func lenientID(body []byte) uint32 {
	var v struct {
		ID uint32 `json:"id"`
	}
	if json.Unmarshal(body, &v) != nil {
		return 0
	}
	return v.ID
}
