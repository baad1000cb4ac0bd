package vmconfig

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hugelgupf/vmtest/qemu"
)

func TestCmdline(t *testing.T) {
	// vmtest reads these; the generated command line must not depend on them.
	t.Setenv("VMTEST_QEMU", "qemu-from-env -m 1G")
	t.Setenv("VMTEST_KERNEL", "/env/kernel")
	t.Setenv("VMTEST_KERNEL_APPEND", "from_env=1")
	t.Setenv("VMTEST_INITRAMFS", "/env/initrd")
	t.Setenv("VMTEST_QEMU_APPEND", "")
	t.Setenv("VMTEST_TIMEOUT", "")

	tests := []struct {
		name string
		c    Config
		want string
	}{
		{"amd64 defaults", Config{Kernel: "k.elf"},
			"qemu-system-x86_64 -M microvm,isa-serial=on,rtc=on,pit=on,auto-kernel-cmdline=off -accel tcg -cpu max -m 256M -smp 1" +
				" -nodefaults -no-reboot -display none -serial stdio -device isa-debug-exit,iobase=0xf4,iosize=0x04 -kernel k.elf"},
		{"q35 with command line", Config{Machine: "q35", Kernel: "k.elf", Env: []string{"GODEBUG=x=1", "unitrace.debug=kfault"}, Args: []string{"a", "-b"}},
			"qemu-system-x86_64 -M q35 -accel tcg -cpu max -m 256M -smp 1 -nodefaults -no-reboot -display none -serial stdio" +
				" -bios qboot.rom -device isa-debug-exit,iobase=0xf4,iosize=0x04 -kernel k.elf -append|GODEBUG=x=1 unitrace.debug=kfault -- a -b"},
		{"pc, qemu64, kvm, 2 CPUs", Config{Machine: "pc", CPU: "qemu64", Accel: KVM, SMP: 2, Memory: "1G", Kernel: "k.elf", Args: []string{"x"}},
			"qemu-system-x86_64 -M pc -accel kvm -cpu qemu64 -m 1G -smp 2 -nodefaults -no-reboot -display none -serial stdio" +
				" -bios qboot.rom -device isa-debug-exit,iobase=0xf4,iosize=0x04 -kernel k.elf -append|-- x"},
		{"arm64 virt", Config{Arch: qemu.ArchArm64, Kernel: "k.elf", ExtraArgs: []string{"-device", "virtio-serial-device"}},
			"qemu-system-aarch64 -M virt -accel tcg -cpu max -m 256M -smp 1 -nodefaults -no-reboot -display none -serial stdio" +
				" -semihosting-config enable=on,target=native -device virtio-serial-device -kernel k.elf"},
		{"binary override", Config{Kernel: "k.elf", QEMU: "/opt/qemu/bin/qemu-system-x86_64"},
			"/opt/qemu/bin/qemu-system-x86_64 -M microvm,isa-serial=on,rtc=on,pit=on,auto-kernel-cmdline=off -accel tcg -cpu max -m 256M -smp 1" +
				" -nodefaults -no-reboot -display none -serial stdio -device isa-debug-exit,iobase=0xf4,iosize=0x04 -kernel k.elf"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args, err := tt.c.Cmdline()
			if err != nil {
				t.Fatal(err)
			}
			// Arguments are space-separated, except that the -append
			// value (which holds spaces) follows a "|".
			got := strings.Join(args, " ")
			if i := slices.Index(args, "-append"); i >= 0 {
				got = strings.Join(args[:i+1], " ") + "|" + strings.Join(args[i+1:], " ")
			}
			if got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestOptionsKeepsVMTestAppendAndDropsNographic(t *testing.T) {
	t.Setenv("VMTEST_QEMU_APPEND", "-d int")
	t.Setenv("VMTEST_TIMEOUT", "")
	o, err := Config{Kernel: "k", Timeout: time.Minute}.Options()
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(o.QEMUArgs, "-nographic") {
		t.Errorf("-nographic kept: %q", o.QEMUArgs)
	}
	if n := len(o.QEMUArgs); n < 2 || o.QEMUArgs[n-2] != "-d" || o.QEMUArgs[n-1] != "int" {
		t.Errorf("VMTEST_QEMU_APPEND not last: %q", o.QEMUArgs)
	}
	if o.VMTimeout != time.Minute || o.Arch() != qemu.ArchAMD64 {
		t.Errorf("timeout %v arch %v", o.VMTimeout, o.Arch())
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []Config{
		{Kernel: "k", Machine: "virt"},
		{Kernel: "k", Arch: qemu.ArchArm64, Machine: "microvm"},
		{Kernel: "k", Accel: "hvf"},
		{Kernel: "k", SMP: -1},
		{},
		{Kernel: "k", Env: []string{"NOEQUALS"}},
		{Kernel: "k", Args: []string{"two words"}},
	} {
		if _, err := c.Cmdline(); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
}

func TestMachines(t *testing.T) {
	if got := Machines(qemu.ArchAMD64); !slices.Equal(got, []string{"microvm", "q35", "pc"}) {
		t.Errorf("amd64 machines %v", got)
	}
	if got := Machines(qemu.ArchArm64); !slices.Equal(got, []string{"virt", "virt-gicv3"}) {
		t.Errorf("arm64 machines %v", got)
	}
}

// TestFirmware: q35 and pc boot from qboot, whatever properties follow the name; microvm and
// arm64's virt keep QEMU's default.
func TestFirmware(t *testing.T) {
	for machine, want := range map[string][]string{
		"q35": {"-bios", "qboot.rom"}, "q35,accel=tcg": {"-bios", "qboot.rom"}, "pc": {"-bios", "qboot.rom"},
		"microvm": nil, "microvm,isa-serial=on": nil, "virt": nil, "unknown": nil,
	} {
		if got := Firmware(machine); !slices.Equal(got, want) {
			t.Errorf("Firmware(%q) = %q, want %q", machine, got, want)
		}
	}
}
