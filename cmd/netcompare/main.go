// Command netcompare serves the same HTTP handler (examples/nethttp -serve) from a unitrace
// guest and from a Linux guest under the same QEMU, and drives the same bounded load at each
// from the host over loopback, round after round, interleaved:
//
//	netcompare -linux /boot/vmlinuz-... -initrd init.cpio -unitrace ./unitrace [-rounds 3]
//	           [-workers 4] [-duration 5s] [-warmup 2s] [-size 1024]
//
// The Linux guest (q35, qboot, -cpu max, one CPU) reaches the host through QEMU's user
// networking (virtio-net, hostfwd to its port 8080); the unitrace guest (microvm) through its
// host sockets (unitrace run). scripts/netcompare.sh builds the initramfs: cmd/netcompare's
// linuxinit as /init, the workload, and the network driver's modules.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/unitrace/unitrace/internal/exitstatus"
	"github.com/unitrace/unitrace/internal/httpload"
	"github.com/unitrace/unitrace/internal/vmconfig"
)

func main() {
	exitstatus.Exit("netcompare", run(os.Args[1:], os.Stdout, os.Stderr))
}

type options struct {
	linux, initrd, unitrace string
	rounds, workers, size   int
	duration, warmup        time.Duration
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("netcompare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.StringVar(&o.linux, "linux", "", "Linux kernel image")
	fs.StringVar(&o.initrd, "initrd", "", "the Linux guest's initramfs (scripts/netcompare.sh builds it)")
	fs.StringVar(&o.unitrace, "unitrace", "", "the unitrace binary")
	fs.IntVar(&o.rounds, "rounds", 3, "rounds: each boots both guests once")
	fs.IntVar(&o.workers, "workers", 4, "load generator workers, each with its own keep-alive connection")
	fs.IntVar(&o.size, "size", 1024, "response body bytes")
	fs.DurationVar(&o.duration, "duration", 5*time.Second, "load per guest and round, after the warm-up")
	fs.DurationVar(&o.warmup, "warmup", 2*time.Second, "load before the measurement (the emulator translates the server's code as it first runs)")
	if err := exitstatus.ParseFlags(fs, args); err != nil {
		return err
	}
	if o.linux == "" || o.initrd == "" || o.unitrace == "" {
		return exitstatus.UsageError{Err: errors.New("need -linux, -initrd and -unitrace")}
	}
	var uni, lin []httpload.Result
	for r := 0; r < o.rounds; r++ {
		for _, g := range []struct {
			name string
			boot func(port int) *exec.Cmd
			into *[]httpload.Result
		}{{"unitrace", o.unitraceCmd, &uni}, {"linux", o.linuxCmd, &lin}} {
			res, err := o.measure(g.boot)
			if err != nil {
				return fmt.Errorf("round %d, %s: %w", r+1, g.name, err)
			}
			fmt.Fprintf(stderr, "netcompare: round %d/%d: %s: %v\n", r+1, o.rounds, g.name, res)
			*g.into = append(*g.into, res)
		}
	}
	writeTable(stdout, o, uni, lin)
	return nil
}

func (o options) unitraceCmd(port int) *exec.Cmd {
	return exec.Command(o.unitrace, "run", "-m", "512M", "examples/nethttp", "--", "-serve", fmt.Sprintf("127.0.0.1:%d", port))
}

func (o options) linuxCmd(port int) *exec.Cmd {
	args := []string{"-M", "q35", "-cpu", "max", "-m", "512M", "-smp", "1", "-nodefaults", "-no-reboot", "-display", "none",
		"-serial", "stdio"}
	args = append(args, vmconfig.Firmware("q35")...)
	args = append(args, "-kernel", o.linux, "-initrd", o.initrd,
		"-append", "console=ttyS0 quiet panic=-1 -- -serve 0.0.0.0:8080",
		"-netdev", fmt.Sprintf("user,id=n0,hostfwd=tcp:127.0.0.1:%d-:8080", port), "-device", "virtio-net-pci,netdev=n0")
	return exec.Command("qemu-system-x86_64", args...)
}

// measure boots a guest serving on a free host port, waits for it to serve, warms it up,
// drives the load, and stops it with /quit.
func (o options) measure(boot func(port int) *exec.Cmd) (httpload.Result, error) {
	port, err := freePort()
	if err != nil {
		return httpload.Result{}, err
	}
	cmd := boot(port)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return httpload.Result{}, err
	}
	var errBuf strings.Builder
	cmd.Stderr = &errBuf
	if err := cmd.Start(); err != nil {
		return httpload.Result{}, err
	}
	defer cmd.Process.Kill()
	serving := httpload.AwaitLine(out, "nethttp: serving on", nil)
	select {
	case ok := <-serving:
		if !ok {
			cmd.Wait()
			return httpload.Result{}, fmt.Errorf("the guest ended before serving: %s", errBuf.String())
		}
	case <-time.After(5 * time.Minute):
		return httpload.Result{}, errors.New("the guest did not serve within 5 minutes")
	}
	url := fmt.Sprintf("http://127.0.0.1:%d/size/%d", port, o.size)
	if err := waitReachable(url); err != nil {
		return httpload.Result{}, err
	}
	httpload.Run(url, int64(o.size), o.workers, o.warmup)
	res := httpload.Run(url, int64(o.size), o.workers, o.duration)
	if resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/quit", port)); err == nil {
		resp.Body.Close()
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(time.Minute):
	}
	if res.Errors > 0 {
		return res, fmt.Errorf("%d errors; the first: %v", res.Errors, res.FirstErr)
	}
	return res, nil
}

// waitReachable waits for the forwarded port to answer: QEMU's hostfwd listens before the
// guest does.
func waitReachable(url string) error {
	deadline := time.Now().Add(time.Minute)
	for {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the guest's server is not reachable: %w", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// writeTable prints medians (min-max) of each side and the median of the rounds' ratios.
func writeTable(w io.Writer, o options, uni, lin []httpload.Result) {
	fmt.Fprintf(w, "%d rounds, interleaved; %d workers with keep-alive for %v after a %v warm-up, %d-byte responses:\n\n",
		o.rounds, o.workers, o.duration, o.warmup, o.size)
	fmt.Fprintln(w, "| measure | unitrace: median (min-max) | Linux: median (min-max) | unitrace / Linux |")
	fmt.Fprintln(w, "| --- | --- | --- | --- |")
	rows := []struct {
		name string
		f    func(httpload.Result) float64
		unit string // a format: %.0f for a rate, %.2f ms for a latency
	}{
		{"requests per second", httpload.Result.PerSecond, "%.0f"},
		{"p50 latency", func(r httpload.Result) float64 { return float64(r.P50) / 1e6 }, "%.2f ms"},
		{"p99 latency", func(r httpload.Result) float64 { return float64(r.P99) / 1e6 }, "%.2f ms"},
	}
	for _, row := range rows {
		u, l := values(uni, row.f), values(lin, row.f)
		var ratios []float64
		for i := range u {
			if l[i] > 0 {
				ratios = append(ratios, u[i]/l[i])
			}
		}
		fmt.Fprintf(w, "| %s | %s | %s | %.2f |\n", row.name, spread(u, row.unit), spread(l, row.unit), median(ratios))
	}
}

func values(rs []httpload.Result, f func(httpload.Result) float64) []float64 {
	var v []float64
	for _, r := range rs {
		v = append(v, f(r))
	}
	return v
}

// spread is "median (min-max)", each value in format.
func spread(v []float64, format string) string {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) == 0 {
		return "-"
	}
	num := strings.TrimSuffix(format, " ms")
	return fmt.Sprintf(format+" ("+num+"-"+num+")", median(s), s[0], s[len(s)-1])
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
