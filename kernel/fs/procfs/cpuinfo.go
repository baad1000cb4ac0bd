package procfs

// cpuinfo: a block per online CPU, in the format of the CPU's architecture (Linux's
// arch/x86/kernel/cpu/proc.c and arch/arm64/kernel/cpuinfo.c). Every CPU is the boot CPU's
// model: QEMU gives all of a machine's CPUs one model, and the kernel reads it once.

func (s *Sources) cpuinfo(t *text) {
	c := &s.Info.CPU
	n := s.cpus()
	for i := 0; i < n; i++ {
		switch c.Arch {
		case ArchARM64:
			arm64CPU(t, c, i)
		default:
			amd64CPU(t, c, i, n)
		}
	}
}

// amd64CPU writes processor i's block: its identity from CPUID, its rate (the TSC's), its place
// (one package of n cores, no threads), the feature flags CPUID reports, and the sizes. Linux's
// lines for what this kernel does not know (microcode, caches, APIC ids, bugs) are left out, as
// are its flags that are not CPUID bits (constant_tsc, nopl, ...).
func amd64CPU(t *text, c *CPU, i, n int) {
	t.cpuDec("processor", uint64(i))
	t.cpuField("vendor_id")
	t.bytes(cstr(c.Vendor[:]))
	t.byte('\n')
	t.cpuDec("cpu family", uint64(c.Family))
	t.cpuDec("model", uint64(c.Model))
	t.cpuField("model name")
	t.bytes(trimSpace(cstr(c.Name[:])))
	t.byte('\n')
	t.cpuDec("stepping", uint64(c.Stepping))
	if c.TSCHz != 0 {
		t.cpuField("cpu MHz")
		t.fixed(c.TSCHz/1000, 3) // kHz, as MHz with three decimals
		t.byte('\n')
	}
	t.cpuField("physical id")
	t.str("0\n")
	t.cpuDec("siblings", uint64(n))
	t.cpuDec("core id", uint64(i))
	t.cpuDec("cpu cores", uint64(n))
	yes := c.Leaf1EDX&1 != 0
	t.cpuField("fpu")
	yesNo(t, yes)
	t.cpuField("fpu_exception")
	yesNo(t, yes)
	t.cpuDec("cpuid level", uint64(c.Level))
	t.cpuField("wp")
	t.str("yes\n")
	t.cpuField("flags")
	first := true
	for _, r := range x86Flags {
		reg := c.reg(r.reg)
		for b := 0; b < 32; b++ {
			if name := r.names[b]; name != "" && reg&(1<<b) != 0 {
				if !first {
					t.byte(' ')
				}
				first = false
				t.str(name)
			}
		}
	}
	t.byte('\n')
	if c.TSCHz != 0 {
		// BogoMIPS: Linux calibrates a delay loop on the TSC and shows twice its MHz.
		khz := c.TSCHz / 1000 * 2
		t.cpuField("bogomips")
		t.dec(khz / 1000)
		t.byte('.')
		t.decw(khz%1000/10, 2, '0')
		t.byte('\n')
	}
	t.cpuField("clflush size")
	t.str("64\n")
	t.cpuField("cache_alignment")
	t.str("64\n")
	if c.PhysBits != 0 {
		t.cpuField("address sizes")
		t.dec(uint64(c.PhysBits))
		t.str(" bits physical, ")
		t.dec(uint64(c.VirtBits))
		t.str(" bits virtual\n")
	}
	t.str("power management:\n\n")
}

func yesNo(t *text, b bool) {
	if b {
		t.str("yes\n")
	} else {
		t.str("no\n")
	}
}

// arm64CPU writes processor i's block: BogoMIPS (Linux's is twice the generic timer's rate in
// MHz), the features of AT_HWCAP, and MIDR_EL1's fields.
func arm64CPU(t *text, c *CPU, i int) {
	t.cpuDec("processor", uint64(i))
	t.cpuField("BogoMIPS")
	t.fixed(c.TimerHz*2/10_000, 2) // hundredths of a MIPS
	t.byte('\n')
	t.cpuField("Features")
	first := true
	for b, name := range arm64HWCaps {
		if c.HWCap&(1<<b) != 0 {
			if !first {
				t.byte(' ')
			}
			first = false
			t.str(name)
		}
	}
	t.byte('\n')
	t.cpuField("CPU implementer")
	t.str("0x")
	t.hex(uint64(c.Implementer), 2)
	t.byte('\n')
	t.cpuDec("CPU architecture", uint64(c.Architecture))
	t.cpuField("CPU variant")
	t.str("0x")
	t.hex(uint64(c.Variant), 1)
	t.byte('\n')
	t.cpuField("CPU part")
	t.str("0x")
	t.hex(uint64(c.Part), 3)
	t.byte('\n')
	t.cpuField("CPU revision")
	t.dec(uint64(c.Revision))
	t.str("\n\n")
}

// arm64HWCaps names AT_HWCAP's bits as Linux's Features line does
// (Documentation/arch/arm64/elf_hwcaps.rst).
var arm64HWCaps = [32]string{
	"fp", "asimd", "evtstrm", "aes", "pmull", "sha1", "sha2", "crc32",
	"atomics", "fphp", "asimdhp", "cpuid", "asimdrdm", "jscvt", "fcma", "lrcpc",
	"dcpop", "sha3", "sm3", "sm4", "asimddp", "sha512", "sve", "asimdfhm",
	"dit", "uscat", "ilrcpc", "flagm", "ssbs", "sb", "paca", "pacg",
}

// The CPUID registers the flags come from.
const (
	regLeaf1EDX = iota
	regExt1EDX
	regLeaf1ECX
	regExt1ECX
	regLeaf7EBX
	regLeaf7ECX
)

func (c *CPU) reg(r int) uint32 {
	switch r {
	case regLeaf1EDX:
		return c.Leaf1EDX
	case regExt1EDX:
		return c.Ext1EDX
	case regLeaf1ECX:
		return c.Leaf1ECX
	case regExt1ECX:
		return c.Ext1ECX
	case regLeaf7EBX:
		return c.Leaf7EBX
	}
	return c.Leaf7ECX
}

// x86Flags names the CPUID feature bits as Linux's flags line does, register by register in
// the order Linux lists them (its feature words 0, 1, 4, 6, 9 and 16: the bit names of the
// Intel and AMD manuals as Linux spells them). Bits Linux does not show (osxsave, the bits
// of 0x80000001.EDX that repeat leaf 1's) are empty.
var x86Flags = [...]struct {
	reg   int
	names [32]string
}{
	{regLeaf1EDX, [32]string{
		0: "fpu", 1: "vme", 2: "de", 3: "pse", 4: "tsc", 5: "msr", 6: "pae", 7: "mce",
		8: "cx8", 9: "apic", 11: "sep", 12: "mtrr", 13: "pge", 14: "mca", 15: "cmov",
		16: "pat", 17: "pse36", 18: "pn", 19: "clflush", 21: "dts", 22: "acpi", 23: "mmx",
		24: "fxsr", 25: "sse", 26: "sse2", 27: "ss", 28: "ht", 29: "tm", 30: "ia64", 31: "pbe",
	}},
	{regExt1EDX, [32]string{
		11: "syscall", 19: "mp", 20: "nx", 22: "mmxext", 25: "fxsr_opt", 26: "pdpe1gb",
		27: "rdtscp", 29: "lm", 30: "3dnowext", 31: "3dnow",
	}},
	{regLeaf1ECX, [32]string{
		0: "pni", 1: "pclmulqdq", 2: "dtes64", 3: "monitor", 4: "ds_cpl", 5: "vmx", 6: "smx",
		7: "est", 8: "tm2", 9: "ssse3", 10: "cid", 11: "sdbg", 12: "fma", 13: "cx16",
		14: "xtpr", 15: "pdcm", 17: "pcid", 18: "dca", 19: "sse4_1", 20: "sse4_2",
		21: "x2apic", 22: "movbe", 23: "popcnt", 24: "tsc_deadline_timer", 25: "aes",
		26: "xsave", 28: "avx", 29: "f16c", 30: "rdrand", 31: "hypervisor",
	}},
	{regExt1ECX, [32]string{
		0: "lahf_lm", 1: "cmp_legacy", 2: "svm", 3: "extapic", 4: "cr8_legacy", 5: "abm",
		6: "sse4a", 7: "misalignsse", 8: "3dnowprefetch", 9: "osvw", 10: "ibs", 11: "xop",
		12: "skinit", 13: "wdt", 15: "lwp", 16: "fma4", 17: "tce", 19: "nodeid_msr",
		21: "tbm", 22: "topoext", 23: "perfctr_core", 24: "perfctr_nb", 26: "bpext",
		27: "ptsc", 28: "perfctr_llc", 29: "mwaitx",
	}},
	{regLeaf7EBX, [32]string{
		0: "fsgsbase", 1: "tsc_adjust", 2: "sgx", 3: "bmi1", 4: "hle", 5: "avx2", 7: "smep",
		8: "bmi2", 9: "erms", 10: "invpcid", 11: "rtm", 12: "cqm", 14: "mpx", 15: "rdt_a",
		16: "avx512f", 17: "avx512dq", 18: "rdseed", 19: "adx", 20: "smap",
		21: "avx512ifma", 23: "clflushopt", 24: "clwb", 25: "intel_pt", 26: "avx512pf",
		27: "avx512er", 28: "avx512cd", 29: "sha_ni", 30: "avx512bw", 31: "avx512vl",
	}},
	{regLeaf7ECX, [32]string{
		1: "avx512vbmi", 2: "umip", 3: "pku", 4: "ospke", 5: "waitpkg", 6: "avx512_vbmi2",
		8: "gfni", 9: "vaes", 10: "vpclmulqdq", 11: "avx512_vnni", 12: "avx512_bitalg",
		13: "tme", 14: "avx512_vpopcntdq", 16: "la57", 22: "rdpid", 24: "bus_lock_detect",
		25: "cldemote", 27: "movdiri", 28: "movdir64b", 29: "enqcmd", 30: "sgx_lc",
	}},
}

// cstr is b up to its first NUL.
func cstr(b []byte) []byte {
	for i, c := range b {
		if c == 0 {
			return b[:i]
		}
	}
	return b
}

// trimSpace drops leading and trailing spaces (brand strings are often padded).
func trimSpace(b []byte) []byte {
	for len(b) > 0 && b[0] == ' ' {
		b = b[1:]
	}
	for len(b) > 0 && b[len(b)-1] == ' ' {
		b = b[:len(b)-1]
	}
	return b
}
