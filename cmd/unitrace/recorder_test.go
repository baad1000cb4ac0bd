package main

import (
	"bytes"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/unitrace/unitrace/internal/tracefile"
	"github.com/unitrace/unitrace/trace/record"
	"github.com/unitrace/unitrace/trace/wire"
)

// guestFrames is what a fake guest sends on the data port.
func guestFrames(t *testing.T) []byte {
	var s tracefile.Synth
	s.Message(&wire.Hello{ProtoMajor: 1, RecordVersion: 1, NCPU: 1, TickHz: 1e9, DictHash: testDict.Hash()})
	s.Message(&testDict)
	s.Data(0, tracefile.SynthRecord{TPID: tpSysEnter, TS: 10, TID: 1, Seq: 0, Args: []uint64{1}},
		tracefile.SynthRecord{TPID: tpSysExit, TS: 20, TID: 1, Seq: 1, Args: []uint64{1, 0}})
	s.Data(0, tracefile.SynthRecord{Lost: &record.Lost{FirstSeq: 2, Count: 4}})
	s.Message(&wire.End{Reason: wire.EndExit})
	b, err := s.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestTraceSession plays QEMU: it connects to the launcher's sockets, sends
// the guest's frames and a control event, and hangs up.
func TestTraceSession(t *testing.T) {
	s, ports, err := listenTrace()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "out.utrace")
	var stderr bytes.Buffer
	std := stdio{strings.NewReader(""), &bytes.Buffer{}, &stderr}
	if err := s.start(file, &tracefile.Host{Image: "/x.elf", BuildID: "ab"}, std, newCtlMux(&stderr, "unitrace run: ")); err != nil {
		t.Fatal(err)
	}
	dc, err := net.Dial("unix", ports.Data)
	if err != nil {
		t.Fatal(err)
	}
	cc, err := net.Dial("unix", ports.Ctl)
	if err != nil {
		t.Fatal(err)
	}
	frames := guestFrames(t)
	for len(frames) > 0 { // in small pieces, as a port delivers them
		n := min(len(frames), 37)
		dc.Write(frames[:n])
		frames = frames[n:]
	}
	wire.NewWriter(cc).WriteFrame(wire.TypeEvent, 0, []byte(`{"event":"booted"}`))
	time.Sleep(50 * time.Millisecond)
	dc.Close()
	cc.Close()
	if err := s.finish(std); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`ctl EVENT: {"event":"booted"}`, "5 frames, 3 records, 4 lost, 0 CRC errors, END exit"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	tr, err := tracefile.LoadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Host == nil || tr.Host.Image != "/x.elf" || len(tr.Records) != 3 || tr.End == nil || len(tr.Errors) != 0 {
		t.Errorf("recording: host %+v, %d records, end %v, errors %v", tr.Host, len(tr.Records), tr.End, tr.Errors)
	}
	if _, err := os.Stat(s.dir); !os.IsNotExist(err) {
		t.Errorf("socket directory left behind: %v", err)
	}
}

func TestTraceSessionNoGuest(t *testing.T) {
	s, _, err := listenTrace()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	std := stdio{strings.NewReader(""), &bytes.Buffer{}, &stderr}
	if err := s.start(filepath.Join(t.TempDir(), "x"), &tracefile.Host{}, std, newCtlMux(&stderr, "")); err != nil {
		t.Fatal(err)
	}
	if err := s.finish(std); err != nil || !strings.Contains(stderr.String(), "never opened") {
		t.Errorf("%v: %s", err, stderr.String())
	}
}

// TestRecord plays a QEMU that listens on the sockets (run -sockets) and a
// guest that answers commands.
func TestRecord(t *testing.T) {
	dir := t.TempDir()
	dataLn, err := net.Listen("unix", filepath.Join(dir, "data.sock"))
	if err != nil {
		t.Fatal(err)
	}
	ctlLn, err := net.Listen("unix", filepath.Join(dir, "ctl.sock"))
	if err != nil {
		t.Fatal(err)
	}
	cmds := make(chan string, 10)
	answered := make(chan struct{}) // the guest sends its data after the enables
	go func() {
		c, err := ctlLn.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		rd, w := wire.NewReader(c), wire.NewWriter(c)
		for {
			f, err := rd.Next()
			if err != nil {
				close(cmds)
				return
			}
			cmds <- string(f.Payload)
			var m struct{ ID int }
			json.Unmarshal(f.Payload, &m)
			body, _ := json.Marshal(map[string]any{"id": m.ID, "ok": true})
			w.WriteFrame(wire.TypeResp, 0, body)
			if m.ID == 3 {
				close(answered)
			}
		}
	}()
	go func() {
		c, err := dataLn.Accept()
		if err != nil {
			return
		}
		<-answered
		time.Sleep(20 * time.Millisecond) // let the last RESP reach the log
		c.Write(guestFrames(t))
		c.Close()
	}()
	out := filepath.Join(dir, "rec.utrace")
	stdout, stderr, st := runCLI(t, "record", "-data", filepath.Join(dir, "data.sock"), "-ctl", filepath.Join(dir, "ctl.sock"),
		"-trace", "syscall_*,sched_*", "-backtrace", "-d", "5s", "-o", out)
	if st != 0 || stdout != "" {
		t.Fatalf("status %d, stdout %q, stderr %s", st, stdout, stderr)
	}
	var got []string
	for c := range cmds {
		got = append(got, c)
	}
	want := []string{`{"id":1,"cmd":"hello"}`, `{"id":2,"cmd":"enable","match":"syscall_*","stack":true}`,
		`{"id":3,"cmd":"enable","match":"sched_*","stack":true}`}
	if len(got) < len(want) || strings.Join(got[:3], "\n") != strings.Join(want, "\n") {
		t.Errorf("commands %q", got)
	}
	if !strings.Contains(stderr, `ctl RESP: {"id":1,"ok":true}`) || !strings.Contains(stderr, "3 records") {
		t.Errorf("stderr: %s", stderr)
	}
	tr, err := tracefile.LoadFile(out)
	if err != nil || tr.Host == nil || tr.Host.Tool != "unitrace record" || len(tr.Records) != 3 {
		t.Errorf("recording: %v %+v", err, tr)
	}
	if _, _, st := runCLI(t, "record", "-data", "x"); st != 2 {
		t.Errorf("missing flags: status %d", st)
	}
}

func TestParseRunTrace(t *testing.T) {
	o, err := parseRun("run", []string{"-trace", "sys*", "-backtrace", "-ring", "64K", "-mode", "flight", "-o", "t.utrace", "app", "A=1"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	want := "A=1 unitrace.trace=sys* unitrace.backtrace=1 unitrace.ring=64K unitrace.mode=flight"
	if got := strings.Join(o.env, " "); got != want || !o.tracing() || o.traceFile != "t.utrace" {
		t.Errorf("env %q, options %+v", got, o)
	}
	for _, bad := range [][]string{{"-ring", "3K", "app"}, {"-mode", "x", "app"}, {"-sockets", "d", "-o", "f", "app"}} {
		if _, err := parseRun("run", bad, &bytes.Buffer{}); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if o, _ := parseRun("run", []string{"app"}, &bytes.Buffer{}); o.tracing() {
		t.Error("tracing without trace flags")
	}
	for _, bad := range [][]string{{"-pprof", "cpu.pb.gz", "app"}, {"-sample", "100", "-pprof", "p", "-sockets", "d", "app"}} {
		if _, err := parseRun("run", bad, &bytes.Buffer{}); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	// Recording without tracepoints at boot still starts the tracer (the host enables them later).
	if o, err := parseRun("run", []string{"-o", "t.utrace", "app"}, &bytes.Buffer{}); err != nil || strings.Join(o.env, " ") != "unitrace.tracer=1" {
		t.Errorf("-o alone: env %q, err %v", o.env, err)
	}
	if _, errs, st := runCLI(t, "run", "-machine", "q35", "-trace", "x", "app"); st != 2 || !strings.Contains(errs, "virtio-mmio") {
		t.Errorf("q35: status %d, %s", st, errs)
	}
}
