// Package vmconfig is the one place that knows unitrace's QEMU command lines,
// the guest command line format and the guest's console and exit protocol.
// The VM tests (through github.com/hugelgupf/vmtest/qemu) and the
// `unitrace run` launcher both build their QEMU invocation here.
package vmconfig

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hugelgupf/vmtest/qemu"
)

// Accelerators.
const (
	TCG = "tcg"
	KVM = "kvm"
)

// Config describes one VM. The zero value of each field means its default.
type Config struct {
	Arch    qemu.Arch // qemu.ArchAMD64 (default) or qemu.ArchArm64
	Machine string    // amd64: microvm (default), q35, pc; arm64: virt
	CPU     string    // -cpu model; default max
	Memory  string    // -m; default 256M
	SMP     int       // -smp; default 1
	Accel   string    // TCG (default) or KVM; see ResolveAccel
	Kernel  string    // the image
	// Env holds the KEY=VALUE words of the guest command line: environment
	// variables for the program and unitrace.* kernel options.
	Env []string
	// Args become the program's os.Args[1:].
	Args []string
	// Timeout kills QEMU after this long (0: never).
	Timeout time.Duration
	// QEMU overrides the emulator binary.
	QEMU string
	// ExtraArgs are appended to QEMU's arguments (devices of later issues).
	ExtraArgs []string
	// Trace, when set, adds the tracer's virtio-serial ports on unix
	// sockets (microvm and virt only).
	Trace *TracePorts
	// Shares are host directories the guest mounts while it runs, each a
	// virtio-9p-device (microvm and virt only) and a unitrace.share kernel
	// option after Env's words (share.go).
	Shares []Share
}

// Defaults.
const (
	DefaultCPU    = "max"
	DefaultMemory = "256M"
)

// machine describes what unitrace needs from one QEMU machine type.
type machine struct {
	arch qemu.Arch
	name string
	// qemuMachine is the -M value with the properties unitrace relies on.
	qemuMachine string
	// exitDevice lets the guest end QEMU with a status.
	exitArgs []string
	// firmware is the -bios choice, when not QEMU's default.
	firmware []string
	// virtioMMIO: the machine has virtio-mmio transports, for the tracer's
	// virtio-serial-device and the shares' virtio-9p-device (q35 and pc have
	// PCI only, and unitrace has no virtio-pci driver).
	virtioMMIO bool
}

// amd64ExitDevice is isa-debug-exit at the port the kernel writes: an OUTL of
// v makes QEMU exit with ((v<<1)|1) & 0xff.
var amd64ExitDevice = []string{"-device", "isa-debug-exit,iobase=0xf4,iosize=0x04"}

// qboot is the firmware for q35 and pc: qboot (QEMU's own minimal firmware, which microvm uses
// by default) loads a -kernel image in about a third of SeaBIOS's time, which is most of what
// booting costs before the kernel's first instruction. The kernel needs nothing else from
// firmware: it finds its ACPI tables (which qboot builds from QEMU's fw_cfg as SeaBIOS does)
// and devices itself.
var qboot = []string{"-bios", "qboot.rom"}

// Firmware is the -bios choice for a QEMU machine name (the -M value's first word), nil for
// QEMU's default: the benchmarks boot other kernels with the same firmware as unitrace.
func Firmware(machine string) []string {
	name, _, _ := strings.Cut(machine, ",")
	for _, m := range machines {
		if m.name == name {
			return m.firmware
		}
	}
	return nil
}

var machines = []machine{
	// microvm: the ISA serial port and the RTC stay on (console, wall
	// clock), the PIT stays on for timer calibration, and QEMU must not
	// append virtio-mmio descriptions to the guest's command line.
	{qemu.ArchAMD64, "microvm", "microvm,isa-serial=on,rtc=on,pit=on,auto-kernel-cmdline=off", amd64ExitDevice, nil, true},
	{qemu.ArchAMD64, "q35", "q35", amd64ExitDevice, qboot, false},
	{qemu.ArchAMD64, "pc", "pc", amd64ExitDevice, qboot, false},
	// virt: the exit is semihosting SYS_EXIT, which works under TCG only.
	{qemu.ArchArm64, "virt", "virt", []string{"-semihosting-config", "enable=on,target=native"}, nil, true},
	// virt with a GICv3 interrupt controller instead of the default GICv2.
	{qemu.ArchArm64, "virt-gicv3", "virt,gic-version=3", []string{"-semihosting-config", "enable=on,target=native"}, nil, true},
}

// mmioMachine is the default machine of arch with virtio-mmio, for the messages that name it.
func mmioMachine(arch qemu.Arch) string {
	for _, m := range machines {
		if m.arch == arch && m.virtioMMIO {
			return m.name
		}
	}
	return ""
}

// VirtioMMIO reports whether c's machine has virtio-mmio transports, which the trace ports and
// the shares need (false for a machine unitrace does not know).
func (c Config) VirtioMMIO() bool {
	c = c.withDefaults()
	for _, m := range machines {
		if m.arch == c.Arch && m.name == c.Machine {
			return m.virtioMMIO
		}
	}
	return false
}

// MMIOMachines lists the machines of arch that have virtio-mmio, default first.
func MMIOMachines(arch qemu.Arch) []string {
	var names []string
	for _, m := range machines {
		if m.arch == arch && m.virtioMMIO {
			names = append(names, m.name)
		}
	}
	return names
}

// Machines lists the machine names unitrace supports for arch, default first.
func Machines(arch qemu.Arch) []string {
	var names []string
	for _, m := range machines {
		if m.arch == arch {
			names = append(names, m.name)
		}
	}
	return names
}

func (c Config) withDefaults() Config {
	if c.Arch == "" {
		c.Arch = qemu.ArchAMD64
	}
	if c.Machine == "" {
		if names := Machines(c.Arch); len(names) > 0 {
			c.Machine = names[0]
		}
	}
	if c.CPU == "" {
		c.CPU = DefaultCPU
	}
	if c.Memory == "" {
		c.Memory = DefaultMemory
	}
	if c.SMP == 0 {
		c.SMP = 1
	}
	if c.Accel == "" {
		c.Accel = TCG
	}
	if c.QEMU == "" {
		c.QEMU = QEMUBinary(c.Arch)
	}
	return c
}

// QEMUBinary is the system emulator for a guest architecture.
func QEMUBinary(arch qemu.Arch) string {
	if arch == qemu.ArchArm64 {
		return "qemu-system-aarch64"
	}
	return "qemu-system-x86_64"
}

// QEMUArgs returns QEMU's arguments after the binary name, without -kernel
// and -append (vmtest adds those).
func (c Config) QEMUArgs() ([]string, error) {
	c = c.withDefaults()
	i := slices.IndexFunc(machines, func(m machine) bool { return m.arch == c.Arch && m.name == c.Machine })
	if i < 0 {
		return nil, fmt.Errorf("unsupported machine %q for %s (supported: %v)", c.Machine, c.Arch, Machines(c.Arch))
	}
	if c.Accel != TCG && c.Accel != KVM {
		return nil, fmt.Errorf("unsupported accelerator %q (want %s or %s)", c.Accel, TCG, KVM)
	}
	if c.SMP < 1 {
		return nil, fmt.Errorf("-smp %d: need at least one CPU", c.SMP)
	}
	m := machines[i]
	args := []string{
		"-M", m.qemuMachine,
		"-accel", c.Accel,
		"-cpu", c.CPU,
		"-m", c.Memory,
		"-smp", strconv.Itoa(c.SMP),
		// No default devices (VGA, NIC, monitor, ...), no firmware
		// chatter on the serial line; a guest crash exits instead of
		// rebooting (a triple fault then exits with status 0).
		"-nodefaults", "-no-reboot",
		"-display", "none",
		"-serial", "stdio",
	}
	args = append(args, m.firmware...)
	args = append(args, m.exitArgs...)
	if c.Trace != nil {
		ports, err := c.Trace.qemuArgs(m)
		if err != nil {
			return nil, err
		}
		args = append(args, ports...)
	}
	shares, err := shareArgs(c.Shares, m)
	if err != nil {
		return nil, err
	}
	args = append(args, shares...)
	return append(args, c.ExtraArgs...), nil
}

// Fns returns the vmtest options of the VM. They replace whatever the
// VMTEST_QEMU, VMTEST_KERNEL, VMTEST_KERNEL_APPEND and VMTEST_INITRAMFS
// variables set, and drop the -nographic that vmtest always adds (it makes
// SeaBIOS print its banner on the console); VMTEST_QEMU_APPEND still applies.
func (c Config) Fns() ([]qemu.Fn, error) {
	c = c.withDefaults()
	args, err := c.QEMUArgs()
	if err != nil {
		return nil, err
	}
	cmdline, err := GuestCommandLine(append(slices.Clone(c.Env), shareOptions(c.Shares)...), c.Args)
	if err != nil {
		return nil, err
	}
	if c.Kernel == "" {
		return nil, fmt.Errorf("no kernel image")
	}
	fn := func(_ *qemu.IDAllocator, o *qemu.Options) error {
		extra := slices.DeleteFunc(slices.Clone(o.QEMUArgs), func(a string) bool { return a == "-nographic" })
		o.QEMUCommand = c.QEMU
		o.QEMUArgs = append(slices.Clone(args), extra...)
		o.Kernel = c.Kernel
		o.KernelArgs = cmdline
		o.Initramfs = ""
		if c.Timeout > 0 {
			o.VMTimeout = c.Timeout
		}
		return nil
	}
	return []qemu.Fn{fn}, nil
}

// Options evaluates the VM's options together with more Fns (serial
// writers, tasks) added by the caller.
func (c Config) Options(more ...qemu.Fn) (*qemu.Options, error) {
	fns, err := c.Fns()
	if err != nil {
		return nil, err
	}
	return qemu.OptionsFor(c.withDefaults().Arch, append(fns, more...)...)
}

// Cmdline returns the complete QEMU command line, binary first.
func (c Config) Cmdline() ([]string, error) {
	o, err := c.Options()
	if err != nil {
		return nil, err
	}
	return o.Cmdline()
}
