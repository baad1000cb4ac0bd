package main

import (
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// hostBench builds examples/bench for this host: the same program the Linux guest runs as its
// init, here standing in for both guests (its -serve protocol does not depend on the kernel).
func hostBench(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "bench")
	build := exec.Command("go", "build", "-o", bin, "../../examples/bench")
	build.Env = append(build.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building examples/bench: %v\n%s", err, out)
	}
	return bin
}

// TestRound: a round boots each guest once, runs every asked-for workload's batches in both and
// keeps each guest's fastest, and quits them.
func TestRound(t *testing.T) {
	bin := hostBench(t)
	g := func(name string) guest { return guest{name: name, qemu: bin, args: []string{"-serve"}} }
	mv := g("microvm")
	c := comparison{uni: g("uni"), lin: g("lin"), microvm: &mv, only: []string{"syscall_getppid", "clock_read"}, batches: 3, log: io.Discard}
	res, err := c.round()
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res[:2] {
		if r.boot <= 0 || len(r.values) != 2 || r.values["clock_read"] <= 0 || r.values["syscall_getppid"] <= 0 ||
			r.units["clock_read"] != "ns/op" {
			t.Errorf("result %d = %+v, want boot time and the two workloads", i, r)
		}
	}
	if res[2].boot <= 0 || len(res[2].values) != 0 {
		t.Errorf("microvm result = %+v, want a boot time only", res[2])
	}
}

// TestSessionErrors: a workload the guest does not have fails its run, and the session goes on.
func TestSessionErrors(t *testing.T) {
	s, err := guest{name: "g", qemu: hostBench(t), args: []string{"-serve"}}.start(time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer s.kill()
	if _, err := s.run("no_such_work", time.Minute); err == nil || !strings.Contains(err.Error(), "no_such_work") {
		t.Errorf("run of an unknown workload: %v, want an error naming it", err)
	}
	if v, err := s.run("clock_read", time.Minute); err != nil || v <= 0 {
		t.Errorf("run after the error = %v, %v", v, err)
	}
	if err := s.quit(time.Minute); err != nil {
		t.Error(err)
	}
	c := comparison{only: []string{"nothing"}}
	if _, err := c.workloads(s, s); err == nil {
		t.Error("no workload to run: no error")
	}
}
