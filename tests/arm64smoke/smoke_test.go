package main_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// entrySymbol is the image's entry point: arch/arm64's boot entry.
const entrySymbol = "github.com/unitrace/unitrace/arch/arm64.bootEntry"

// passStatus is the exit status the smoke image reports through semihosting when every check
// passed.
const passStatus = 7

// wantLines are the console lines of a passing run, in order. Lines that vary (the GIC
// version, the entry EL, the clock) are checked by prefix.
var wantLines = []string{
	"arm64 smoke: EL1, MMU on",
	"boot: entered at EL",
	"map: null guard, MMIO, RAM, DTB at 0x40000000",
	"page table: switched to PageTable-built tables, alias read, unmapped",
	"brk: EL1h trap returned",
	"overflow: morestack faulted at FAR 0x",
	"gic: v",
	"svc: EC 0x15 from EL1t, x0-x30, SP_EL0 and q0-q31 saved",
	"svc: registers and result intact after ERET",
	"abort: EC 0x25, FAR 0x8, translation fault at level 3",
	"timer: virtual fired (INTID 27)",
	"brk: nested in the handler, Prev links the outer Frame",
	"timer: physical fired (INTID 30)",
	"rtc: ",
	"smp: ",
	"arm64 smoke: PASS",
}

// TestBoot builds the smoke image and boots it on QEMU -M virt under TCG, with GICv2 and GICv3,
// a Cortex-A57 and -cpu max, entered at EL1 and at EL2, with 1, 2 and 4 CPUs; each run must
// print the expected lines and exit with status 7 through semihosting.
func TestBoot(t *testing.T) {
	qemu, err := exec.LookPath("qemu-system-aarch64")
	if err != nil {
		t.Skip("qemu-system-aarch64 not found")
	}
	image := buildImage(t)
	for _, c := range []struct {
		name, machine, cpu string
		gic, entryEL       string
		smp                int
	}{
		{"a57-gicv2", "virt", "cortex-a57", "2", "1", 1},
		{"max-gicv2", "virt", "max", "2", "1", 1},
		{"a57-gicv3", "virt,gic-version=3", "cortex-a57", "3", "1", 1},
		{"max-gicv3", "virt,gic-version=3", "max", "3", "1", 1},
		{"a57-gicv2-el2", "virt,virtualization=on", "cortex-a57", "2", "2", 1},
		{"max-gicv3-el2", "virt,gic-version=3,virtualization=on", "max", "3", "2", 1},
		{"a57-gicv2-smp2", "virt", "cortex-a57", "2", "1", 2},
		{"max-gicv2-smp4", "virt", "max", "2", "1", 4},
		{"a57-gicv3-smp4", "virt,gic-version=3", "cortex-a57", "3", "1", 4},
		{"max-gicv3-smp2", "virt,gic-version=3", "max", "3", "1", 2},
		{"a57-gicv2-el2-smp4", "virt,virtualization=on", "cortex-a57", "2", "2", 4},
		{"max-gicv2-el2-smp2", "virt,virtualization=on", "max", "2", "2", 2},
		{"a57-gicv3-el2-smp2", "virt,gic-version=3,virtualization=on", "cortex-a57", "3", "2", 2},
		{"max-gicv3-el2-smp4", "virt,gic-version=3,virtualization=on", "max", "3", "2", 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out, status := boot(t, qemu, image, "-M", c.machine, "-cpu", c.cpu, "-smp", strconv.Itoa(c.smp))
			lines := consoleLines(out)
			checkLines(t, lines)
			if !contains(lines, "gic: v"+c.gic) || !contains(lines, "boot: entered at EL"+c.entryEL) {
				t.Errorf("want gic: v%s and boot: entered at EL%s", c.gic, c.entryEL)
			}
			for _, want := range smpLines(c.smp) {
				if !contains(lines, want) {
					t.Errorf("missing console line %q", want)
				}
			}
			if status != passStatus {
				t.Errorf("exit status %d, want %d", status, passStatus)
			}
			if t.Failed() {
				t.Logf("console:\n%s", out)
			}
		})
	}
}

// smpLines are the lines a run with n CPUs must print, in any order but for the last: each
// secondary's own report (QEMU virt gives CPU i, up to 8, the MPIDR affinity i), then CPU 0's
// summary.
func smpLines(n int) []string {
	var lines []string
	for i := 1; i < n; i++ {
		lines = append(lines,
			fmt.Sprintf("cpu %d online, MPIDR %#x, EL1, MMU on", i, i),
			fmt.Sprintf("cpu %d timer: virtual fired (INTID 27)", i),
			fmt.Sprintf("cpu %d sgi: SGI 1 from cpu 0", i))
	}
	return append(lines, fmt.Sprintf("smp: %d CPUs online, each took its own timer interrupt and an SGI from cpu 0", n))
}

// buildImage links this package for arm64 at the address arch/arm64 expects.
func buildImage(t *testing.T) string {
	t.Helper()
	image := filepath.Join(t.TempDir(), "arm64smoke.elf")
	cmd := exec.Command("go", "build", "-o", image,
		"-ldflags", "-T 0x40201000 -R 0x1000 -E "+entrySymbol, ".")
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the image: %v\n%s", err, out)
	}
	return image
}

// boot runs QEMU on image with the extra arguments and returns its output and exit status.
func boot(t *testing.T, qemu, image string, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args = append(args, "-m", "256M", "-nographic",
		"-semihosting-config", "enable=on,target=native", "-kernel", image)
	cmd := exec.CommandContext(ctx, qemu, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("QEMU timed out\n%s", out.String())
	}
	var exit *exec.ExitError
	switch {
	case err == nil:
		return out.String(), 0
	case errors.As(err, &exit):
		return out.String(), exit.ExitCode()
	}
	t.Fatalf("running QEMU: %v\n%s", err, out.String())
	return "", 0
}

// consoleLines splits the output into lines without the PL011's carriage returns.
func consoleLines(out string) []string {
	return strings.Split(strings.ReplaceAll(out, "\r", ""), "\n")
}

// checkLines checks that wantLines appear in order (each as a line prefix).
func checkLines(t *testing.T, lines []string) {
	t.Helper()
	next := 0
	for _, l := range lines {
		if next < len(wantLines) && strings.HasPrefix(l, wantLines[next]) {
			next++
		}
	}
	if next < len(wantLines) {
		t.Errorf("missing console line %q (or a line before it is out of order)", wantLines[next])
	}
}

func contains(lines []string, want string) bool {
	for _, l := range lines {
		if l == want {
			return true
		}
	}
	return false
}
