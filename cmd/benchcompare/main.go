// Command benchcompare boots the same fixed-work benchmark (examples/bench) as a unitrace image
// and under Debian's Linux kernel in the same QEMU, and prints each workload's medians, spread
// and ratio (make bench, scripts/bench.sh):
//
//	benchcompare -image bench.elf -linux /boot/vmlinuz-... -initrd init.cpio [-arch amd64]
//	             [-rounds 9] [-batches 5] [-only a,b] [-kernel-options WORDS] [-machine q35] [-microvm]
//	             [-doc FILE] [-note TEXT]
//
// Every round boots both guests, unitrace and then Linux on -machine, and keeps them running
// examples/bench -serve, which runs one batch of a workload each time its console asks. Each
// workload's batches then alternate between the guests (unitrace, Linux, Linux, unitrace, ...),
// so that the two sides of a ratio are measured seconds apart at most, in the same state of the
// shared host, while the guest that waits sits idle on the other host CPU. A round's value is
// the fastest of its batches in each guest, and a row's ratio the median of the rounds'
// unitrace/Linux ratios; below 1 unitrace is faster. On amd64 with -microvm unitrace also boots
// on microvm each round, for the boot row (Debian's kernel does not boot there). On arm64 both
// boot on virt. -doc writes the table into FILE between the lines "<!-- bench: begin -->" and
// "<!-- bench: end -->" (on arm64, "<!-- bench arm64: begin -->" and "<!-- bench arm64: end -->").
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/unitrace/unitrace/internal/exitstatus"
	"github.com/unitrace/unitrace/internal/vmconfig"
)

func main() {
	exitstatus.Exit("benchcompare", run(os.Args[1:], os.Stdout, os.Stderr))
}

type options struct {
	image, linux, initrd string
	arch                 string
	rounds, batches      int
	only, kernelOptions  string
	machine              string
	microvm              bool
	doc, note            string
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("benchcompare", flag.ContinueOnError)
	var o options
	fs.StringVar(&o.image, "image", "", "the unitrace image of examples/bench")
	fs.StringVar(&o.linux, "linux", "", "the Linux kernel (amd64: bzImage; arm64: Image)")
	fs.StringVar(&o.arch, "arch", "amd64", "the guests' architecture: amd64 or arm64")
	fs.StringVar(&o.initrd, "initrd", "", "an initramfs whose /init is examples/bench built for Linux")
	fs.IntVar(&o.rounds, "rounds", 9, "rounds: each boots every guest once (9: on a shared host the rows at parity need that many for a stable median)")
	fs.IntVar(&o.batches, "batches", 5, "batches of each workload in each guest, each round; a round's value is the fastest")
	fs.StringVar(&o.only, "only", "", "run only these workloads (comma-separated names)")
	fs.StringVar(&o.kernelOptions, "kernel-options", "", "unitrace kernel options for its command line (unitrace.avx=0, ...)")
	fs.StringVar(&o.machine, "machine", "", "the QEMU machine both guests boot on (default q35 on amd64, virt on arm64)")
	fs.BoolVar(&o.microvm, "microvm", true, "also boot unitrace on microvm, for the boot row")
	fs.StringVar(&o.doc, "doc", "", "write the table into this markdown file, between its bench markers")
	fs.StringVar(&o.note, "note", "", "a line to print above the table (what was measured, when)")
	if err := exitstatus.ParseFlags(fs, args); err != nil {
		return err
	}
	if o.image == "" || o.linux == "" || o.initrd == "" || o.rounds < 1 || o.batches < 1 {
		return exitstatus.UsageError{Err: errors.New("need -image, -linux, -initrd, and -rounds and -batches of at least 1")}
	}
	m, ok := machines[o.arch]
	if !ok {
		return exitstatus.UsageError{Err: fmt.Errorf("-arch %q: want amd64 or arm64", o.arch)}
	}
	if o.machine == "" {
		o.machine = m.machine
	}
	o.microvm = o.microvm && m.microvm != ""
	uniCmdline := strings.TrimSpace(o.kernelOptions + " -- -serve")
	c := comparison{
		uni: guest{name: "unitrace", qemu: m.qemu, args: m.args(o.machine, "-kernel", o.image, "-append", uniCmdline)},
		lin: guest{name: "linux", qemu: m.qemu, args: m.args(o.machine, "-kernel", o.linux, "-initrd", o.initrd,
			"-append", "console="+m.console+" quiet panic=-1 -- -serve -poweroff")},
		batches: o.batches,
		log:     stderr,
	}
	if o.only != "" {
		c.only = strings.Split(o.only, ",")
	}
	if o.microvm {
		c.microvm = &guest{name: "unitrace-microvm", qemu: m.qemu, args: m.args(m.microvm, "-kernel", o.image, "-append", uniCmdline)}
	}
	results := make([][]result, 3)
	for r := 0; r < o.rounds; r++ {
		fmt.Fprintf(stderr, "benchcompare: round %d/%d\n", r+1, o.rounds)
		round, err := c.round()
		if err != nil {
			return fmt.Errorf("round %d: %w", r+1, err)
		}
		for i := range round {
			results[i] = append(results[i], round[i])
		}
	}
	t := tabulate(results, o.machine, o.microvm)
	var b strings.Builder
	if o.note != "" {
		fmt.Fprintf(&b, "%s\n\n", o.note)
	}
	t.write(&b, o.rounds, o.batches)
	fmt.Fprint(stdout, b.String())
	if o.doc != "" {
		if err := writeDoc(o.doc, o.arch, b.String()); err != nil {
			return fmt.Errorf("writing %s: %w", o.doc, err)
		}
	}
	return nil
}

// machineSet is how one architecture's guests boot.
type machineSet struct {
	qemu, machine string
	microvm       string // amd64's microvm machine, for the boot row; "" on arm64
	console       string // Linux's console device
	exit          []string
}

var machines = map[string]machineSet{
	"amd64": {qemu: "qemu-system-x86_64", machine: "q35", microvm: "microvm,isa-serial=on,rtc=on,pit=on,auto-kernel-cmdline=off",
		console: "ttyS0", exit: []string{"-device", "isa-debug-exit,iobase=0xf4,iosize=0x04"}},
	// unitrace leaves QEMU by semihosting on arm64; Linux powers off through PSCI.
	"arm64": {qemu: "qemu-system-aarch64", machine: "virt", console: "ttyAMA0",
		exit: []string{"-semihosting-config", "enable=on,target=native"}},
}

// args is the QEMU command line both guests share, on machine name, followed by more.
func (m machineSet) args(name string, more ...string) []string {
	base := []string{"-M", name, "-cpu", "max", "-m", "256M", "-smp", "1", "-no-reboot", "-display", "none",
		"-serial", "stdio", "-nodefaults"}
	base = append(base, vmconfig.Firmware(name)...)
	base = append(base, m.exit...)
	return append(base, more...)
}
