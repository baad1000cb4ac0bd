// Command bootbench measures boot time: QEMU start to the guest program's first line, for a
// unitrace image and for Debian's Linux kernel booting a one-file initramfs under the same QEMU,
// and prints both with their ratio. Each guest prints "boot_ns N" (its CLOCK_MONOTONIC at that
// point: for unitrace, the time since the kernel's entry).
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
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("bootbench", flag.ContinueOnError)
	image := fs.String("image", "", "unitrace image that prints a boot_ns line (examples/syscallbench)")
	linux := fs.String("linux", "", "Linux kernel (bzImage)")
	initrd := fs.String("initrd", "", "initramfs whose /init prints a boot_ns line")
	machine := fs.String("machine", "q35", "QEMU machine (Debian's kernel does not boot on microvm here)")
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
	u, err := measure(uni, *n)
	if err != nil {
		return fmt.Errorf("unitrace: %w", err)
	}
	l, err := measure(lin, *n)
	if err != nil {
		return fmt.Errorf("linux: %w", err)
	}
	fmt.Fprintf(stdout, "machine %s, TCG, median of %d boots\n", *machine, *n)
	fmt.Fprintf(stdout, "%-28s %12s %12s\n", "", "unitrace", "linux")
	fmt.Fprintf(stdout, "%-28s %12v %12v   ratio %.2f\n", "QEMU start to first line", u.wall, l.wall, float64(u.wall)/float64(l.wall))
	fmt.Fprintf(stdout, "%-28s %12v %12v   ratio %.2f\n", "guest entry to first line", u.guest, l.guest, float64(u.guest)/float64(l.guest))
	return nil
}

// measure boots n times and returns the medians.
func measure(args []string, n int) (sample, error) {
	var walls, guests []time.Duration
	for i := 0; i < n; i++ {
		s, err := boot(args)
		if err != nil {
			return sample{}, err
		}
		walls = append(walls, s.wall)
		guests = append(guests, s.guest)
	}
	return sample{median(walls), median(guests)}, nil
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
