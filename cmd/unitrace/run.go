package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hugelgupf/vmtest/qemu"
	"github.com/unitrace/unitrace/internal/image"
	"github.com/unitrace/unitrace/internal/packfiles"
	"github.com/unitrace/unitrace/internal/probes"
	"github.com/unitrace/unitrace/internal/tracefile"
	"github.com/unitrace/unitrace/internal/vmconfig"
	"github.com/unitrace/unitrace/probe"
	"github.com/unitrace/unitrace/trace/ctl"
)

// statusBuildFailed is the exit status when no image could be built: the go
// build failed or the builder refused the result (126: "cannot execute").
const statusBuildFailed = 126

// runOptions is the parsed command line of "unitrace run".
type runOptions struct {
	arch    string
	machine string
	memory  string
	smp     int
	accel   string
	cpu     string
	timeout time.Duration
	output  string
	verbose bool
	dryRun  bool
	appDir  string
	env     []string // KEY=VALUE words for the guest
	args    []string // the program's arguments

	files    packfiles.Flag     // directories to pack into the image
	packOpts packfiles.Options  // -files-mtime
	shares   vmconfig.ShareFlag // host directories the guest mounts while it runs

	trace     vmconfig.TraceOptions
	traceFile string    // recording; default next to the image
	pprofFile string    // write the samples as a pprof profile here after the run
	sockets   string    // expose the trace ports in this directory instead of recording
	ctlSock   string    // listen here for clients of the guest's control port (unitrace signal)
	probes    probeFlag // -probe SPEC: dynamic probes armed before the program starts
	probeStr  int       // -probe-strings N: bytes of each string a probe's hit copies

	netMode string     // -net: host (the default) or none
	listen  listenFlag // -listen GUESTPORT=HOSTADDR:PORT

	stdin io.Reader // what the guest's console is fed (guestInput), nil for none: run's alone
}

// -net's values.
const (
	netHost = "host"
	netNone = "none"
)

// tracing reports whether the run has the trace ports.
func (o *runOptions) tracing() bool {
	return o.trace != (vmconfig.TraceOptions{}) || o.traceFile != "" || o.sockets != "" || o.pprofFile != "" || len(o.probes) > 0
}

const runDoc = `Build the main package in APP_DIR (it imports github.com/unitrace/unitrace/kernel)
into an image and boot it in QEMU with the console on standard output.
KEY=VALUE words become the program's environment (unitrace.* ones are kernel
options); words after -- become its arguments. Flags may also follow APP_DIR.

Exit status: the guest's own; 70 when the guest kernel faults; 124 when the
guest runs past -timeout; 125 when QEMU fails, ends without the guest's exit
line or is stopped by a second ^C; 128+N when a signal N from elsewhere ends
QEMU; 126 when the image cannot be built; 2 for a usage error.

-files HOSTDIR:GUESTDIR (repeatable) packs the files below HOSTDIR into the
image; the guest finds them at GUESTDIR, read-only (docs/tools.md).
-share HOSTDIR:GUESTDIR[:ro] (repeatable; microvm on amd64, virt on arm64)
mounts HOSTDIR at GUESTDIR while the guest runs: reads and writes reach the
host; :ro makes it read-only (docs/tools.md).

Tracing (microvm on amd64, virt on arm64): -trace, -backtrace, -ring, -mode
become unitrace.* kernel options, and the launcher records the guest's
org.unitrace.data port to -o FILE while the guest runs (docs/tracing.md).

Signals (microvm, virt): the first ^C (or SIGTERM) goes to the program as
SIGINT (SIGTERM), over the guest's control port; a second one stops QEMU.
-ctl SOCK listens on SOCK for "unitrace signal -ctl SOCK SIG" and other
clients of the control port. With -sockets, or on q35 and pc, which have no
control port for the launcher, the first ^C stops QEMU.

Standard input (microvm, virt): when the launcher's standard input is a pipe
or a file, the program reads those bytes from its own, then end of file; the
launcher tells the guest where the input ends over the control port. A
terminal or /dev/null gives no input (unitrace.stdin=null: reads are at end
of file at once), as do q35, pc and -sockets, which leave the launcher no
control port.

Sockets (microvm, virt): the guest's TCP and UDP sockets are host sockets that
the launcher makes for it. Listeners bind on 127.0.0.1 (or ::1), and the
launcher says where; -listen GUESTPORT=HOSTADDR:PORT binds one elsewhere.
Outbound connections go where the guest asks; -net=none turns sockets off.
`

var runCommand = command{
	name: "run",
	synopsis: "[-arch amd64|arm64] [-machine MACHINE] [-m SIZE] [-smp N] [-accel tcg|kvm] [-cpu MODEL] [-timeout D] [-image ELF] [-v] [-n] " +
		"[-files HOSTDIR:GUESTDIR ...] [-files-mtime SECONDS] [-share HOSTDIR:GUESTDIR[:ro] ...] " +
		"[-trace GLOBS] [-probe SPEC ... [-probe-strings N]] [-backtrace] [-ring SIZE] [-sample HZ] [-sample-force] [-offcpu [-offcpu-hz HZ] [-offcpu-max N]] [-wakers] [-mode stream|flight] [-pprof FILE] [-o FILE] [-sockets DIR] [-ctl SOCK] " +
		"[-net host|none] [-listen GUESTPORT=HOSTADDR:PORT ...] APP_DIR [KEY=VALUE ...] [-- ARGS ...]",
	summary: "build the main package in APP_DIR into an image and boot it in QEMU (-trace records it)",
	doc:     runDoc,
	setup:   runSetup,
}

func runSetup(fs *flag.FlagSet) func(std stdio, args []string) error {
	var o runOptions
	o.register(fs)
	o.registerFiles(fs)
	return func(std stdio, args []string) error {
		if err := o.parse(fs, args); err != nil {
			return flagError(err)
		}
		o.stdin = guestInput(std.in)
		return runGuest(std, o)
	}
}

// registerFiles defines -files and -files-mtime on fs, into o: run's alone, since test builds
// its images another way.
func (o *runOptions) registerFiles(fs *flag.FlagSet) {
	fs.Var(&o.files, "files", "pack the files below HOSTDIR into the image, mounted read-only at GUESTDIR in the guest (HOSTDIR:GUESTDIR; repeatable)")
	fs.Func("files-mtime", "give every packed file this modification time, in seconds since the epoch (reproducible images)", func(s string) error {
		t, err := packfiles.ParseMTime(s)
		o.packOpts.MTime = &t
		return err
	})
}

// register defines run's flags on fs, into o.
func (o *runOptions) register(fs *flag.FlagSet) {
	fs.StringVar(&o.arch, "arch", string(qemu.ArchAMD64), "guest architecture: amd64 or arm64")
	fs.StringVar(&o.machine, "machine", "", "QEMU machine: microvm (default), q35 or pc on amd64; virt (default) or virt-gicv3 on arm64")
	fs.StringVar(&o.memory, "m", vmconfig.DefaultMemory, "guest memory (QEMU -m)")
	fs.IntVar(&o.smp, "smp", 1, "number of CPUs")
	fs.StringVar(&o.accel, "accel", vmconfig.TCG, "accelerator: tcg or kvm (falls back to tcg when KVM is unusable)")
	fs.StringVar(&o.cpu, "cpu", vmconfig.DefaultCPU, "QEMU CPU model, e.g. max or qemu64")
	fs.DurationVar(&o.timeout, "timeout", 10*time.Minute, "kill the guest after this long (0: never)")
	fs.StringVar(&o.output, "image", "", "image path (default: build/<name>-<arch>.elf in the program's module)")
	fs.BoolVar(&o.verbose, "v", false, "print the QEMU command line before booting")
	fs.BoolVar(&o.dryRun, "n", false, "build the image and print the QEMU command line without booting")
	fs.Var(&o.shares, "share", fmt.Sprintf("mount the host directory HOSTDIR at GUESTDIR in the guest while it runs, read-only with :ro (HOSTDIR:GUESTDIR[:ro]; repeatable, up to %d)", vmconfig.MaxShares))
	fs.StringVar(&o.trace.Globs, "trace", "", "enable these tracepoints at boot (GLOB[,GLOB...]) and record the trace")
	fs.BoolVar(&o.trace.Backtrace, "backtrace", false, "record a backtrace with every enabled tracepoint")
	fs.StringVar(&o.trace.Ring, "ring", "", "per-CPU trace ring size: a power of two from 16K to 1G (default: the kernel's, 1M)")
	fs.StringVar(&o.trace.Sample, "sample", "", "run the sampling profiler from boot at this rate in Hz (1..10000) and record the samples")
	fs.BoolVar(&o.trace.Force, "sample-force", false, "allow -sample rates up to 100000 Hz")
	fs.BoolVar(&o.trace.OffCPU, "offcpu", false, "from boot, sample every goroutine that is not on a CPU (its state, wait reason and stack) and record the samples")
	fs.IntVar(&o.trace.OffCPUHz, "offcpu-hz", 0, fmt.Sprintf("the off-CPU sweep's rate in Hz (1..%d; default 100)", vmconfig.MaxOffCPUHz))
	fs.IntVar(&o.trace.OffCPUMax, "offcpu-max", 0, "look at no more than this many goroutines a sweep (default 2000); with more, sweeps take turns and each goroutine weighs the sweeps it waited for its turn")
	fs.BoolVar(&o.trace.Wakers, "wakers", false, "record every wake-up of a thread blocked in the kernel, with the waker's stack (unitrace pprof -wakers)")
	fs.StringVar(&o.trace.Mode, "mode", "", "trace ring mode: stream (drop new records when full) or flight (overwrite old ones)")
	fs.StringVar(&o.pprofFile, "pprof", "", "after the run, write the samples as a pprof profile to this file (with -sample or -offcpu)")
	fs.StringVar(&o.traceFile, "o", "", "record the trace to this file (default with -trace: the image path with .utrace for .elf)")
	fs.StringVar(&o.sockets, "sockets", "", "put the trace port sockets in this directory for \"unitrace record\" instead of recording")
	fs.Var(&o.probes, "probe", "probe this function (a name or glob; NAME%return: its returns) from the program's start, and record each hit (repeatable; docs/tools.md)")
	fs.IntVar(&o.probeStr, "probe-strings", 0, fmt.Sprintf("with -probe, copy up to this many bytes of each string argument (result, at a return) at each hit (0..%d)", probe.MaxStringBytes))
	fs.StringVar(&o.ctlSock, "ctl", "", "listen on this unix socket for clients of the guest's control port (\"unitrace signal -ctl SOCK SIG\")")
	fs.StringVar(&o.netMode, "net", netHost, "the guest's sockets: host (host sockets through the launcher; listeners on 127.0.0.1) or none")
	o.listen = listenFlag{}
	fs.Var(o.listen, "listen", "bind the guest's listeners on GUESTPORT at HOSTADDR:PORT instead of 127.0.0.1:GUESTPORT (GUESTPORT=HOSTADDR:PORT; repeatable)")
}

// parse parses run's command line with fs, whose flags register defined into o: flags
// anywhere before the first "--", then APP_DIR and KEY=VALUE words, then the program's
// arguments.
func (o *runOptions) parse(fs *flag.FlagSet, args []string) error {
	words, err := o.parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(words) == 0 {
		return usageError{"missing APP_DIR"}
	}
	o.appDir, o.env = words[0], words[1:]
	for _, kv := range o.env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return usageError{fmt.Sprintf("%q after APP_DIR is not KEY=VALUE (program arguments go after --)", kv)}
		}
	}
	return o.check()
}

// parseFlags parses the flags of fs wherever they appear before the first "--", sets
// o.args to the words after it, and returns the other words before it.
func (o *runOptions) parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	// Everything after the first "--" belongs to the guest program.
	before := args
	if i := slices.Index(args, "--"); i >= 0 {
		before, o.args = args[:i], args[i+1:]
	}
	// Parse flags wherever they appear before "--".
	var words []string
	for {
		if err := fs.Parse(before); err != nil {
			return nil, err
		}
		before = fs.Args()
		if len(before) == 0 {
			return words, nil
		}
		words = append(words, before[0])
		before = before[1:]
	}
}

// check checks the parsed flags against each other and the shared host directories, and adds
// the kernel options of the tracing flags to o.env.
func (o *runOptions) check() error {
	if o.timeout < 0 {
		return usageError{"-timeout must not be negative"}
	}
	if o.pprofFile != "" && o.trace.Sample == "" && !o.trace.OffCPU {
		return usageError{"-pprof writes the sampler's profile: it needs -sample HZ or -offcpu"}
	}
	if o.sockets != "" && o.pprofFile != "" {
		return usageError{"-sockets leaves the recording to \"unitrace record\": it cannot be combined with -pprof"}
	}
	if o.sockets != "" && o.traceFile != "" {
		return usageError{"-sockets leaves the recording to \"unitrace record\": it cannot be combined with -o"}
	}
	if err := checkStringBytes(o.probeStr); err != nil {
		return usageError{"-probe-" + err.Error()}
	}
	if o.sockets != "" && len(o.probes) > 0 {
		return usageError{"-sockets leaves the control port to \"unitrace record\": -probe needs the launcher's"}
	}
	if o.sockets != "" && o.ctlSock != "" {
		return usageError{"-sockets puts the control port on DIR/ctl.sock itself: it cannot be combined with -ctl"}
	}
	if err := o.checkShares(); err != nil {
		return usageError{err.Error()}
	}
	if o.netMode != netHost && o.netMode != netNone {
		return usageError{fmt.Sprintf("-net %q: want host or none", o.netMode)}
	}
	if o.netMode == netNone && len(o.listen) > 0 {
		return usageError{"-listen maps the guest's listeners: it cannot be combined with -net=none"}
	}
	words, err := o.trace.Env()
	if err != nil {
		return usageError{err.Error()}
	}
	if o.tracing() && len(words) == 0 {
		words = append(words, "unitrace.tracer=1") // record, with the tracepoints enabled later over the control port
	}
	if len(o.probes) > 0 {
		words = append(words, "unitrace.hold=1") // the program waits for its probes
	}
	o.env = append(o.env, words...)
	return nil
}

// checkShares checks the -share flags against each other and the -files ones, and makes each
// HOSTDIR absolute after checking it is a directory.
func (o *runOptions) checkShares() error {
	var packed []string
	for _, d := range o.files {
		packed = append(packed, d.Guest)
	}
	if err := vmconfig.CheckShares(o.shares, packed); err != nil {
		return err
	}
	for i, s := range o.shares {
		s, err := s.ResolveHost()
		if err != nil {
			return err
		}
		o.shares[i] = s
	}
	return nil
}

// runGuest builds the image and boots it.
func runGuest(std stdio, o runOptions) error {
	g, err := o.guest()
	if err != nil {
		return err
	}
	archive, _, err := packfiles.Archive(o.files, o.packOpts)
	if err != nil {
		fmt.Fprintf(std.err, "unitrace run: %v\n", err)
		return exitStatus(statusBuildFailed)
	}
	res, err := image.Build(context.Background(), image.BuildConfig{AppDir: o.appDir, Output: o.output, Spec: g.spec, Stderr: std.err, Files: archive})
	if err != nil {
		fmt.Fprintf(std.err, "unitrace run: %v\n", err)
		return exitStatus(statusBuildFailed)
	}
	out, err := g.launch(std, o, res.Path, "unitrace run")
	if err != nil {
		return err
	}
	if out.Kind != vmconfig.Exited {
		fmt.Fprintf(std.err, "unitrace run: %s (exit status %d)\n", out.Reason, out.Status)
	}
	return exitStatus(out.Status)
}

// guest is what a command line says about the VM, checked before any image is built.
type guest struct {
	spec      image.Spec
	cfg       vmconfig.Config // Kernel is set by launch
	accel     string
	note      string    // why the accelerator is not the one asked for, or ""
	input     io.Reader // fed to the guest's console (stdin.go), or nil: the kernel has unitrace.stdin=null
	inputNote string    // why an input that could be fed is not, or ""
}

// guest checks the machine options of o and returns the VM they describe.
func (o *runOptions) guest() (guest, error) {
	arch := qemu.Arch(o.arch)
	spec, err := image.SpecFor(image.Arch(o.arch))
	if err != nil {
		return guest{}, usageError{err.Error()}
	}
	accel, note, err := vmconfig.ResolveAccel(o.accel, arch)
	if err != nil {
		return guest{}, usageError{err.Error()}
	}
	cfg := vmconfig.Config{Arch: arch, Machine: o.machine, CPU: o.cpu, Memory: o.memory, SMP: o.smp, Accel: accel,
		Kernel: "image.elf", Env: o.env, Args: o.args, Shares: o.shares}
	switch {
	case o.tracing():
		cfg.Trace = &vmconfig.TracePorts{Data: dataSocket, Ctl: ctlSocket}
		cfg.Env = append(cfg.Env, "unitrace.accel="+accel) // for HELLO: instruction-level results mislead under TCG
	case cfg.VirtioMMIO():
		// The control port alone, for the launcher's signals: the kernel serves it without the
		// tracer, and nothing else about the run changes.
		cfg.Trace = &vmconfig.TracePorts{Ctl: ctlSocket}
		cfg.Env = append(cfg.Env, "unitrace.ctl=1")
	case o.ctlSock != "":
		return guest{}, usageError{fmt.Sprintf("-ctl needs the guest's control port, a virtio-mmio device that machine %q lacks (use %s)",
			cfg.Machine, strings.Join(vmconfig.MMIOMachines(arch), " or "))}
	}
	if cfg.Trace != nil && o.netMode != netNone {
		if w := dnsWord(hostResolvConf); w != "" {
			cfg.Env = append(cfg.Env, w) // the guest asks the host's nameservers
		}
	}
	input, inputNote := o.stdin, ""
	switch {
	case input == nil || slices.Contains(cfg.Env, stdinNull):
		input = nil
	case cfg.Trace == nil:
		input = nil
		inputNote = fmt.Sprintf("standard input is not passed to the program: machine %q has no control port to say where it ends (use %s)",
			cfg.Machine, strings.Join(vmconfig.MMIOMachines(arch), " or "))
	case o.sockets != "":
		input = nil
		inputNote = "standard input is not passed to the program: with -sockets QEMU serves the control port, which says where it ends"
	}
	if input == nil && !slices.Contains(cfg.Env, stdinNull) {
		// QEMU gets no input (boot), so the guest's console reads are at end of file, as a
		// program run with its standard input from /dev/null sees.
		cfg.Env = append(cfg.Env, stdinNull)
	}
	if _, err := cfg.Cmdline(); err != nil { // refuse bad options before the build
		return guest{}, usageError{err.Error()}
	}
	return guest{spec: spec, cfg: cfg, accel: accel, note: note, input: input, inputNote: inputNote}, nil
}

// launch boots the image at path as o asks (or prints the QEMU command line for -n, with
// the outcome of a clean exit), records its trace and writes its profile, and returns how
// the VM ended. tool ("unitrace run") starts the messages it prints.
func (g guest) launch(std stdio, o runOptions, path, tool string) (vmconfig.Outcome, error) {
	cfg := g.cfg
	cfg.Kernel = path
	if g.note != "" {
		fmt.Fprintf(std.err, "%s: %s\n", tool, g.note)
	}
	if o.dryRun {
		line, err := quotedCmdline(cfg)
		if err != nil {
			return vmconfig.Outcome{}, err
		}
		fmt.Fprintln(std.out, line)
		return vmconfig.Outcome{Kind: vmconfig.Exited}, nil
	}
	if _, ok := std.err.(*os.File); !ok {
		// QEMU's standard error, the recording's lines and the launcher's own come from
		// several goroutines (a file takes each write whole, and must stay one for the
		// progress line's terminal check).
		std.err = &lockedWriter{w: std.err}
	}
	link, err := setupPorts(o, &cfg, path, g.accel, tool, std)
	if err != nil {
		return vmconfig.Outcome{}, err
	}
	if o.verbose {
		line, err := quotedCmdline(cfg)
		if err != nil {
			link.finish(std)
			return vmconfig.Outcome{}, err
		}
		fmt.Fprintf(std.err, "%s: %s\n", tool, line)
	}
	if g.inputNote != "" {
		fmt.Fprintf(std.err, "%s: %s\n", tool, g.inputNote)
	}
	if len(o.probes) > 0 && link.mux != nil {
		opt := probeOptions{Options: probes.Options{StringBytes: o.probeStr}, backtrace: o.trace.Backtrace}
		go attachBootProbes(link.mux, path, o.probes, opt, std.err, tool)
	}
	out := boot(cfg, o.timeout, std, tool, link.mux, g.input)
	if err := link.finish(std); err != nil {
		fmt.Fprintf(std.err, "%s: recording: %v\n", tool, err)
	} else if link.session != nil && o.pprofFile != "" {
		if err := writeRunProfile(std, link.session.file, path, o.pprofFile); err != nil {
			fmt.Fprintf(std.err, "%s: profile: %v\n", tool, err)
		} else {
			fmt.Fprintf(std.err, "%s: profile %s (go tool pprof -top %s %s)\n", tool, o.pprofFile, path, o.pprofFile)
		}
	}
	return out, nil
}

// setupTrace puts the trace ports on sockets: in -sockets DIR with QEMU
// listening (for "unitrace record"), or in a temporary directory where the
// launcher listens and records to the trace file, with the control port served by mux.
func setupTrace(o runOptions, cfg *vmconfig.Config, image, accel, tool string, std stdio, mux *ctlMux) (*traceSession, error) {
	if o.sockets != "" {
		if err := os.MkdirAll(o.sockets, 0o755); err != nil {
			return nil, err
		}
		dir, _ := filepath.Abs(o.sockets)
		cfg.Trace = &vmconfig.TracePorts{Data: filepath.Join(dir, dataSocket), Ctl: filepath.Join(dir, ctlSocket), Server: true}
		fmt.Fprintf(std.err, "%s: attach with: unitrace record -data %s -ctl %s -elf %s -o FILE\n",
			tool, cfg.Trace.Data, cfg.Trace.Ctl, image)
		return nil, nil
	}
	session, ports, err := listenTrace()
	if err != nil {
		return nil, err
	}
	session.logPrefix = tool + ": "
	cfg.Trace = ports
	file := o.traceFile
	if file == "" {
		file = strings.TrimSuffix(image, ".elf") + ".utrace"
	}
	host := &tracefile.Host{Image: image, Accel: accel, Start: time.Now().UTC(), Tool: tool}
	if abs, err := filepath.Abs(image); err == nil {
		host.Image = abs
	}
	if id, err := tracefile.ReadBuildID(image); err == nil {
		host.BuildID = tracefile.BuildIDHex(id)
	}
	if args, err := cfg.Cmdline(); err == nil {
		host.QEMU = args
	}
	if err := session.start(file, host, std, mux); err != nil {
		session.cleanup()
		return nil, err
	}
	return session, nil
}

func quotedCmdline(cfg vmconfig.Config) (string, error) {
	args, err := cfg.Cmdline()
	if err != nil {
		return "", err
	}
	for i, a := range args {
		if a == "" || strings.IndexFunc(a, shellSpecial) >= 0 {
			args[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(args, " "), nil
}

// shellSpecial reports whether r needs quoting for a POSIX shell.
func shellSpecial(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_@%+=:,./-", r))
}

// boot runs QEMU with the console copied to std.out while scanning it for the protocol lines,
// and decodes how the VM ended. The first SIGINT or SIGTERM to the launcher goes to the
// program through guestCtl (when the guest has a control port); the next one, or the first
// without a port, stops QEMU. input, when not nil, is fed to the guest's console, its end told
// through guestCtl (stdin.go); without it QEMU gets no input. tool starts the launcher's
// messages. vmtest is not used here: it puts QEMU on a pty of its own and behind a console of
// its own.
func boot(cfg vmconfig.Config, timeout time.Duration, std stdio, tool string, guestCtl *ctlMux, input io.Reader) vmconfig.Outcome {
	arch := cfg.Arch
	if arch == "" {
		arch = qemu.ArchAMD64
	}
	args, err := cfg.Cmdline()
	if err != nil {
		return vmconfig.Outcome{Kind: vmconfig.QEMUFailed, Status: vmconfig.StatusQEMUFailed, Reason: err.Error()}
	}
	var console vmconfig.Console
	qemuErr := vmconfig.NewStderrScanner()
	cmd := exec.Command(args[0], args[1:]...)
	// QEMU's input is the feed's pipe, or none (exec's /dev/null; the kernel is told,
	// unitrace.stdin=null, so that a read of the console is at end of file), and its output
	// goes through pipes: QEMU, in a process group of its own, never touches the terminal (its
	// -serial stdio would put the terminal in raw mode, and reading it from a background
	// process group would stop it).
	var feed *stdinFeed
	if input != nil && guestCtl != nil {
		if feed, err = newStdinFeed(input, guestCtl, std.err, tool); err != nil {
			return vmconfig.Outcome{Kind: vmconfig.QEMUFailed, Status: vmconfig.StatusQEMUFailed, Reason: err.Error()}
		}
		defer feed.stop()
		cmd.Stdin = feed.r
	}
	cmd.Stdout = &tee{w: std.out, scan: &console}
	cmd.Stderr = &tee{w: std.err, scan: qemuErr}
	cmd.SysProcAttr = qemuProcAttr()
	// After QEMU is gone, stop copying its output even if something it
	// started still holds the pipe.
	cmd.WaitDelay = 2 * time.Second

	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)

	if err := cmd.Start(); err != nil {
		out := vmconfig.GuestExit(arch, err, vmconfig.Seen{})
		if errors.Is(err, exec.ErrNotFound) {
			out.Reason += " (install QEMU: make deps)"
		}
		return out
	}
	if feed != nil {
		feed.start()
	}
	var timedOut, interrupted atomic.Bool
	if timeout > 0 {
		t := time.AfterFunc(timeout, func() {
			timedOut.Store(true)
			cmd.Process.Kill()
		})
		defer t.Stop()
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		toProgram := guestCtl != nil
		for {
			select {
			case s := <-sigs:
				if toProgram {
					toProgram = false
					if forwardSignal(guestCtl, s.(syscall.Signal), std.err, tool) {
						continue
					}
				}
				interrupted.Store(true)
				cmd.Process.Signal(s)
			case <-done:
				return
			}
		}
	})
	err = cmd.Wait()
	if feed != nil {
		feed.stop()
	}
	close(done)
	wg.Wait()
	console.Close()
	qemuErr.Close()
	if timedOut.Load() {
		err = fmt.Errorf("%w after %v: %w", vmconfig.ErrTimeout, timeout, err)
	}
	seen := console.Seen()
	seen.QEMUSignal = qemuErr.Seen().QEMUSignal
	out := vmconfig.GuestExit(arch, err, seen)
	if timedOut.Load() && out.Kind == vmconfig.Hung {
		out.Reason = fmt.Sprintf("the guest did not exit within -timeout %v; QEMU was killed", timeout)
	}
	if interrupted.Load() && (out.Kind == vmconfig.QEMUFailed || out.Kind == vmconfig.QEMUKilled) {
		// The launcher's own signal: QEMU stops on it with status 0.
		out = vmconfig.Outcome{Kind: vmconfig.QEMUFailed, Status: vmconfig.StatusQEMUFailed,
			Reason: "interrupted: QEMU stopped on the signal before the guest exited"}
	}
	return out
}

// forwardSignal sends sig to the program through the guest's control port and says so on w;
// false when it cannot be sent (the port is gone), and the signal should stop QEMU instead.
// The reply is only reported when the guest refused.
func forwardSignal(m *ctlMux, sig syscall.Signal, w io.Writer, tool string) bool {
	name, again := "SIGINT", "^C again stops the guest"
	if sig == syscall.SIGTERM {
		name, again = "SIGTERM", "a second SIGTERM or ^C stops the guest"
	}
	err := m.send(ctl.Command{Op: ctl.OpSignal, Has: ctl.HasSig, Sig: uint8(sig)}, func(reply []byte) {
		if err := replyError(reply); err != nil {
			fmt.Fprintf(w, "%s: %s: %v\n", tool, name, err)
		}
	})
	if err != nil {
		fmt.Fprintf(w, "%s: %s could not reach the program (%v): stopping the guest\n", tool, name, err)
		return false
	}
	fmt.Fprintf(w, "%s: %s sent to the program; %s\n", tool, name, again)
	return true
}

// lockedWriter serialises the writes of several goroutines to one writer.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// tee copies QEMU's output to the terminal and to the protocol scanner. It
// never fails: a closed terminal (unitrace run ... | head) must not stall
// QEMU, and the scanner still needs the rest.
type tee struct {
	w      io.Writer
	broken bool
	scan   io.Writer
}

func (t *tee) Write(p []byte) (int, error) {
	if !t.broken {
		if _, err := t.w.Write(p); err != nil {
			t.broken = true
		}
	}
	t.scan.Write(p)
	return len(p), nil
}
