package vm_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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
		host := hostMetrics(b, "examples/syscallbench", syscallMetrics, iterations)
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
	return parseMetrics(b, programLines(console), syscallMetrics)
}

// syscallMetrics are the lines examples/syscallbench prints.
var syscallMetrics = []string{"getpid_ns", "futex_pingpong_ns", "boot_ns"}

// hostMetrics builds program for this host and runs it with args on one CPU, with GOMAXPROCS=1,
// and returns the metrics it prints (each of wanted must be there).
func hostMetrics(b *testing.B, program string, wanted []string, args ...string) map[string]float64 {
	b.Helper()
	bin := filepath.Join(scratch, filepath.Base(program)+"-host")
	build := exec.Command("go", "build", "-o", bin, "./"+program)
	build.Dir = repoRoot
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("building the host program: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	if taskset, err := exec.LookPath("taskset"); err == nil {
		cmd = exec.CommandContext(ctx, taskset, append([]string{"-c", "0", bin}, args...)...)
	}
	cmd.Env = append(os.Environ(), "GOMAXPROCS=1")
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("host run: %v", err)
	}
	return parseMetrics(b, strings.Split(strings.TrimSpace(string(out)), "\n"), wanted)
}

// parseMetrics reads "name value" lines; each of wanted must be there.
func parseMetrics(b *testing.B, lines []string, wanted []string) map[string]float64 {
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
	for _, want := range wanted {
		if _, ok := m[want]; !ok {
			b.Fatalf("no %s line in %q", want, fmt.Sprint(lines))
		}
	}
	return m
}

// BenchmarkFiles runs examples/fsbench three ways in one run: in a unitrace image on its
// in-memory file system (/tmp) and on a directory of this host shared over virtio-9p, and as
// an ordinary Linux process on that same directory. It reports each side's large-file write
// and read throughput (16 MiB in 64 KiB calls) and the per-file cost of creating, stat'ing and
// removing small files, and the ratios of the guest's to the host's. The guest runs under TCG,
// so memfs's figures are the emulated CPU's; the share's add a 9P round trip per request.
//
//	go test ./tests/vm -run '^$' -bench Files -benchtime 1x
func BenchmarkFiles(b *testing.B) {
	benchEachArch(b, func(b *testing.B, a guestArch) {
		for i := 0; i < b.N; i++ {
			dir := b.TempDir()
			mem := fsbenchGuest(b, a, "-dir", "/tmp")
			shared := fsbenchGuest(b, a, "-share", dir+":/share", "--", "-dir", "/share")
			host := hostMetrics(b, "examples/fsbench", fsbenchMetrics, "-dir", dir)
			for _, m := range fsbenchMetrics {
				b.ReportMetric(mem[m], "memfs_"+m)
				b.ReportMetric(shared[m], "share_"+m)
				b.ReportMetric(host[m], "host_"+m)
			}
			b.ReportMetric(shared["read_MBps"]/host["read_MBps"], "share/host_read")
			b.ReportMetric(shared["write_MBps"]/host["write_MBps"], "share/host_write")
		}
	})
}

// fsbenchMetrics are the lines examples/fsbench prints.
var fsbenchMetrics = []string{"write_MBps", "read_MBps", "create_us", "stat_us", "remove_us"}

// fsbenchGuest boots examples/fsbench with the launcher's args (program arguments after
// "--"; without one, args are all the program's).
func fsbenchGuest(b *testing.B, a guestArch, args ...string) map[string]float64 {
	b.Helper()
	if !slices.Contains(args, "--") {
		args = append([]string{"--"}, args...)
	}
	at := slices.Index(args, "--")
	full := append(append([]string{"-image", a.path("fsbench.elf")}, args[:at]...), "examples/fsbench")
	full = append(full, args[at:]...)
	stdout, stderr, status := runLauncher(b, a, full...)
	if status != 0 {
		b.Fatalf("guest: status %d\n%s\n%s", status, stdout, stderr)
	}
	return parseMetrics(b, programLines(consoleLines(stdout)), fsbenchMetrics)
}
