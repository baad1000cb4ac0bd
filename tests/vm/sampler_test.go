package vm_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/unitrace/unitrace/internal/tracefile"
	"github.com/unitrace/unitrace/internal/vmconfig"
	"github.com/unitrace/unitrace/trace/record"
	"github.com/unitrace/unitrace/trace/wire"
)

// guestSession is a booted guest whose trace ports this test drives by hand.
type guestSession struct {
	t         *testing.T
	ctl       net.Conn
	cw        *wire.Writer
	cr        *wire.Reader
	data      net.Conn
	recording bytes.Buffer
	copied    chan error
	booted    chan vmOutcome
	id        uint32
}

type vmOutcome struct {
	console []string
	res     vmconfig.Outcome
}

// startGuest boots kernel with env and the trace ports on sockets this test listens on.
func startGuest(t *testing.T, a guestArch, kernel string, env []string) *guestSession {
	t.Helper()
	ports, dataLn, ctlLn := traceSockets(t)
	g := &guestSession{t: t, copied: make(chan error, 1), booted: make(chan vmOutcome, 1)}
	go func() {
		cfg := a.config(kernel)
		cfg.Env, cfg.Trace = env, ports
		c, r := bootVM(t, cfg)
		g.booted <- vmOutcome{c, r}
	}()
	g.data, g.ctl = acceptConn(t, dataLn), acceptConn(t, ctlLn)
	go func() { _, err := io.Copy(&g.recording, g.data); g.copied <- err }()
	g.cw, g.cr = wire.NewWriter(g.ctl), wire.NewReader(g.ctl)
	return g
}

// ask sends one command (a JSON object without its id) and decodes the reply into v.
func (g *guestSession) ask(cmd string, v any) {
	g.t.Helper()
	g.id++
	body := fmt.Sprintf(`{"id":%d,%s`, g.id, strings.TrimPrefix(cmd, "{"))
	if reply := g.askRaw(body); json.Unmarshal(reply, v) != nil {
		g.t.Fatalf("%s: reply %q", body, reply)
	}
}

// askRaw sends body, as it is, as one command and returns the reply's payload.
func (g *guestSession) askRaw(body string) []byte {
	g.t.Helper()
	if err := g.cw.WriteFrame(wire.TypeCmd, 0, []byte(body)); err != nil {
		g.t.Fatal(err)
	}
	g.ctl.SetReadDeadline(time.Now().Add(time.Minute))
	f, err := g.cr.Next()
	if err != nil {
		g.t.Fatalf("%s: no reply: %v", body, err)
	}
	if f.Type != wire.TypeResp {
		g.t.Fatalf("%s: reply %v %q", body, f.Type, f.Payload)
	}
	return f.Payload
}

// finish waits for the guest to exit and returns the recording.
func (g *guestSession) finish(wantStatus int) *tracefile.Trace {
	g.t.Helper()
	var out vmOutcome
	select {
	case out = <-g.booted:
	case <-time.After(3 * time.Minute):
		g.t.Fatal("the guest did not exit")
	}
	if out.res.Kind != vmconfig.Exited || out.res.Status != wantStatus {
		g.t.Fatalf("outcome %+v\n%s", out.res, strings.Join(out.console, "\n"))
	}
	g.data.Close()
	<-g.copied
	tr, err := tracefile.Load(bytes.NewReader(g.recording.Bytes()))
	if err != nil {
		g.t.Fatal(err)
	}
	return tr
}

// TestSamplerStartStop starts and stops the sampler 100 times over the control port while the
// guest keeps working, then checks that the guest survived and that every sample lies inside
// one of the runs: none before its start's reply, none after its stop was acknowledged.
func TestSamplerStartStop(t *testing.T) { forEachArch(t, testSamplerStartStop) }

func testSamplerStartStop(t *testing.T, a guestArch) {
	g := startGuest(t, a, buildImage(t, a, "tests/vm/testdata/ctlguest"), []string{"unitrace.tracer=1"})
	type run struct{ from, to uint64 }
	var runs []run
	var r struct {
		OK    bool    `json:"ok"`
		Error string  `json:"error"`
		Hz    *uint64 `json:"hz"`
		Ticks *uint64 `json:"ticks"`
	}
	for i := 0; i < 100; i++ {
		hz := []int{1000, 5000, 100, 10000}[i%4]
		g.ask(fmt.Sprintf(`{"cmd":"sampler.start","hz":%d}`, hz), &r)
		if !r.OK || r.Hz == nil || *r.Hz != uint64(hz) || r.Ticks == nil {
			t.Fatalf("start %d: %+v", i, r)
		}
		from := *r.Ticks
		time.Sleep(time.Duration(5+i%10) * time.Millisecond)
		r.Ticks = nil
		g.ask(`{"cmd":"sampler.stop"}`, &r)
		if !r.OK || r.Ticks == nil {
			t.Fatalf("stop %d: %+v", i, r)
		}
		runs = append(runs, run{from, *r.Ticks})
	}
	for _, bad := range []string{`{"cmd":"sampler.start","hz":0}`, `{"cmd":"sampler.start","hz":20000}`, `{"cmd":"sampler.start","hz":"fast"}`, `{"cmd":"sampler.start","hz":-1}`} {
		r.OK, r.Error = false, ""
		g.ask(bad, &r)
		if r.OK || r.Error == "" {
			t.Errorf("%s: accepted: %+v", bad, r)
		}
	}
	g.ask(`{"cmd":"stop"}`, &r)
	tr := g.finish(0)

	samples, outside, withSamples := 0, 0, map[int]bool{}
	for _, rec := range tr.Records {
		if rec.TPID != record.TPSample {
			continue
		}
		samples++
		in := -1
		for i, run := range runs {
			if rec.TS >= run.from && rec.TS <= run.to {
				in = i
				break
			}
		}
		if in < 0 {
			outside++
			if outside <= 5 {
				t.Errorf("sample at ts %d outside every sampler run", rec.TS)
			}
			continue
		}
		withSamples[in] = true
	}
	t.Logf("%d samples, %d of 100 runs sampled, %d outside", samples, len(withSamples), outside)
	if outside > 0 {
		t.Errorf("%d samples outside the runs", outside)
	}
	if len(withSamples) < 50 {
		t.Errorf("only %d of 100 runs took a sample", len(withSamples))
	}
}

// TestInterruptBacktraceOnlyForSamples boots hello with the sampler on and the timer tick
// tracepoint on under the global log-backtrace option. The tick fires in the same timer
// interrupt as the sample, yet its backtrace is the handler's own path (it starts at the
// kernel function that fires it), while the samples carry the interrupted thread: an exact
// pc, flagged, mostly outside the kernel.
func TestInterruptBacktraceOnlyForSamples(t *testing.T) {
	forEachArch(t, testInterruptBacktraceOnlyForSamples)
}

func testInterruptBacktraceOnlyForSamples(t *testing.T, a guestArch) {
	img := a.path("hello-sampled.elf")
	file := a.path("hello-sampled.utrace")
	_, stderr, status := runLauncher(t, a, "-image", img, "-trace", "timer_tick", "-backtrace", "-o", file, helloApp, "unitrace.sample=1000")
	if status != 3 {
		t.Fatalf("status %d\n%s", status, stderr)
	}
	tr, err := tracefile.LoadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	im, err := tracefile.OpenImage(img)
	if err != nil {
		t.Fatal(err)
	}
	funcOf := func(pc uint64, exact bool) string {
		fr := im.Frames(pc, exact)
		if len(fr) == 0 {
			return "?"
		}
		return fr[len(fr)-1].Func
	}
	ticks, samples, kernelLeaves := 0, 0, 0
	for _, r := range tr.Records {
		switch {
		case r.TPID == record.TPSample:
			samples++
			if r.Flags&record.StackFromInterrupt == 0 || len(r.Stack) == 0 {
				t.Fatalf("sample without the interrupted context: flags %#x, %d frames", r.Flags, len(r.Stack))
			}
			if r.Flags&record.PC0Exact == 0 {
				// Taken on a trap's way out (observe.SampleAtExit): the exit path's own frames,
				// then across the trap frame to the thread.
				if !slices.Contains(r.Stack, record.StackMarkThread) || funcOf(r.Stack[0], false) != "github.com/unitrace/unitrace/kernel/observe.SampleAtExit" {
					t.Fatalf("a sample with no interrupted pc that is not the exit path's: flags %#x, stack %x", r.Flags, r.Stack)
				}
				kernelLeaves++
				continue
			}
			if isKernelFunc(funcOf(r.Stack[0], true)) {
				kernelLeaves++
			}
		case tr.Dict.Name(r.TPID) == "timer_tick":
			ticks++
			if r.Flags&(record.PC0Exact|record.StackFromInterrupt) != 0 || len(r.Stack) == 0 {
				t.Fatalf("timer_tick record with flags %#x, %d frames", r.Flags, len(r.Stack))
			}
			if f := funcOf(r.Stack[0], false); f != "github.com/unitrace/unitrace/kernel.tick" {
				t.Fatalf("timer_tick backtrace starts at %s, want the kernel function that fires it", f)
			}
		}
	}
	t.Logf("%d timer_tick records, %d samples, %d with a kernel leaf", ticks, samples, kernelLeaves)
	if ticks < 100 || samples < 100 {
		t.Fatalf("too few records: %d ticks, %d samples", ticks, samples)
	}
	// The kernel is sampled where it runs, but most of hello's time is the program's.
	if kernelLeaves > samples/2 {
		t.Errorf("%d of %d samples have a kernel leaf", kernelLeaves, samples)
	}
}
