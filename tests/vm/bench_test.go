package vm_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/unitrace/unitrace/internal/vmconfig"
)

// BenchmarkSyscalls runs examples/syscallbench twice in one run: booted as a unitrace image
// (TCG) and as an ordinary Linux process on this host, pinned to one CPU with GOMAXPROCS=1 so
// both schedule their threads on one CPU. It reports each side's system-call round trip
// (getpid) and futex ping-pong round trip (two wake-ups and two thread switches), and their
// ratios, plus the guest's boot time (kernel entry to main.main). It runs once per guest
// architecture (sub-benchmarks amd64 and arm64); the host side is this machine either way, so
// an arm64 guest's ratios include the cost of emulating another instruction set.
//
//	go test ./tests/vm -run '^$' -bench Syscalls -benchtime 1x
func BenchmarkSyscalls(b *testing.B) {
	benchEachArch(b, benchmarkSyscalls)
}

func benchmarkSyscalls(b *testing.B, a guestArch) {
	kernel := buildImage(b, a, "examples/syscallbench")
	const iterations = "-n=40000"
	for i := 0; i < b.N; i++ {
		guest := bootMetrics(b, a, kernel, iterations)
		host := hostMetrics(b, iterations)
		for _, m := range []string{"getpid_ns", "futex_pingpong_ns"} {
			b.ReportMetric(guest[m], "guest_"+m)
			b.ReportMetric(host[m], "host_"+m)
			b.ReportMetric(guest[m]/host[m], "ratio_"+strings.TrimSuffix(m, "_ns"))
		}
		b.ReportMetric(guest["boot_ns"]/1e6, "guest_boot_ms")
	}
}

func bootMetrics(b *testing.B, a guestArch, kernel, arg string) map[string]float64 {
	b.Helper()
	cfg := a.config(kernel)
	cfg.Args = []string{arg}
	console, out := bootVM(b, cfg)
	if out.Kind != vmconfig.Exited || out.Status != 0 {
		b.Fatalf("guest: outcome %+v\n%s", out, strings.Join(console, "\n"))
	}
	return parseMetrics(b, programLines(console))
}

func hostMetrics(b *testing.B, arg string) map[string]float64 {
	b.Helper()
	bin := filepath.Join(scratch, "syscallbench-host")
	build := exec.Command("go", "build", "-o", bin, "./examples/syscallbench")
	build.Dir = repoRoot
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("building the host program: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, arg)
	if taskset, err := exec.LookPath("taskset"); err == nil {
		cmd = exec.CommandContext(ctx, taskset, "-c", "0", bin, arg)
	}
	cmd.Env = append(os.Environ(), "GOMAXPROCS=1")
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("host run: %v", err)
	}
	return parseMetrics(b, strings.Split(strings.TrimSpace(string(out)), "\n"))
}

// parseMetrics reads "name value" lines.
func parseMetrics(b *testing.B, lines []string) map[string]float64 {
	b.Helper()
	m := map[string]float64{}
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) != 2 {
			continue
		}
		v, err := strconv.ParseFloat(f[1], 64)
		if err != nil {
			continue
		}
		m[f[0]] = v
	}
	for _, want := range []string{"getpid_ns", "futex_pingpong_ns", "boot_ns"} {
		if _, ok := m[want]; !ok {
			b.Fatalf("no %s line in %q", want, fmt.Sprint(lines))
		}
	}
	return m
}
