package vmconfig

import (
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hugelgupf/vmtest/qemu"
)

func TestResolveAccel(t *testing.T) {
	host := qemu.Arch(runtime.GOARCH)
	other := qemu.ArchArm64
	if host == qemu.ArchArm64 {
		other = qemu.ArchAMD64
	}
	old := kvmDevice
	t.Cleanup(func() { kvmDevice = old })

	kvmDevice = filepath.Join(t.TempDir(), "no-kvm")
	for _, req := range []string{"", TCG} {
		if a, note, err := ResolveAccel(req, host); a != TCG || note != "" || err != nil {
			t.Errorf("%q: %q %q %v", req, a, note, err)
		}
	}
	if a, note, err := ResolveAccel(KVM, host); a != TCG || !strings.Contains(note, "falling back to TCG") || err != nil {
		t.Errorf("no /dev/kvm: %q %q %v", a, note, err)
	}
	if _, _, err := ResolveAccel("hax", host); err == nil {
		t.Error("unknown accelerator accepted")
	}

	kvmDevice = "/dev/null" // opens read-write like a usable /dev/kvm
	if a, _, err := ResolveAccel(KVM, host); a != KVM || err != nil {
		t.Errorf("usable KVM: %q %v", a, err)
	}
	if a, note, _ := ResolveAccel(KVM, other); a != TCG || !strings.Contains(note, "falling back") {
		t.Errorf("foreign guest: %q %q", a, note)
	}
}
