// Command benchcompare boots the same fixed-work benchmark (examples/bench) as a unitrace image
// and under Debian's Linux kernel in the same QEMU, round after round, interleaved, and prints
// each workload's medians, spread and ratio (make bench, scripts/bench.sh):
//
//	benchcompare -image bench.elf -linux /boot/vmlinuz-... -initrd init.cpio [-arch amd64]
//	             [-rounds 9] [-machine q35] [-microvm] [-doc FILE] [-note TEXT]
//
// Every round boots unitrace on -machine, Linux on -machine, and on amd64 with -microvm
// unitrace on microvm too (boot time only: Debian's kernel does not boot there). On arm64 both
// boot on virt. A row's ratio is the median of the rounds' unitrace/Linux ratios, so a slow
// round of the shared machine counts once; below 1 unitrace is faster. -doc writes the table
// into FILE between the lines "<!-- bench: begin -->" and "<!-- bench: end -->" (on arm64,
// "<!-- bench arm64: begin -->" and "<!-- bench arm64: end -->").
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/unitrace/unitrace/internal/exitstatus"
	"github.com/unitrace/unitrace/internal/vmconfig"
)

func main() {
	exitstatus.Exit("benchcompare", run(os.Args[1:], os.Stdout, os.Stderr))
}

type options struct {
	image, linux, initrd string
	arch                 string
	rounds               int
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
	fs.StringVar(&o.machine, "machine", "", "the QEMU machine both guests boot on (default q35 on amd64, virt on arm64)")
	fs.BoolVar(&o.microvm, "microvm", true, "also boot unitrace on microvm, for the boot row")
	fs.StringVar(&o.doc, "doc", "", "write the table into this markdown file, between its bench markers")
	fs.StringVar(&o.note, "note", "", "a line to print above the table (what was measured, when)")
	if err := exitstatus.ParseFlags(fs, args); err != nil {
		return err
	}
	if o.image == "" || o.linux == "" || o.initrd == "" || o.rounds < 1 {
		return exitstatus.UsageError{Err: errors.New("need -image, -linux, -initrd and -rounds of at least 1")}
	}
	m, ok := machines[o.arch]
	if !ok {
		return exitstatus.UsageError{Err: fmt.Errorf("-arch %q: want amd64 or arm64", o.arch)}
	}
	if o.machine == "" {
		o.machine = m.machine
	}
	o.microvm = o.microvm && m.microvm != ""
	guests := []guest{
		{name: "unitrace", qemu: m.qemu, args: m.args(o.machine, "-kernel", o.image)},
		{name: "linux", qemu: m.qemu, args: m.args(o.machine, "-kernel", o.linux, "-initrd", o.initrd,
			"-append", "console="+m.console+" quiet panic=-1 -- -poweroff")},
	}
	if o.microvm {
		guests = append(guests, guest{name: "unitrace-microvm", qemu: m.qemu, args: m.args(m.microvm, "-kernel", o.image)})
	}
	results := make([][]result, len(guests))
	for r := 0; r < o.rounds; r++ {
		for i, g := range guests {
			res, err := g.boot(2 * time.Minute)
			if err != nil {
				return fmt.Errorf("round %d, %s: %w", r+1, g.name, err)
			}
			results[i] = append(results[i], res)
			fmt.Fprintf(stderr, "benchcompare: round %d/%d: %s done (boot %v)\n", r+1, o.rounds, g.name, res.boot.Round(time.Millisecond))
		}
	}
	t := tabulate(results, o.machine, o.microvm)
	var b strings.Builder
	if o.note != "" {
		fmt.Fprintf(&b, "%s\n\n", o.note)
	}
	t.write(&b, o.rounds)
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
