package vmconfig

import (
	"fmt"
	"os"
	"runtime"

	"github.com/hugelgupf/vmtest/qemu"
)

// kvmDevice is a variable so tests can point it elsewhere.
var kvmDevice = "/dev/kvm"

// KVMUsable reports why KVM cannot run a guest of arch here, or nil.
func KVMUsable(arch qemu.Arch) error {
	if string(arch) != runtime.GOARCH {
		return fmt.Errorf("KVM runs only %s guests on this %s host", runtime.GOARCH, runtime.GOARCH)
	}
	f, err := os.OpenFile(kvmDevice, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("KVM is not usable: %w", err)
	}
	f.Close()
	return nil
}

// ResolveAccel returns the accelerator to run with: TCG unless KVM was asked
// for and is usable. When it falls back, note says why, for the user.
func ResolveAccel(requested string, arch qemu.Arch) (accel, note string, err error) {
	switch requested {
	case "", TCG:
		return TCG, "", nil
	case KVM:
		if err := KVMUsable(arch); err != nil {
			return TCG, fmt.Sprintf("%v; falling back to TCG", err), nil
		}
		note := ""
		if arch == qemu.ArchArm64 {
			note = "semihosting exit works under TCG only: under KVM the guest's exit status is lost"
		}
		return KVM, note, nil
	}
	return "", "", fmt.Errorf("unsupported accelerator %q (want %s or %s)", requested, TCG, KVM)
}
