package vm_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/unitrace/unitrace/internal/tracefile"
	"github.com/unitrace/unitrace/internal/vmconfig"
	"github.com/unitrace/unitrace/trace/wire"
)

// TestTraceHello records examples/hello through the launcher with the syscall and
// context-switch tracepoints and the global log-backtrace option on, then reads the recording
// with the tool's own commands: the session is whole (HELLO with the image's build id, END with
// the exit status, every seq accounted for), summary shows the tracepoints with plausible
// counts, and list -b shows backtraces that start at the function that fired the tracepoint.
func TestTraceHello(t *testing.T) { forEachArch(t, testTraceHello) }

func testTraceHello(t *testing.T, a guestArch) {
	img := a.path("hello-trace.elf")
	file := a.path("hello.utrace")
	_, stderr, status := runLauncher(t, a, "-image", img, "-trace", "syscall_*,sched_switch", "-backtrace", "-o", file, helloApp)
	if status != 3 {
		t.Fatalf("status %d, want hello's 3\n%s", status, stderr)
	}
	tr, err := tracefile.LoadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	id, err := tracefile.ReadBuildID(img)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Hello == nil || !bytes.Equal(tr.Hello.BuildID, id) || tr.Hello.Accel != "tcg" || tr.Hello.Arch != a.wire {
		t.Fatalf("HELLO %+v, image build id %x", tr.Hello, id)
	}
	if tr.End == nil || tr.End.Reason != wire.EndExit || tr.End.Status != 3 {
		t.Fatalf("END %+v", tr.End)
	}

	out, _, st := runTool(t, "check", file)
	if st != 0 || !strings.HasSuffix(strings.TrimSpace(out), "OK") {
		t.Fatalf("check: status %d\n%s", st, out)
	}

	// summary: hello makes thousands of system calls (its GC alone allocates 384 MiB in
	// mmap-backed blocks) and switches threads at least once per goroutine handoff test.
	out, _, st = runTool(t, "summary", file)
	if st != 0 {
		t.Fatalf("summary: status %d\n%s", st, out)
	}
	counts := map[string]int{}
	for _, m := range regexp.MustCompile(`(?m)^\s+(syscall_enter|syscall_exit|sched_switch)\s+(\d+)$`).FindAllStringSubmatch(out, -1) {
		counts[m[1]], _ = strconv.Atoi(m[2])
	}
	// hello's checks and the runtime make about 900 calls on either arch; the trace agent's
	// drains add a few (one a ring's sixteenth or 200 ms).
	if counts["syscall_enter"] < 500 || counts["sched_switch"] < 10 {
		t.Errorf("implausible counts %v\n%s", counts, out)
	}
	// Every call returns but the few that never do (exit_group, and the waits still blocked
	// when the program exited).
	if d := counts["syscall_enter"] - counts["syscall_exit"]; d < 1 || d > 20 {
		t.Errorf("syscall_enter %d, syscall_exit %d: %d unpaired", counts["syscall_enter"], counts["syscall_exit"], d)
	}
	if !strings.Contains(out, "syscall ") {
		t.Errorf("summary has no syscall duration pairs\n%s", out)
	}

	// list -b: each syscall_enter's backtrace starts at syscalls.Unlocked, which fires it; each
	// sched_switch's at the scheduler function that fires it, core.switchTo, on both arches.
	out, _, st = runTool(t, "list", "-b", "-t", "syscall_enter,sched_switch", file)
	if st != 0 {
		t.Fatalf("list: status %d", st)
	}
	lines := strings.Split(out, "\n")
	checked := map[string]int{}
	for i := 0; i+1 < len(lines); i++ {
		f := strings.Fields(lines[i])
		if len(f) < 4 || (f[3] != "syscall_enter" && f[3] != "sched_switch") {
			continue
		}
		first := strings.Fields(lines[i+1])
		want := "github.com/unitrace/unitrace/kernel/syscalls.Unlocked"
		if f[3] == "sched_switch" {
			want = "github.com/unitrace/unitrace/kernel/core.switchTo"
		}
		if len(first) < 2 || first[1] != want {
			t.Fatalf("%s backtrace starts with %q, want %s", f[3], lines[i+1], want)
		}
		checked[f[3]]++
	}
	if checked["syscall_enter"] != counts["syscall_enter"] || checked["sched_switch"] != counts["sched_switch"] {
		t.Errorf("checked backtraces %v, records %v", checked, counts)
	}
}

// TestTraceLossAccounting records hello with a small ring and a host that reads the data port
// slowly, in both ring modes, and checks that every record the guest produced is accounted for
// exactly: received, or reported lost by a LOST record (stream), or overwritten (flight), with
// the guest's final counters agreeing with the sequence numbers.
func TestTraceLossAccounting(t *testing.T) { forEachArch(t, testTraceLossAccounting) }

func testTraceLossAccounting(t *testing.T, a guestArch) {
	kernel := buildImage(t, a, helloApp)
	for _, mode := range []string{"stream", "flight"} {
		t.Run(mode, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), mode+".utrace")
			recordSlowly(t, a, kernel, file, []string{"unitrace.trace=syscall_*,sched_switch", "unitrace.ring=16K", "unitrace.mode=" + mode})
			tr, err := tracefile.LoadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if tr.End == nil || len(tr.Stats) == 0 {
				t.Fatalf("session not closed: END %v, %d STATS", tr.End, len(tr.Stats))
			}
			final := tr.Stats[len(tr.Stats)-1].CPUs[0]
			dropped := final.Dropped()
			a := tr.Account.CPUs()[0]
			t.Logf("%s: produced %d (guest: written %d + dropped %d), received %d, LOST records %d, missing %d, overwritten %d",
				mode, a.Produced, final.Written, dropped, a.Received, a.LostRecords, a.Missing, final.Overwritten)
			if final.Produced() != a.Produced {
				t.Errorf("guest produced %d, seqs say %d", final.Produced(), a.Produced)
			}
			if a.Received+a.LostRecords+a.LostFrames+a.Missing != a.Produced {
				t.Errorf("accounting does not add up: %+v", a)
			}
			switch mode {
			case "stream":
				if a.Missing != 0 || a.LostRecords != dropped || a.LostRecords == 0 {
					t.Errorf("stream: want loss reported by LOST records only (dropped %d): %+v", dropped, a)
				}
			case "flight":
				if a.Missing == 0 || a.Missing > final.Overwritten || a.LostRecords != dropped {
					t.Errorf("flight: want missing records within the %d overwritten: %+v", final.Overwritten, a)
				}
			}
			if out, _, st := runTool(t, "check", file); st != 0 {
				t.Errorf("check: status %d\n%s", st, out)
			}
		})
	}
}

// recordSlowly boots kernel with the trace ports on sockets this test listens on and copies
// the data port to file at about 256 KiB/s, much slower than hello produces records.
func recordSlowly(t *testing.T, a guestArch, kernel, file string, env []string) {
	t.Helper()
	ports, dataLn, ctlLn := traceSockets(t)
	out, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		data, err := dataLn.Accept()
		if err != nil {
			done <- err
			return
		}
		defer data.Close()
		if ctl, err := ctlLn.Accept(); err == nil {
			defer ctl.Close()
		}
		buf := make([]byte, 4096)
		for {
			n, err := data.Read(buf)
			out.Write(buf[:n])
			if err == io.EOF {
				done <- nil
				return
			}
			if err != nil {
				done <- err
				return
			}
			time.Sleep(15 * time.Millisecond)
		}
	}()
	cfg := a.config(kernel)
	cfg.Env, cfg.Trace = env, ports
	console, res := bootVM(t, cfg)
	if res.Kind != vmconfig.Exited || res.Status != 3 {
		t.Fatalf("outcome %+v\n%s", res, strings.Join(console, "\n"))
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("the data socket never closed")
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
