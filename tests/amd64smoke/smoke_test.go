package main_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/unitrace/unitrace/internal/image"
)

// passStatus is QEMU's exit status when the smoke image wrote 3 to isa-debug-exit, which it
// does once every AP has reported.
const passStatus = 7

// machines are the QEMU -M values the image must boot on (internal/vmconfig's microvm options:
// the ISA serial port, the PIT for TSC calibration; q35 has them anyway).
var machines = map[string]string{
	"microvm": "microvm,isa-serial=on,rtc=on,pit=on,auto-kernel-cmdline=off",
	"q35":     "q35",
}

// TestBoot builds the smoke image and boots it under TCG on microvm and q35 with 2 and 4 CPUs:
// every AP must come online with the APIC ID the MADT gave it, take a timer interrupt and
// answer an IPI, and the boot CPU must exit with status 7.
func TestBoot(t *testing.T) {
	qemu, err := exec.LookPath("qemu-system-x86_64")
	if err != nil {
		t.Skip("qemu-system-x86_64 not found")
	}
	img := buildImage(t)
	for _, m := range []string{"microvm", "q35"} {
		for _, smp := range []int{2, 4} {
			t.Run(fmt.Sprintf("%s-smp%d", m, smp), func(t *testing.T) {
				t.Parallel()
				out, status := boot(t, qemu, img, "-M", machines[m], "-smp", fmt.Sprint(smp))
				want := []string{"amd64 smoke: long mode", "memmap: trampoline page 0x10000 is RAM",
					fmt.Sprintf("madt: %d CPUs, boot APIC ID 0", smp)}
				for i := 1; i < smp; i++ {
					want = append(want,
						fmt.Sprintf("cpu %d online, APIC ID %d", i, i),
						fmt.Sprintf("cpu %d: timer interrupt", i),
						fmt.Sprintf("cpu %d: IPI from cpu 0", i))
				}
				want = append(want, "amd64 smoke: PASS")
				lines := strings.Split(strings.ReplaceAll(out, "\r", ""), "\n")
				for _, w := range want {
					if !containsLine(lines, w) {
						t.Errorf("missing console line %q", w)
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
}

// buildImage links this package with arch/amd64's entry point and load address and writes the
// PVH note, as internal/image does for every unitrace image.
func buildImage(t *testing.T) string {
	t.Helper()
	spec, err := image.SpecFor(image.AMD64)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var stderr bytes.Buffer
	res, err := image.Build(ctx, image.BuildConfig{
		AppDir: ".", Output: filepath.Join(t.TempDir(), "amd64smoke.elf"), Spec: spec, Stderr: &stderr})
	if err != nil {
		t.Fatalf("building the image: %v\n%s", err, stderr.String())
	}
	return res.Path
}

// boot runs QEMU on image with the extra arguments and returns its output and exit status.
func boot(t *testing.T, qemu, img string, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args = append(args, "-cpu", "max", "-m", "256M", "-nographic", "-no-reboot",
		"-device", "isa-debug-exit,iobase=0xf4,iosize=0x04", "-kernel", img)
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

func containsLine(lines []string, want string) bool {
	for _, l := range lines {
		if strings.HasSuffix(l, want) { // q35's firmware output may precede the first line
			return true
		}
	}
	return false
}
