package vm_test

import (
	"path/filepath"
	"testing"

	"github.com/hugelgupf/vmtest/qemu"
	"github.com/unitrace/unitrace/internal/image"
	"github.com/unitrace/unitrace/internal/vmconfig"
	"github.com/unitrace/unitrace/trace/wire"
)

// guestArch is one guest architecture the VM tests boot. Every boot, tracer and sampler test
// runs once per architecture, as the subtests amd64 and arm64.
type guestArch struct {
	name    string    // GOARCH spelling: the subtest's name and the launcher's -arch
	qemu    qemu.Arch // which emulator boots it
	machine string    // the machine the tests boot: the launcher's default for the arch
	image   image.Arch
	wire    wire.Arch // what the guest says it is in the recording's HELLO
}

var (
	amd64 = guestArch{name: "amd64", qemu: qemu.ArchAMD64, machine: "microvm", image: image.AMD64, wire: wire.ArchAMD64}
	arm64 = guestArch{name: "arm64", qemu: qemu.ArchArm64, machine: "virt", image: image.ARM64, wire: wire.ArchARM64}

	guestArchs = []guestArch{amd64, arm64}
)

// forEachArch runs test as one subtest per architecture, in turn (not in parallel: the
// sampler's tests measure guest time, which is host time under TCG). An architecture whose
// emulator is missing is skipped with the reason.
func forEachArch(t *testing.T, test func(t *testing.T, a guestArch)) {
	t.Helper()
	for _, a := range guestArchs {
		t.Run(a.name, func(t *testing.T) {
			requireQEMU(t, a.qemu)
			test(t, a)
		})
	}
}

// benchEachArch runs bench as one sub-benchmark per architecture, in turn, like forEachArch.
func benchEachArch(b *testing.B, bench func(b *testing.B, a guestArch)) {
	for _, a := range guestArchs {
		b.Run(a.name, func(b *testing.B) {
			requireQEMU(b, a.qemu)
			bench(b, a)
		})
	}
}

// config is a TCG VM of the arch's test machine booting kernel.
func (a guestArch) config(kernel string) vmconfig.Config {
	return vmconfig.Config{Arch: a.qemu, Machine: a.machine, Accel: vmconfig.TCG, Kernel: kernel}
}

// path names a file in the scratch directory, prefixed by the arch so that the images and
// recordings of the two architectures never overwrite each other.
func (a guestArch) path(name string) string { return filepath.Join(scratch, a.name+"-"+name) }
