// Command benchcompare boots the same fixed-work benchmark (examples/bench) as a unitrace image
// and under Debian's Linux kernel in the same QEMU, round after round, interleaved, and prints
// each workload's medians, spread and ratio (make bench, scripts/bench.sh):
//
//	benchcompare -image bench.elf -linux /boot/vmlinuz-... -initrd init.cpio [-rounds 5]
//	             [-machine q35] [-microvm] [-doc FILE] [-note TEXT]
//
// Every round boots unitrace on -machine, Linux on -machine, and with -microvm unitrace on
// microvm too (boot time only: Debian's kernel does not boot there). A row's ratio is the
// median of the rounds' unitrace/Linux ratios, so a slow round of the shared machine counts
// once; below 1 unitrace is faster. -doc writes the table into FILE between the lines
// "<!-- bench: begin -->" and "<!-- bench: end -->".
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
)

func main() {
	exitstatus.Exit("benchcompare", run(os.Args[1:], os.Stdout, os.Stderr))
}

type options struct {
	image, linux, initrd string
	rounds               int
	machine              string
	microvm              bool
	doc, note            string
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("benchcompare", flag.ContinueOnError)
	var o options
	fs.StringVar(&o.image, "image", "", "the unitrace image of examples/bench")
	fs.StringVar(&o.linux, "linux", "", "the Linux kernel (bzImage)")
	fs.StringVar(&o.initrd, "initrd", "", "an initramfs whose /init is examples/bench built for Linux")
	fs.IntVar(&o.rounds, "rounds", 5, "rounds: each boots every guest once")
	fs.StringVar(&o.machine, "machine", "q35", "the QEMU machine both guests boot on")
	fs.BoolVar(&o.microvm, "microvm", true, "also boot unitrace on microvm, for the boot row")
	fs.StringVar(&o.doc, "doc", "", "write the table into this markdown file, between its bench markers")
	fs.StringVar(&o.note, "note", "", "a line to print above the table (what was measured, when)")
	if err := exitstatus.ParseFlags(fs, args); err != nil {
		return err
	}
	if o.image == "" || o.linux == "" || o.initrd == "" || o.rounds < 1 {
		return exitstatus.UsageError{Err: errors.New("need -image, -linux, -initrd and -rounds of at least 1")}
	}
	guests := []guest{
		{name: "unitrace", args: qemuArgs(o.machine, "-kernel", o.image)},
		{name: "linux", args: qemuArgs(o.machine, "-kernel", o.linux, "-initrd", o.initrd,
			"-append", "console=ttyS0 quiet panic=-1 -- -poweroff")},
	}
	if o.microvm {
		guests = append(guests, guest{name: "unitrace-microvm", args: qemuArgs("microvm,isa-serial=on,rtc=on,pit=on,auto-kernel-cmdline=off", "-kernel", o.image)})
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
		if err := writeDoc(o.doc, b.String()); err != nil {
			return fmt.Errorf("writing %s: %w", o.doc, err)
		}
	}
	return nil
}

// qemuArgs is the QEMU command line both guests share, on machine m, followed by more.
func qemuArgs(m string, more ...string) []string {
	base := []string{"-M", m, "-cpu", "max", "-m", "256M", "-smp", "1", "-no-reboot", "-display", "none",
		"-serial", "stdio", "-nodefaults", "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04"}
	return append(base, more...)
}
