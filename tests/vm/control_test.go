package vm_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/unitrace/unitrace/trace/wire"
)

// reply is a RESP body as the agent writes it.
type reply struct {
	ID     uint32 `json:"id"`
	OK     bool   `json:"ok"`
	Error  string `json:"error"`
	Points []struct {
		Name      string `json:"name"`
		Enabled   bool   `json:"enabled"`
		Backtrace bool   `json:"backtrace"`
	} `json:"points"`
	Matched *int    `json:"matched"`
	Bytes   *uint64 `json:"bytes"`
	Written *uint64 `json:"written"`
}

// TestTraceControl drives the guest's control port by hand: it boots a guest with the tracer on
// and nothing enabled, then lists, enables, sends malformed and unknown commands (each gets an
// error reply and changes nothing), asks for stats, flushes, switches the rings to flight mode,
// takes a snapshot and stops the tracer, which ends the guest. The data port's recording must be
// a whole session: the syscall records the enable asked for, STATS, and END (stop).
func TestTraceControl(t *testing.T) { forEachArch(t, testTraceControl) }

func testTraceControl(t *testing.T, a guestArch) {
	kernel := buildImage(t, a, "tests/vm/testdata/ctlguest")
	g := startGuest(t, a, kernel, []string{"unitrace.tracer=1"})
	ask := func(cmd string) reply {
		t.Helper()
		payload := g.askRaw(cmd)
		var r reply
		if json.Unmarshal(payload, &r) != nil {
			t.Fatalf("%s: reply %q", cmd, payload)
		}
		t.Logf("%s -> %s", cmd, payload)
		return r
	}
	enabled := func() map[string]bool {
		t.Helper()
		r := ask(`{"id":90,"cmd":"list"}`)
		m := map[string]bool{}
		for _, p := range r.Points {
			m[p.Name] = p.Enabled
		}
		return m
	}

	if r := ask(`{"id":1,"cmd":"list","match":"sched_*"}`); !r.OK || r.ID != 1 || len(r.Points) != 1 || r.Points[0].Name != "sched_switch" || r.Points[0].Enabled {
		t.Fatalf("list sched_*: %+v", r)
	}
	// syscall_enter, syscall_path (a file system call's path), syscall_addr (a socket call's
	// address) and syscall_exit.
	if r := ask(`{"id":2,"cmd":"enable","match":"syscall_*"}`); !r.OK || r.Matched == nil || *r.Matched != 4 {
		t.Fatalf("enable: %+v", r)
	}
	before := enabled()
	for i, bad := range []string{
		`{"id":3,"cmd":"enable"}`,                                              // missing match
		`{"id":4,"cmd":"bogus"}`,                                               // unknown command
		`{"id":5,"cmd":"disable","match":"*","extra":1}`,                       // unknown field
		`{"id":6,"cmd":"disable","match":"*"} trailing`,                        // trailing bytes
		`{"id":7,"cmd":"mode","ring":"sideways"}`,                              // bad value
		`{"id":8,"cmd":"mode","ring":"flight","size":3}`,                       // bad size
		`{"id":9,"cmd":"sampler.start","hz":0}`,                                // a rate the sampler refuses
		`{"id":10,"cmd":"disable","match":"` + strings.Repeat("x", 100) + `"}`, // too long a glob
	} {
		r := ask(bad)
		if r.OK || r.Error == "" || (i != 0 && r.ID != uint32(i+3) && i != 3) {
			t.Errorf("%s: reply %+v, want an error", bad, r)
		}
	}
	if after := enabled(); !mapsEqual(before, after) || !after["syscall_enter"] || after["sched_switch"] {
		t.Fatalf("refused commands changed the tracepoints: before %v, after %v", before, after)
	}
	time.Sleep(200 * time.Millisecond)
	if r := ask(`{"id":11,"cmd":"stats"}`); !r.OK || r.Written == nil || *r.Written == 0 {
		t.Fatalf("stats: %+v", r)
	}
	if r := ask(`{"id":12,"cmd":"flush"}`); !r.OK {
		t.Fatalf("flush: %+v", r)
	}
	if r := ask(`{"id":13,"cmd":"mode","ring":"flight"}`); !r.OK {
		t.Fatalf("mode flight: %+v", r)
	}
	time.Sleep(200 * time.Millisecond)
	if r := ask(`{"id":14,"cmd":"snapshot"}`); !r.OK || r.Bytes == nil || *r.Bytes == 0 {
		t.Fatalf("snapshot: %+v", r)
	}
	if r := ask(`{"id":15,"cmd":"stop"}`); !r.OK {
		t.Fatalf("stop: %+v", r)
	}
	if r := ask(`{"id":16,"cmd":"enable","match":"*"}`); r.OK {
		t.Errorf("enable after stop: %+v", r)
	}

	tr := g.finish(0)
	if tr.End == nil || tr.End.Reason != wire.EndStop || len(tr.Stats) < 2 || tr.Hello == nil || tr.Hello.RingMode != wire.ModeFlight {
		t.Fatalf("session: END %+v, %d STATS, HELLO %+v", tr.End, len(tr.Stats), tr.Hello)
	}
	n := 0
	for _, r := range tr.Records {
		if tr.Dict.Name(r.TPID) == "syscall_enter" {
			n++
		}
	}
	if n == 0 {
		t.Fatal("no syscall_enter records")
	}
	file := filepath.Join(t.TempDir(), "control.utrace")
	if err := os.WriteFile(file, g.recording.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, _, st := runTool(t, "check", file); st != 0 {
		t.Errorf("check: status %d\n%s", st, out)
	}
}

func mapsEqual(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
