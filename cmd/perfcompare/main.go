// Command perfcompare profiles one workload two ways under the same QEMU (TCG, q35) and prints
// the numbers side by side: perf record in a Linux guest (Debian's kernel, an initramfs made by
// scripts/perfcompare.sh whose /init is cmd/perfcompare/linuxinit) and unitrace's own sampler
// (`unitrace run -sample`). The workload is examples/groundtruth syscall, which splits its time
// between getrandom(2) and a frameless assembly leaf and prints the split it measured.
//
//	perfcompare -linux /boot/vmlinuz-... -initrd initrd.cpio [-unitrace BIN] [-duration 4s] [-freq 1000] [-keep DIR]
//	perfcompare -overhead ROUNDS [-phase 250ms] ...
//	perfcompare -uprobe ROUNDS ...
//
// With -overhead it measures instead what each profiler costs a compute workload (overhead.go),
// with -uprobe what a dynamic probe's hit costs, perf probe's uprobes against unitrace's probes
// (uprobe.go).
//
// The numbers come from `perf script` (every sample's call chain) on the Linux side and from
// `unitrace folded` on the unitrace side; `perf report`'s own percentages are printed under the
// table as a cross-check. With -keep DIR both consoles, the recording and the folded stacks
// stay in DIR.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/unitrace/unitrace/internal/exitstatus"
)

func main() {
	exitstatus.Exit("perfcompare", run(os.Args[1:]))
}

// options are the command line.
type options struct {
	linux, initrd string
	qemu          string
	unitrace      []string // the command that runs cmd/unitrace
	app           string
	duration      time.Duration
	freq          int
	keep          string
	timeout       time.Duration
	phase         time.Duration // -overhead: each on or off phase
}

const workloadName = "syscall"

func run(args []string) error {
	fs := flag.NewFlagSet("perfcompare", flag.ContinueOnError)
	var o options
	fs.StringVar(&o.linux, "linux", "", "Linux kernel (bzImage) for the perf side")
	fs.StringVar(&o.initrd, "initrd", "", "initramfs with /init (linuxinit), /usr/bin/perf and its libraries, /workload")
	fs.StringVar(&o.qemu, "qemu", "qemu-system-x86_64", "QEMU binary")
	ut := fs.String("unitrace", "", "unitrace binary (default: go run ./cmd/unitrace)")
	fs.StringVar(&o.app, "app", "examples/groundtruth", "the workload's main package, for the unitrace image")
	fs.DurationVar(&o.duration, "duration", 4*time.Second, "how long the workload runs")
	fs.IntVar(&o.freq, "freq", 1000, "sampling rate (Hz) of both profilers")
	fs.StringVar(&o.keep, "keep", "", "keep the consoles, the recording and the folded stacks in this directory")
	fs.DurationVar(&o.timeout, "timeout", 20*time.Minute, "limit on each guest's run")
	fs.DurationVar(&o.phase, "phase", 250*time.Millisecond, "with -overhead, how long each profiler stays on or off")
	overheadRounds := fs.Int("overhead", 0, "instead, measure the profilers' overhead on a compute workload over this many rounds")
	uprobeRounds := fs.Int("uprobe", 0, "instead, measure a dynamic probe's cost per hit, perf probe's uprobes against unitrace's, over this many rounds")
	if err := exitstatus.ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if o.linux == "" || o.initrd == "" {
		return errors.New("need -linux and -initrd (scripts/perfcompare.sh prepares them)")
	}
	if o.freq <= 0 || o.duration <= 0 || o.phase <= 0 {
		return errors.New("-freq, -duration and -phase must be positive")
	}
	o.unitrace = []string{"go", "run", "./cmd/unitrace"}
	if *ut != "" {
		o.unitrace = []string{*ut}
	}
	dir := o.keep
	if dir == "" {
		d, err := os.MkdirTemp("", "perfcompare")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}

	if *overheadRounds > 0 {
		return runOverhead(&o, dir, *overheadRounds, os.Stdout)
	}
	if *uprobeRounds > 0 {
		return runUprobe(&o, dir, *uprobeRounds, os.Stdout)
	}
	lin, err := runLinux(&o, dir)
	if err != nil {
		return fmt.Errorf("linux guest: %w", err)
	}
	uni, err := runUnitrace(&o, dir)
	if err != nil {
		return fmt.Errorf("unitrace: %w", err)
	}
	printTable(os.Stdout, &o, lin, uni)
	return nil
}

// side is one profiler's results.
type side struct {
	prof      *profile
	s         shares
	truth     truth
	taken     int // samples the profiler says it took
	late      string
	missed    string
	wall      time.Duration // the whole run on the host
	notes     []string
	perfCheck string
}

// qemuArgs is the Linux guest's QEMU command line, with initArgs after "--" on the kernel
// command line: /init's arguments.
func qemuArgs(o *options, initArgs string) []string {
	return []string{"-M", "q35,accel=tcg", "-cpu", "max", "-m", "1G", "-display", "none",
		"-serial", "stdio", "-no-reboot", "-kernel", o.linux, "-initrd", o.initrd,
		"-append", "console=ttyS0 quiet panic=-1 -- " + initArgs}
}

func runLinux(o *options, dir string) (*side, error) {
	fmt.Fprintf(os.Stderr, "perfcompare: booting Linux to record the workload with perf\n")
	start := time.Now()
	out, err := runCmd(o.timeout, filepath.Join(dir, "linux.console"), o.qemu, qemuArgs(o, fmt.Sprintf("%d %s %v", o.freq, workloadName, o.duration))...)
	wall := time.Since(start)
	if err != nil {
		return nil, fmt.Errorf("%s: %w%s", o.qemu, err, tail(out))
	}
	sd, err := analyzeLinux(out, o.freq)
	if err != nil {
		return nil, fmt.Errorf("%w%s", err, tail(out))
	}
	sd.wall = wall
	return sd, nil
}

// analyzeLinux turns the Linux guest's console into the perf side's numbers.
func analyzeLinux(out []byte, freq int) (*side, error) {
	c, err := parseConsole(bytes.NewReader(out))
	if err != nil {
		return nil, err
	}
	rec, err := c.section("record")
	if err != nil {
		return nil, err
	}
	sd := &side{}
	if sd.truth, err = parseTruth(rec, workloadName); err != nil {
		return nil, fmt.Errorf("perf record: %w", err)
	}
	for _, l := range rec {
		if strings.HasPrefix(strings.TrimSpace(l), "unitrace:") {
			return nil, fmt.Errorf("the workload printed %q under Linux: the unitrace kernel package should stay dormant there", l)
		}
	}
	script, err := c.section("script")
	if err != nil {
		return nil, err
	}
	if sd.prof, err = parsePerfScript(script); err != nil {
		return nil, fmt.Errorf("perf script: %w", err)
	}
	sd.s = measure(sd.prof)
	sd.taken = sd.s.total
	if n := recordSamples(rec); n >= 0 && n != sd.taken {
		sd.notes = append(sd.notes, fmt.Sprintf("perf record said %d samples, perf script printed %d", n, sd.taken))
	}
	self, err := reportSection(c, "report-self", false)
	if err != nil {
		return nil, err
	}
	children, err := reportSection(c, "report-children", true)
	if err != nil {
		return nil, err
	}
	sd.prof.lost = self.lost
	var all []string
	for _, lines := range c.sections {
		all = append(all, lines...)
	}
	if n := lostChunks(all); n > 0 {
		sd.notes = append(sd.notes, fmt.Sprintf("perf lost %d chunks of its ring buffer", n))
	}
	sd.late, sd.missed = "not reported", "not reported"
	sd.perfCheck = fmt.Sprintf("perf report (event %s): [k] leaves %.2f%% (--no-children); --children: %s %.2f%%, %s %.2f%%, %s %.2f%%",
		self.event, self.kernelSelf(), fnSysPhase, children.entries[fnSysPhase].children,
		fnUserPhase, children.entries[fnUserPhase].children, fnSpinLeaf, children.entries[fnSpinLeaf].children)
	if sys, err := c.section("sysctl"); err == nil {
		for _, l := range sys {
			if v, ok := strings.CutPrefix(l, "kernel.perf_event_max_sample_rate = "); ok {
				if n, err := strconv.Atoi(v); err == nil && n < freq {
					sd.notes = append(sd.notes, fmt.Sprintf("the kernel lowered perf_event_max_sample_rate to %d Hz during the run", n))
				}
			}
		}
	}
	return sd, nil
}

func reportSection(c *console, name string, children bool) (*report, error) {
	lines, err := c.section(name)
	if err != nil {
		return nil, err
	}
	r, err := parsePerfReport(lines, children)
	if err != nil {
		return nil, fmt.Errorf("perf %s: %w", name, err)
	}
	return r, nil
}

func runUnitrace(o *options, dir string) (*side, error) {
	fmt.Fprintf(os.Stderr, "perfcompare: running the unitrace image with the sampler\n")
	rec := filepath.Join(dir, "unitrace.utrace")
	args := append(append([]string{}, o.unitrace[1:]...), "run", "-sample", strconv.Itoa(o.freq), "-o", rec,
		o.app, "--", workloadName, o.duration.String())
	start := time.Now()
	out, err := runCmd(o.timeout, filepath.Join(dir, "unitrace.console"), o.unitrace[0], args...)
	wall := time.Since(start)
	if err != nil {
		return nil, fmt.Errorf("run: %w%s", err, tail(out))
	}
	fargs := append(append([]string{}, o.unitrace[1:]...), "folded", rec)
	folded, err := runCmd(o.timeout, filepath.Join(dir, "unitrace.folded"), o.unitrace[0], fargs...)
	if err != nil {
		return nil, fmt.Errorf("folded: %w%s", err, tail(folded))
	}
	sd, err := analyzeUnitrace(out, folded)
	if err != nil {
		return nil, err
	}
	sd.wall = wall
	return sd, nil
}

// analyzeUnitrace turns the unitrace run's console and the recording's folded stacks into the
// unitrace side's numbers.
func analyzeUnitrace(console, folded []byte) (*side, error) {
	lines := strings.Split(strings.ReplaceAll(string(console), "\r", ""), "\n")
	sd := &side{}
	var err error
	if sd.truth, err = parseTruth(lines, workloadName); err != nil {
		return nil, fmt.Errorf("console: %w", err)
	}
	st, err := parseSampler(lines)
	if err != nil {
		return nil, fmt.Errorf("console: %w", err)
	}
	if sd.prof, err = parseFolded(bytes.NewReader(folded)); err != nil {
		return nil, fmt.Errorf("folded: %w", err)
	}
	sd.s = measure(sd.prof)
	sd.taken = st.samples
	sd.late, sd.missed = strconv.Itoa(st.late), strconv.Itoa(st.missed)
	switch {
	case sd.s.total < st.samples:
		sd.notes = append(sd.notes, fmt.Sprintf("%d of the sampler's samples are not in the folded stacks (idle CPU)", st.samples-sd.s.total))
	case sd.s.total > st.samples:
		sd.notes = append(sd.notes, fmt.Sprintf("the folded stacks count %d for the sampler's %d samples: each sample weighs the deadlines it stands for", sd.s.total, st.samples))
	}
	return sd, nil
}

// runCmd runs a command with no input, copies its standard output and error (together) to file,
// and returns them.
func runCmd(timeout time.Duration, file, name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var buf bytes.Buffer
	f, err := os.Create(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout = io.MultiWriter(&buf, f)
	cmd.Stderr = cmd.Stdout
	err = cmd.Run()
	if ctx.Err() != nil {
		err = fmt.Errorf("no end after %v: %w", timeout, ctx.Err())
	}
	return buf.Bytes(), err
}

// tail returns the last lines of a failed command's output, for its error.
func tail(out []byte) string {
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) > 15 {
		lines = lines[len(lines)-15:]
	}
	return "\n" + strings.Join(lines, "\n")
}

func pct(n, of int) string {
	if of == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(of))
}

// printTable prints the comparison as a Markdown table, with the notes under it.
func printTable(w io.Writer, o *options, lin, uni *side) {
	fmt.Fprintf(w, "examples/groundtruth %s %v, both sampling at %d Hz, QEMU q35 under TCG (-cpu max). Shares are of the samples in each profile",
		workloadName, o.duration, o.freq)
	if uni.s.total > uni.taken {
		fmt.Fprintf(w, "; unitrace's folded stacks weigh each sample by the deadlines it stands for (missed ones included)")
	}
	fmt.Fprintf(w, ".\n\n")
	row := func(what string, f func(*side) string) {
		fmt.Fprintf(w, "| %s | %s | %s |\n", what, f(lin), f(uni))
	}
	fmt.Fprintf(w, "| | perf in a Linux guest | unitrace |\n| --- | --- | --- |\n")
	row("samples taken", func(s *side) string { return strconv.Itoa(s.taken) })
	row(fmt.Sprintf("expected: the workload's elapsed × %d Hz", o.freq), func(s *side) string {
		return fmt.Sprintf("%.0f (%v)", s.truth.elapsed.Seconds()*float64(o.freq), s.truth.elapsed)
	})
	row("deadlines late / missed", func(s *side) string { return s.late + " / " + s.missed })
	row("samples lost", func(s *side) string { return strconv.Itoa(s.prof.lost) })
	row("samples in the profile (the shares' 100%)", func(s *side) string { return strconv.Itoa(s.s.total) })
	row("truth: user / system-call time (the workload's clock)", func(s *side) string {
		t := s.truth
		all := t.userNs + t.sysNs
		return fmt.Sprintf("%.1f%% / %.1f%% (%.2f s / %.2f s)", 100*float64(t.userNs)/float64(all), 100*float64(t.sysNs)/float64(all),
			float64(t.userNs)/1e9, float64(t.sysNs)/1e9)
	})
	row("workload loop, inclusive (syscallWorkload in the stack)", func(s *side) string { return pct(s.s.workload, s.s.total) })
	row("compute phase, inclusive (userPhase or spinLeaf in the stack)", func(s *side) string { return pct(s.s.compute, s.s.total) })
	row("system-call phase, inclusive (sysPhase or fill in the stack)", func(s *side) string { return pct(s.s.sys, s.s.total) })
	row("of the system-call phase, leaf in the kernel", func(s *side) string {
		return fmt.Sprintf("%s (%d of %d)", pct(s.s.sysKernel, s.s.sys), s.s.sysKernel, s.s.sys)
	})
	row("frameless leaf: userPhase / spinLeaf, inclusive", func(s *side) string {
		return pct(s.s.userPhase, s.s.total) + " / " + pct(s.s.spinLeaf, s.s.total)
	})
	row("of the spinLeaf samples, caller userPhase", func(s *side) string { return pct(s.s.spinByCaller, s.s.spinLeaf) })
	row("run on the host (boot to exit, analysis included for perf)", func(s *side) string { return s.wall.Round(time.Second).String() })
	fmt.Fprintln(w)
	fmt.Fprintf(w, "- %s\n", lin.perfCheck)
	fmt.Fprintf(w, "- Linux guest: the workload exited with status 0 under perf; samples in unitrace's kernel, arch or trace agent code: %d; in unitrace packages' initialisation: %d\n",
		lin.s.foreign, lin.s.pkgInit)
	for _, n := range lin.notes {
		fmt.Fprintf(w, "- perf: %s\n", n)
	}
	for _, n := range uni.notes {
		fmt.Fprintf(w, "- unitrace: %s\n", n)
	}
}
