// Command bootbench measures boot time: QEMU start to the guest program's first line, for a
// unitrace image and for Debian's Linux kernel booting a one-file initramfs under the same QEMU,
// and prints both with their ratio. Each guest prints "boot_ns N" (its CLOCK_MONOTONIC at that
// point: for unitrace, the time since the kernel's entry).
//
// QEMU's own start is timed alone too, for each guest's command line: QEMU started paused (-S),
// its kernel and initramfs loaded, and told to quit on its monitor as soon as it reads one. That
// part of both figures is the emulator's, not the guest's, and is shown and subtracted. The boots
// are interleaved, one of each kind a round, so that the host's slow spells fall on both.
//
//	bootbench -image build/syscallbench-amd64.elf -linux /boot/vmlinuz-... -initrd init.cpio [-n 7] [-machine q35]
//
// scripts/bootbench.sh prepares the inputs.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/unitrace/unitrace/internal/exitstatus"
	"github.com/unitrace/unitrace/internal/vmconfig"
)

func main() {
	exitstatus.Exit("bootbench", run(os.Args[1:], os.Stdout))
}

type sample struct {
	wall  time.Duration // QEMU start to the marker line
	guest time.Duration // the guest's own clock at the marker
	qemu  time.Duration // QEMU alone: started paused and told to quit
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("bootbench", flag.ContinueOnError)
	image := fs.String("image", "", "unitrace image that prints a boot_ns line (examples/syscallbench)")
	linux := fs.String("linux", "", "Linux kernel (bzImage)")
	initrd := fs.String("initrd", "", "initramfs whose /init prints a boot_ns line")
	machine := fs.String("machine", "q35", "QEMU machine (q35 or microvm)")
	n := fs.Int("n", 7, "boots of each")
	if err := exitstatus.ParseFlags(fs, args); err != nil {
		return err
	}
	if *image == "" || *linux == "" || *initrd == "" {
		return errors.New("need -image, -linux and -initrd")
	}
	base := []string{"-M", *machine, "-cpu", "max", "-m", "256M", "-no-reboot", "-display", "none",
		"-serial", "stdio", "-nodefaults", "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04"}
	base = append(base, vmconfig.Firmware(*machine)...) // both kernels boot from the same firmware
	uni := append(append([]string{}, base...), "-kernel", *image)
	lin := append(append([]string{}, base...), "-kernel", *linux, "-initrd", *initrd,
		"-append", "console=ttyS0 quiet panic=-1")
	var us, ls []sample
	for i := 0; i < *n; i++ {
		u, err := measure(uni)
		if err != nil {
			return fmt.Errorf("unitrace: %w", err)
		}
		l, err := measure(lin)
		if err != nil {
			return fmt.Errorf("linux: %w", err)
		}
		us, ls = append(us, u), append(ls, l)
	}
	writeTable(stdout, *machine, medians(us), medians(ls), *n)
	return nil
}

// writeTable prints the medians of both kinds of boot side by side.
func writeTable(w io.Writer, machine string, u, l sample, n int) {
	ratio := func(a, b time.Duration) float64 { return float64(a) / float64(b) }
	fmt.Fprintf(w, "machine %s, TCG, median of %d interleaved boots of each\n", machine, n)
	fmt.Fprintf(w, "%-36s %12s %12s\n", "", "unitrace", "linux")
	fmt.Fprintf(w, "%-36s %12v %12v   ratio %.3f\n", "QEMU start to first line", u.wall, l.wall, ratio(u.wall, l.wall))
	fmt.Fprintf(w, "%-36s %12v %12v\n", "QEMU alone (-S, quit)", u.qemu, l.qemu)
	un, ln := u.wall-u.qemu, l.wall-l.qemu
	fmt.Fprintf(w, "%-36s %12v %12v   ratio %.3f (%.0f times faster)\n", "first line, net of QEMU's start", un, ln, ratio(un, ln), ratio(ln, un))
	fmt.Fprintf(w, "%-36s %12v %12v   ratio %.3f\n", "guest entry to first line", u.guest, l.guest, ratio(u.guest, l.guest))
}

// measure times QEMU alone, then boots the guest once.
func measure(args []string) (sample, error) {
	q, err := qemuAlone(args)
	if err != nil {
		return sample{}, fmt.Errorf("QEMU alone: %w", err)
	}
	s, err := boot(args)
	s.qemu = q
	return s, err
}

// medians returns each field's median over the samples (not one sample's fields).
func medians(s []sample) sample {
	var walls, guests, qemus []time.Duration
	for _, x := range s {
		walls, guests, qemus = append(walls, x.wall), append(guests, x.guest), append(qemus, x.qemu)
	}
	return sample{wall: median(walls), guest: median(guests), qemu: median(qemus)}
}

// qemuAlone times QEMU's own start for the command line args: started paused, with its monitor
// rather than the serial port on standard input and output, and told to quit. QEMU reads the
// monitor only once its machine is built and the guest's kernel loaded, so the time to its exit
// is its start and its teardown, and no guest instruction.
func qemuAlone(args []string) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	a := pausedArgs(args)
	cmd := exec.CommandContext(ctx, "qemu-system-x86_64", a...)
	cmd.Stdin = strings.NewReader("quit\n")
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("%w: %s", err, strings.TrimSpace(string(out)))
	}
	return time.Since(start), nil
}

// pausedArgs is args with the serial port off, the monitor on standard input and output, and
// the CPUs paused (-S).
func pausedArgs(args []string) []string {
	a := make([]string, 0, len(args)+4)
	for i := 0; i < len(args); i++ {
		if args[i] == "-serial" && i+1 < len(args) {
			a = append(a, "-serial", "none")
			i++
			continue
		}
		a = append(a, args[i])
	}
	return append(a, "-S", "-monitor", "stdio")
}

func boot(args []string) (sample, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "qemu-system-x86_64", args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return sample{}, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return sample{}, err
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if rest, ok := strings.CutPrefix(line, "boot_ns "); ok {
			wall := time.Since(start)
			ns, err := strconv.ParseInt(rest, 10, 64)
			if err != nil {
				return sample{}, fmt.Errorf("bad marker %q", line)
			}
			return sample{wall: wall, guest: time.Duration(ns)}, nil
		}
	}
	return sample{}, errors.New("no boot_ns line before the guest stopped")
}

func median(d []time.Duration) time.Duration {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[len(d)/2]
}
