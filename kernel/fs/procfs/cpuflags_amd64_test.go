package procfs_test

import (
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/cpu"

	"github.com/unitrace/unitrace/kernel/fs/procfs"
)

// TestCpuinfoFlagsHost checks the flag names of the CPUID bits Go's x/sys/cpu reads against
// the host's own cpuinfo: a name the host shows must be a bit this CPU has.
func TestCpuinfoFlagsHost(t *testing.T) {
	host, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		t.Skip(err)
	}
	var hostFlags map[string]bool
	for _, l := range strings.Split(string(host), "\n") {
		if k, v, ok := strings.Cut(l, ": "); ok && strings.TrimSpace(k) == "flags" {
			hostFlags = map[string]bool{}
			for _, f := range strings.Fields(v) {
				hostFlags[f] = true
			}
			break
		}
	}
	if hostFlags == nil {
		t.Skip("no flags line in the host's cpuinfo")
	}
	type bit struct {
		reg *uint32
		n   uint
	}
	r := newRig(t, "")
	c := &r.x.Src.Info.CPU
	c.Arch = procfs.ArchAMD64
	for _, b := range []struct {
		has  bool
		name string
		at   bit
	}{
		{cpu.X86.HasSSE2, "sse2", bit{&c.Leaf1EDX, 26}},
		{cpu.X86.HasSSE3, "pni", bit{&c.Leaf1ECX, 0}},
		{cpu.X86.HasPCLMULQDQ, "pclmulqdq", bit{&c.Leaf1ECX, 1}},
		{cpu.X86.HasSSSE3, "ssse3", bit{&c.Leaf1ECX, 9}},
		{cpu.X86.HasFMA, "fma", bit{&c.Leaf1ECX, 12}},
		{cpu.X86.HasCX16, "cx16", bit{&c.Leaf1ECX, 13}},
		{cpu.X86.HasSSE41, "sse4_1", bit{&c.Leaf1ECX, 19}},
		{cpu.X86.HasSSE42, "sse4_2", bit{&c.Leaf1ECX, 20}},
		{cpu.X86.HasPOPCNT, "popcnt", bit{&c.Leaf1ECX, 23}},
		{cpu.X86.HasAES, "aes", bit{&c.Leaf1ECX, 25}},
		{cpu.X86.HasAVX, "avx", bit{&c.Leaf1ECX, 28}},
		{cpu.X86.HasRDRAND, "rdrand", bit{&c.Leaf1ECX, 30}},
		{cpu.X86.HasBMI1, "bmi1", bit{&c.Leaf7EBX, 3}},
		{cpu.X86.HasAVX2, "avx2", bit{&c.Leaf7EBX, 5}},
		{cpu.X86.HasBMI2, "bmi2", bit{&c.Leaf7EBX, 8}},
		{cpu.X86.HasERMS, "erms", bit{&c.Leaf7EBX, 9}},
		{cpu.X86.HasAVX512F, "avx512f", bit{&c.Leaf7EBX, 16}},
		{cpu.X86.HasAVX512DQ, "avx512dq", bit{&c.Leaf7EBX, 17}},
		{cpu.X86.HasRDSEED, "rdseed", bit{&c.Leaf7EBX, 18}},
		{cpu.X86.HasADX, "adx", bit{&c.Leaf7EBX, 19}},
		{cpu.X86.HasAVX512IFMA, "avx512ifma", bit{&c.Leaf7EBX, 21}},
		{cpu.X86.HasAVX512CD, "avx512cd", bit{&c.Leaf7EBX, 28}},
		{cpu.X86.HasAVX512BW, "avx512bw", bit{&c.Leaf7EBX, 30}},
		{cpu.X86.HasAVX512VL, "avx512vl", bit{&c.Leaf7EBX, 31}},
		{cpu.X86.HasAVX512VBMI, "avx512vbmi", bit{&c.Leaf7ECX, 1}},
		{cpu.X86.HasAVX512VBMI2, "avx512_vbmi2", bit{&c.Leaf7ECX, 6}},
		{cpu.X86.HasAVX512GFNI, "gfni", bit{&c.Leaf7ECX, 8}},
		{cpu.X86.HasAVX512VAES, "vaes", bit{&c.Leaf7ECX, 9}},
		{cpu.X86.HasAVX512VPCLMULQDQ, "vpclmulqdq", bit{&c.Leaf7ECX, 10}},
		{cpu.X86.HasAVX512VNNI, "avx512_vnni", bit{&c.Leaf7ECX, 11}},
		{cpu.X86.HasAVX512BITALG, "avx512_bitalg", bit{&c.Leaf7ECX, 12}},
		{cpu.X86.HasAVX512VPOPCNTDQ, "avx512_vpopcntdq", bit{&c.Leaf7ECX, 14}},
	} {
		*b.at.reg = 1 << b.at.n
		got := r.read("cpuinfo", 4096)
		*b.at.reg = 0
		var flags string
		for _, l := range strings.Split(got, "\n") {
			if v, ok := strings.CutPrefix(l, "flags\t\t: "); ok {
				flags = v
				break
			}
		}
		if flags != b.name {
			t.Errorf("bit %d: flags %q, want %q", b.at.n, flags, b.name)
		}
		// Linux may hide a bit it distrusts (rdseed on some CPUs), never show one CPUID lacks.
		if hostFlags[b.name] && !b.has {
			t.Errorf("the host's cpuinfo shows %s, which CPUID does not have at bit %d", b.name, b.at.n)
		}
	}
}
