package kernel

import (
	"github.com/unitrace/unitrace/arch/arm64"
	"github.com/unitrace/unitrace/kernel/fs/procfs"
	"github.com/unitrace/unitrace/kernel/machine"
)

// archCPUInfo fills in what /proc/cpuinfo says of the processor: MIDR_EL1's fields (the boot
// CPU's: QEMU gives every CPU of a machine one model), AT_HWCAP and the generic timer's rate.
// Linux shows "CPU architecture: 8" for every ARMv8 or later CPU, whatever MIDR_EL1 says.
func archCPUInfo(c *procfs.CPU) {
	c.Arch = procfs.ArchARM64
	m := arm64.MIDR()
	c.Implementer = uint32(m >> 24 & 0xff)
	c.Variant = uint32(m >> 20 & 0xf)
	c.Architecture = 8
	c.Part = uint32(m >> 4 & 0xfff)
	c.Revision = uint32(m & 0xf)
	c.HWCap = machine.HWCap()
	c.TimerHz = arm64.TicksHz()
}
