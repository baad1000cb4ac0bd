package kernel

import (
	"encoding/binary"

	"github.com/unitrace/unitrace/arch/amd64"
	"github.com/unitrace/unitrace/kernel/fs/procfs"
)

// archCPUInfo fills in what /proc/cpuinfo says of the processor, from CPUID (the boot CPU's:
// QEMU gives every CPU of a machine one model) and the calibrated TSC.
func archCPUInfo(c *procfs.CPU) {
	c.Arch = procfs.ArchAMD64
	maxLeaf, b, cx, d := amd64.CPUID(0, 0)
	c.Level = maxLeaf
	binary.LittleEndian.PutUint32(c.Vendor[0:], b)
	binary.LittleEndian.PutUint32(c.Vendor[4:], d)
	binary.LittleEndian.PutUint32(c.Vendor[8:], cx)
	if maxLeaf >= 1 {
		a, _, cx, d := amd64.CPUID(1, 0)
		// The extended family and model count as Linux counts them (x86_family, x86_model).
		c.Family, c.Model, c.Stepping = a>>8&0xf, a>>4&0xf, a&0xf
		if c.Family == 0xf {
			c.Family += a >> 20 & 0xff
		}
		if c.Family >= 6 {
			c.Model += (a >> 16 & 0xf) << 4
		}
		c.Leaf1ECX, c.Leaf1EDX = cx, d
	}
	if maxLeaf >= 7 {
		_, b, cx, _ := amd64.CPUID(7, 0)
		c.Leaf7EBX, c.Leaf7ECX = b, cx
	}
	maxExt, _, _, _ := amd64.CPUID(0x8000_0000, 0)
	if maxExt >= 0x8000_0001 {
		_, _, cx, d := amd64.CPUID(0x8000_0001, 0)
		c.Ext1ECX, c.Ext1EDX = cx, d
	}
	if maxExt >= 0x8000_0004 {
		for i := uint32(0); i < 3; i++ {
			a, b, cx, d := amd64.CPUID(0x8000_0002+i, 0)
			for j, r := range [4]uint32{a, b, cx, d} {
				binary.LittleEndian.PutUint32(c.Name[16*i+4*uint32(j):], r)
			}
		}
	}
	if maxExt >= 0x8000_0008 {
		a, _, _, _ := amd64.CPUID(0x8000_0008, 0)
		c.PhysBits, c.VirtBits = a&0xff, a>>8&0xff
	}
	c.TSCHz = amd64.TSCHz()
}
