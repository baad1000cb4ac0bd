package fdt

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

var (
	dtbFlag    = flag.String("dtb", "", "a device tree blob for TestDump")
	updateFlag = flag.Bool("update", false, "regenerate testdata/*.dtb with qemu-system-aarch64")
)

// The committed blobs, so the QEMU virt checks run without QEMU. QEMU puts
// random rng-seed and kaslr-seed values in each dump, so regenerating them
// changes those bytes and nothing the tests check.
//
//go:generate go test -run TestCommittedBlobs -update
var committed = []qemuConfig{
	{file: "virt.dtb", gic: 2, cpus: 2, mem: "256M", bootargs: "unitrace.debug=1 -- hello world"},
	{file: "virt-gicv3.dtb", gic: 3, cpus: 4, mem: "1G"},
}

// qemuConfig is one QEMU virt command line whose DTB the tests check.
type qemuConfig struct {
	file     string
	gic      int    // gic-version
	cpus     int    // -smp
	mem      string // -m
	bootargs string // -append, which needs a -kernel (a dummy file)
}

// dumpDTB has QEMU write the DTB of c to a file and returns it. QEMU's
// dumpdtb exits right after building the tree, before running anything.
func dumpDTB(t *testing.T, qemu string, c qemuConfig, out string) []byte {
	t.Helper()
	machine := "virt,dumpdtb=" + out
	if c.gic != 0 {
		machine += ",gic-version=" + strconv.Itoa(c.gic)
	}
	args := []string{"-M", machine, "-cpu", "cortex-a57", "-m", c.mem, "-nographic",
		"-smp", strconv.Itoa(c.cpus)}
	if c.bootargs != "" {
		kernel := filepath.Join(t.TempDir(), "kernel")
		if err := os.WriteFile(kernel, make([]byte, 4096), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, "-kernel", kernel, "-append", c.bootargs)
	}
	cmd := exec.Command(qemu, args...)
	if outb, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %v\n%s", cmd, err, outb)
	}
	return readFile(t, out)
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCommittedBlobs checks the blobs in testdata; with -update it first
// regenerates them.
func TestCommittedBlobs(t *testing.T) {
	for _, c := range committed {
		path := filepath.Join("testdata", c.file)
		if *updateFlag {
			qemu, err := exec.LookPath("qemu-system-aarch64")
			if err != nil {
				t.Fatal("-update needs qemu-system-aarch64")
			}
			dumpDTB(t, qemu, c, path)
		}
		t.Run(c.file, func(t *testing.T) { checkVirt(t, c, readFile(t, path)) })
	}
}

// TestQEMUBlobs checks fresh blobs from the QEMU on PATH, when there is one.
func TestQEMUBlobs(t *testing.T) {
	qemu, err := exec.LookPath("qemu-system-aarch64")
	if err != nil {
		t.Skip("no qemu-system-aarch64 on PATH")
	}
	configs := []qemuConfig{
		{file: "plain", cpus: 1, mem: "256M"}, // the default machine, as the boot path sees it
		{file: "gic2-smp4", gic: 2, cpus: 4, mem: "256M", bootargs: "console=hello exit=0"},
		{file: "gic3-smp8", gic: 3, cpus: 8, mem: "2G", bootargs: "x"},
		{file: "gic3-smp200", gic: 3, cpus: 200, mem: "512M"}, // two redistributor regions, MPIDRs in 25 clusters
	}
	for _, c := range configs {
		t.Run(c.file, func(t *testing.T) {
			checkVirt(t, c, dumpDTB(t, qemu, c, filepath.Join(t.TempDir(), "virt.dtb")))
		})
	}
}
