package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/unitrace/unitrace/internal/tracefile"
	"github.com/unitrace/unitrace/trace/record"
	"github.com/unitrace/unitrace/trace/wire"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const (
	tpSysEnter record.TPID = 16
	tpSysExit  record.TPID = 17
	tpSwitch   record.TPID = 18
	tpFutex    record.TPID = 19
	tpFutexRet record.TPID = 20
)

var testDict = wire.Dict{Entries: []wire.DictEntry{
	{ID: tpSysEnter, Name: "syscall_enter", Format: "nr=%d", Kinds: []record.Kind{record.KU64}},
	{ID: tpSysExit, Name: "syscall_exit", Format: "nr=%d res=%d", Kinds: []record.Kind{record.KU64, record.KI64}},
	{ID: tpSwitch, Name: "sched_switch", Format: "to=%d", Kinds: []record.Kind{record.KU64}},
	{ID: tpFutex, Name: "futex", Format: "addr=%x", Kinds: []record.Kind{record.KHex}},
	{ID: tpFutexRet, Name: "futex_ret", Format: "res=%d", Kinds: []record.Kind{record.KI64}},
}}

// testRecording writes a recording with two CPUs, pairs, a LOST record, a
// LOST frame and, when gap is set, a seq gap no LOST covers. One tick is
// one ns; ns 0 is tick 0. buildID and image go into HELLO and HOST.
func testRecording(t *testing.T, gap bool, image string, buildID []byte, stack []uint64) string {
	t.Helper()
	var s tracefile.Synth
	s.Host(&tracefile.Host{Image: image, BuildID: tracefile.BuildIDHex(buildID), Accel: "tcg", Start: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)})
	s.Message(&wire.Hello{ProtoMajor: 1, RecordVersion: 1, Arch: wire.ArchAMD64, NCPU: 2, TickSource: wire.TickTSC, RingMode: wire.ModeStream,
		RingSize: 1 << 20, TickHz: 1e9, DictHash: testDict.Hash(), BuildID: buildID, Accel: "tcg"})
	s.Message(&testDict)
	rec := func(id record.TPID, ts uint64, tid, seq uint32, args ...uint64) tracefile.SynthRecord {
		return tracefile.SynthRecord{TPID: id, TS: ts, TID: tid, Seq: seq, Args: args}
	}
	sw := rec(tpSwitch, 1_000_000, 1, 2, 2)
	sw.Stack = stack
	s.Data(0,
		rec(tpSysEnter, 1000, 1, 0, 39),
		rec(tpSysExit, 3000, 1, 1, 39, 7),
		sw,
		tracefile.SynthRecord{Lost: &record.Lost{FirstSeq: 3, Count: 2, Causes: record.CauseRingFull}, TS: 1_100_000},
		rec(tpSysEnter, 1_200_000, 2, 5, 1),
		rec(tpSysExit, 1_210_000, 2, 6, 1, ^uint64(0)),
	)
	s.Data(1,
		rec(tpFutex, 2000, 3, 0, 0xc000),
		rec(tpFutexRet, 502_000, 3, 1, 0),
		rec(tpSysEnter, 600_000, 3, 2, 202),
	)
	s.Message(&wire.Lost{CPU: 1, Cause: wire.LostTransport, FirstSeq: 3, Count: 1})
	next := uint32(4)
	if gap {
		next = 6
	}
	s.Data(1, rec(tpSysExit, 700_000, 3, next, 202, 0))
	s.Message(&wire.Clock{CPU: 0, Ticks: 2_000_000, Ns: 2_000_000})
	s.Message(&wire.End{Reason: wire.EndExit, Status: 0, Ticks: 2_000_000})
	b, err := s.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "t.utrace")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func runCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	st := cli(args, stdio{strings.NewReader(""), &out, &errb})
	return out.String(), errb.String(), st
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test -update rewrites it)\ngot:\n%s\nwant:\n%s", name, got, want)
	}
}

func TestTraceCommandsGolden(t *testing.T) {
	clean := testRecording(t, false, "/images/hello.elf", []byte{1, 2, 3, 4}, nil)
	gappy := testRecording(t, true, "/images/hello.elf", []byte{1, 2, 3, 4}, nil)
	tests := []struct {
		golden string
		args   []string
		status int
	}{
		{"check_ok.golden", []string{"check", clean}, 0},
		{"check_gap.golden", []string{"check", gappy}, 1},
		{"list.golden", []string{"list", clean}, 0},
		{"list_filtered.golden", []string{"list", "-t", "syscall_*,futex", "-cpu", "1", "-since", "1us", "-until", "650us", clean}, 0},
		{"list_tid.golden", []string{"list", clean, "-tid", "2"}, 0},
		{"summary.golden", []string{"summary", clean}, 0},
	}
	for _, tt := range tests {
		out, errs, st := runCLI(t, tt.args...)
		if st != tt.status {
			t.Errorf("%v: status %d, want %d; stderr %s", tt.args, st, tt.status, errs)
		}
		out = strings.ReplaceAll(out, clean, "FILE")
		out = strings.ReplaceAll(out, gappy, "FILE")
		golden(t, tt.golden, out)
	}
}

func TestCheckCorrupt(t *testing.T) {
	p := testRecording(t, false, "/images/hello.elf", []byte{1}, nil)
	b, _ := os.ReadFile(p)
	b[len(b)/2] ^= 0xff
	b = b[:len(b)-3]
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, st := runCLI(t, "check", p)
	if st != 1 || !strings.Contains(out, "CRC32C mismatch") || !strings.Contains(out, "frame extends past the end") || !strings.Contains(out, "PROBLEM: offset ") {
		t.Errorf("status %d\n%s", st, out)
	}
	// list keeps what it could read and names the problems on stderr.
	out, errs, st := runCLI(t, "list", p)
	if st != 0 || out == "" || !strings.Contains(errs, "offset") {
		t.Errorf("list: status %d, stderr %s", st, errs)
	}
}

func TestTimeline(t *testing.T) {
	p := testRecording(t, false, "/images/hello.elf", []byte{1}, nil)
	out := filepath.Join(t.TempDir(), "trace.json")
	if _, errs, st := runCLI(t, "timeline", p, "-o", out); st != 0 {
		t.Fatalf("status %d: %s", st, errs)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var tf struct {
		TraceEvents []map[string]any `json:"traceEvents"`
		Unit        string           `json:"displayTimeUnit"`
	}
	if err := json.Unmarshal(b, &tf); err != nil {
		t.Fatal(err)
	}
	if tf.Unit != "ns" {
		t.Errorf("displayTimeUnit %q", tf.Unit)
	}
	phases := map[string]int{}
	for _, ev := range tf.TraceEvents {
		ph, _ := ev["ph"].(string)
		phases[ph]++
		for _, k := range []string{"name", "pid", "tid", "ts"} {
			if _, ok := ev[k]; !ok && !(ph == "M" && k == "ts") {
				t.Errorf("event %v lacks %s", ev, k)
			}
		}
		switch ph {
		case "M":
			if a, _ := ev["args"].(map[string]any); a["name"] == nil {
				t.Errorf("metadata without a name: %v", ev)
			}
		case "i":
			if ev["s"] != "t" {
				t.Errorf("instant scope: %v", ev)
			}
		case "X":
			if d, ok := ev["dur"].(float64); !ok || d < 0 {
				t.Errorf("duration: %v", ev)
			}
		default:
			t.Errorf("unexpected phase %q", ph)
		}
	}
	// 2 CPUs and 4 (cpu, tid) threads (LOST has tid 0); 3 syscall and 1 futex
	// pairs; sched_switch and lost stay instants.
	if phases["M"] != 6 || phases["X"] != 4 || phases["i"] != 2 {
		t.Errorf("phases %v", phases)
	}
	if _, _, st := runCLI(t, "timeline", p); st != 2 {
		t.Errorf("missing -o: status %d", st)
	}
}

const testProg = `package main

import "os"

//go:noinline
func leaf(n int) int { return n * 3 }

func main() { os.Exit(leaf(len(os.Args)) - 3) }
`

func TestListBacktrace(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Go program")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "main.go"), []byte(testProg), 0o644)
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module prog\n\ngo 1.26\n"), 0o644)
	elfPath := filepath.Join(dir, "prog.elf")
	cmd := exec.Command("go", "build", "-o", elfPath, "-ldflags=-B 0x0badf00d", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=amd64", "GOWORK=off", "GOFLAGS=")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	nm, err := exec.Command("go", "tool", "nm", elfPath).Output()
	if err != nil {
		t.Fatal(err)
	}
	var leaf uint64
	for _, line := range strings.Split(string(nm), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[2] == "main.leaf" {
			for _, c := range f[0] {
				leaf = leaf*16 + uint64(strings.IndexRune("0123456789abcdef", c))
			}
		}
	}
	id := []byte{0x0b, 0xad, 0xf0, 0x0d}
	p := testRecording(t, false, elfPath, id, []uint64{leaf + 1, 0x10})
	out, errs, st := runCLI(t, "list", "-b", "-t", "sched_*", p)
	if st != 0 || !strings.Contains(out, "main.leaf "+dir) || !strings.Contains(out, "0x10 ?") {
		t.Errorf("status %d, stderr %s\n%s", st, errs, out)
	}
	// A backtrace that crosses a trap frame: a separator line at the mark, and the thread's
	// pc after it symbolized as it is (leaf's entry, not the byte before it).
	crossed := testRecording(t, false, elfPath, id, []uint64{leaf + 1, record.StackMarkThread, leaf, 0x10})
	out, _, st = runCLI(t, "list", "-b", "-t", "sched_*", crossed)
	wantCrossed := fmt.Sprintf("    %#x main.leaf %s", leaf+1, dir) + "/main.go:6\n    --- thread (trap frame) ---\n" +
		fmt.Sprintf("    %#x main.leaf %s", leaf, dir) + "/main.go:6\n    0x10 ?\n"
	if st != 0 || !strings.Contains(out, wantCrossed) {
		t.Errorf("crossed backtrace: status %d\n%s\nwant\n%s", st, out, wantCrossed)
	}
	// A recording whose HELLO names another build: refused, unless -force.
	other := testRecording(t, false, elfPath, []byte{9, 9}, []uint64{leaf + 1})
	if _, errs, st := runCLI(t, "list", "-b", other); st != 1 || !strings.Contains(errs, "build id") {
		t.Errorf("mismatch: status %d, %s", st, errs)
	}
	if out, _, st := runCLI(t, "list", "-b", "-force", other); st != 0 || !strings.Contains(out, "main.leaf") {
		t.Errorf("-force: status %d\n%s", st, out)
	}
	if _, errs, st := runCLI(t, "list", "-b", "-elf", filepath.Join(dir, "none.elf"), other); st != 1 || errs == "" {
		t.Errorf("-elf missing: status %d", st)
	}
}
