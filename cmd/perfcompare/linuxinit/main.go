//go:build linux

// Command linuxinit is the /init of perfcompare's Linux guest. It mounts /dev, /proc, /sys and
// /tmp, lets perf see kernel symbols and every event, records the workload with perf at the
// requested rate and prints what perfcompare reads to the console, each part between two lines
//
//	perfcompare: begin NAME
//	perfcompare: end NAME status=N
//
// (NAME: record, report-self, report-children, script, sysctl), then powers the machine off.
// Its arguments come after "--" on the kernel command line:
//
//	/init [FREQ WORKLOAD [ARGS...]]    (default: 1000 syscall 4s)
//	/init overhead FREQ PHASE DURATION
//	/init uprobe ARGS...
//
// The second form runs the workload's hash for DURATION under perf record -F FREQ -g with its
// events disabled, and the workload switches them on and off every PHASE through perf's control
// FIFOs (groundtruth -toggle; section toggle), for perfcompare -overhead. The third runs /probes (examples/probes) with ARGS
// plain, then adds uprobes on its main.target, at the entry and as a uretprobe (section
// probe-add), and runs it under perf record with the entry's event (section entry) and with both
// (section return), for perfcompare -uprobe.
//
// The workload is /workload, perf is /usr/bin/perf, and the recording is /tmp/p.data.
package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
)

func main() {
	args := os.Args[1:]
	if len(args) < 2 {
		args = []string{"1000", "syscall", "4s"}
	}
	if err := setup(); err != nil {
		fmt.Printf("perfcompare: init: %v\n", err)
		halt()
	}
	if args[0] == "overhead" && len(args) == 4 {
		overhead(args[1], args[2], args[3])
		halt()
	}
	if args[0] == "uprobe" {
		uprobe(args[1:])
		halt()
	}
	freq, workload := args[0], args[1:]
	record := append([]string{"record", "-F", freq, "-g", "-o", "/tmp/p.data", "--", "/workload"}, workload...)
	steps := []struct {
		name string
		argv []string
	}{
		{"record", record},
		{"report-self", []string{"report", "-i", "/tmp/p.data", "--stdio", "--stdio-color", "never", "--no-children", "--sort", "sym"}},
		{"report-children", []string{"report", "-i", "/tmp/p.data", "--stdio", "--stdio-color", "never", "--children", "--sort", "sym"}},
		{"script", []string{"script", "-i", "/tmp/p.data", "-F", "comm,tid,period,ip,sym"}},
	}
	for _, s := range steps {
		section(s.name, func() error {
			cmd := exec.Command("/usr/bin/perf", s.argv...)
			cmd.Stdout, cmd.Stderr = os.Stdout, os.Stdout
			return cmd.Run()
		})
	}
	section("sysctl", func() error {
		for _, name := range []string{"kernel/perf_event_max_sample_rate", "kernel/perf_cpu_time_max_percent", "kernel/perf_event_paranoid", "kernel/kptr_restrict"} {
			b, err := os.ReadFile("/proc/sys/" + name)
			if err != nil {
				return err
			}
			fmt.Printf("%s = %s\n", strings.ReplaceAll(name, "/", "."), strings.TrimSpace(string(b)))
		}
		return nil
	})
	halt()
}

// overhead runs the workload's hash under perf record at freq with its events disabled (-D -1),
// and the workload switches them on and off every phase through perf's control FIFOs (section
// "toggle"), for perfcompare -overhead.
func overhead(freq, phase, duration string) {
	section("toggle", func() error {
		const ctl, ack = "/tmp/perf.ctl", "/tmp/perf.ack"
		for _, p := range []string{ctl, ack} {
			if err := syscall.Mkfifo(p, 0o600); err != nil {
				return fmt.Errorf("mkfifo %s: %w", p, err)
			}
		}
		cmd := exec.Command("/usr/bin/perf", "record", "-F", freq, "-g", "-D", "-1",
			"--control", "fifo:"+ctl+","+ack, "-o", "/tmp/o.data", "--",
			"/workload", "-toggle", phase, "-perf-control", ctl+","+ack, "hash", duration)
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stdout
		return cmd.Run()
	})
}

// uprobe measures perf probe's uprobes on /probes' main.target: the program run plain, then
// recorded with an entry probe, then with the entry and a return probe.
func uprobe(args []string) {
	run := func(argv ...string) func() error {
		return func() error {
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Stdout, cmd.Stderr = os.Stdout, os.Stdout
			return cmd.Run()
		}
	}
	section("plain", run(append([]string{"/probes"}, args...)...))
	section("probe-add", func() error {
		if err := run("/usr/bin/perf", "probe", "-x", "/probes", "-a", "target=main.target")(); err != nil {
			return err
		}
		return run("/usr/bin/perf", "probe", "-x", "/probes", "-a", "target_ret=main.target%return")()
	})
	section("entry", run(append([]string{"/usr/bin/perf", "record", "-e", "probe_probes:target", "-o", "/tmp/e.data", "--", "/probes"}, args...)...))
	section("return", run(append([]string{"/usr/bin/perf", "record", "-e", "probe_probes:target", "-e", "probe_probes:target_ret__return",
		"-o", "/tmp/r.data", "--", "/probes"}, args...)...))
}

// setup mounts the file systems perf and the workload need and opens perf up to kernel symbols
// and events. The kernel's own messages are kept off the console, so that nothing interleaves
// with perf's output.
func setup() error {
	mounts := []struct{ fstype, dir string }{{"devtmpfs", "/dev"}, {"proc", "/proc"}, {"sysfs", "/sys"}, {"tmpfs", "/tmp"}}
	for _, m := range mounts {
		if err := os.MkdirAll(m.dir, 0o755); err != nil {
			return err
		}
		if err := syscall.Mount(m.fstype, m.dir, m.fstype, 0, ""); err != nil {
			return fmt.Errorf("mount %s on %s: %w", m.fstype, m.dir, err)
		}
	}
	// perf probe writes its uprobes through tracefs; a kernel without it fails only that.
	syscall.Mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, "")
	for name, value := range map[string]string{"kernel/kptr_restrict": "0", "kernel/perf_event_paranoid": "-1", "kernel/printk": "1 4 1 7"} {
		if err := os.WriteFile("/proc/sys/"+name, []byte(value+"\n"), 0); err != nil {
			return fmt.Errorf("sysctl %s: %w", name, err)
		}
	}
	os.Setenv("HOME", "/tmp")
	os.Setenv("PATH", "/usr/bin:/bin")
	os.Setenv("PAGER", "cat")
	os.Setenv("TERM", "dumb")
	return nil
}

// section prints run's output between the begin and end lines, with its outcome.
func section(name string, run func() error) {
	w := bufio.NewWriter(os.Stdout)
	fmt.Fprintf(w, "perfcompare: begin %s\n", name)
	w.Flush()
	status := 0
	if err := run(); err != nil {
		status = -1
		if ee, ok := err.(*exec.ExitError); ok {
			status = ee.ExitCode()
		} else {
			fmt.Printf("perfcompare: %s: %v\n", name, err)
		}
	}
	fmt.Printf("perfcompare: end %s status=%d\n", name, status)
}

func halt() {
	syscall.Sync()
	syscall.Reboot(syscall.LINUX_REBOOT_CMD_POWER_OFF)
	// Powering off failed: ending init panics the kernel, which with panic=-1 and QEMU's
	// -no-reboot stops the machine as well.
	os.Exit(1)
}
