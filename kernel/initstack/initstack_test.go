package initstack

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/unitrace/unitrace/kernel/abi"
)

// decoded is an initial stack read back the way rt0 and the runtime read it.
type decoded struct {
	argv, envv []string
	aux        map[uint64]uint64
	auxOrder   []uint64
	random     []byte
	platform   string
}

// decode parses the stack at sp in mem (whose last byte is at top-1),
// checking every pointer lands inside the window.
func decode(mem []byte, top, sp uintptr) (*decoded, error) {
	base := top - uintptr(len(mem))
	if sp < base || sp >= top {
		return nil, fmt.Errorf("sp %#x outside [%#x, %#x)", sp, base, top)
	}
	off := int(sp - base)
	word := func() (uint64, error) {
		if off+8 > len(mem) {
			return 0, fmt.Errorf("table runs past the window at %d", off)
		}
		v := binary.LittleEndian.Uint64(mem[off:])
		off += 8
		return v, nil
	}
	str := func(p uint64) (string, error) {
		if p < uint64(base) || p >= uint64(top) {
			return "", fmt.Errorf("string pointer %#x outside the window", p)
		}
		rest := mem[p-uint64(base):]
		n := bytes.IndexByte(rest, 0)
		if n < 0 {
			return "", fmt.Errorf("string at %#x not terminated", p)
		}
		return string(rest[:n]), nil
	}
	d := &decoded{aux: map[uint64]uint64{}}
	argc, err := word()
	if err != nil {
		return nil, err
	}
	for _, list := range []*[]string{&d.argv, &d.envv} {
		for {
			p, err := word()
			if err != nil {
				return nil, err
			}
			if p == 0 {
				break
			}
			s, err := str(p)
			if err != nil {
				return nil, err
			}
			*list = append(*list, s)
		}
	}
	if uint64(len(d.argv)) != argc {
		return nil, fmt.Errorf("argc %d, %d argv pointers", argc, len(d.argv))
	}
	for {
		tag, err := word()
		if err != nil {
			return nil, err
		}
		val, err := word()
		if err != nil {
			return nil, err
		}
		d.aux[tag] = val
		d.auxOrder = append(d.auxOrder, tag)
		if tag == atNull {
			break
		}
	}
	if p := d.aux[atRandom]; p < uint64(base) || p+16 > uint64(top) {
		return nil, fmt.Errorf("AT_RANDOM %#x outside the window", p)
	} else {
		d.random = mem[p-uint64(base) : p-uint64(base)+16]
	}
	if p, ok := d.aux[atPlatform]; ok {
		if d.platform, err = str(p); err != nil {
			return nil, err
		}
	}
	return d, nil
}

var testAux = Auxv{
	PageSize: 4096, HWCap: 0x8ff, HWCap2: 3,
	Random: [16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16},
}

func TestBuildDecode(t *testing.T) {
	withPlatform := testAux
	withPlatform.Platform = "aarch64"
	withVDSO := withPlatform
	withVDSO.SysinfoEHDR = 0x7fff_f7ff_e000
	tests := []struct {
		name       string
		size       int
		top        uintptr
		argv, envv []string
		aux        Auxv
	}{
		{"typical", 4096, 0x7fff_0000, []string{"prog", "-v", "x y"}, []string{"GODEBUG=asyncpreemptoff=1", "HOME=/"}, testAux},
		{"platform", 4096, 0x4000_1000, []string{"a"}, nil, withPlatform},
		{"vdso", 4096, 0x4000_1000, []string{"a"}, []string{"B=c"}, withVDSO},
		{"no args, no env", 256, 0x10000, nil, nil, testAux},
		{"empty strings", 512, 0x10000, []string{"", ""}, []string{""}, testAux},
		{"unaligned top", 1000, 0x12345, []string{"abc", "defgh"}, []string{"K=V"}, withPlatform},
		{"top at the end of the address space", 512, 1<<64 - 1, []string{"x"}, []string{"A=B"}, withPlatform},
	}
	for _, tt := range tests {
		mem := bytes.Repeat([]byte{0xcc}, tt.size)
		sp, err := Build(mem, tt.top, tt.argv, tt.envv, tt.aux)
		if err != 0 {
			t.Errorf("%s: Build error %d", tt.name, err)
			continue
		}
		if sp%16 != 0 {
			t.Errorf("%s: sp %#x not 16-byte aligned", tt.name, sp)
		}
		d, derr := decode(mem, tt.top, sp)
		if derr != nil {
			t.Errorf("%s: %v", tt.name, derr)
			continue
		}
		if !slices.Equal(d.argv, tt.argv) || !slices.Equal(d.envv, tt.envv) {
			t.Errorf("%s: argv %q envv %q", tt.name, d.argv, d.envv)
		}
		wantOrder := []uint64{atPageSize, atHWCap, atHWCap2, atRandom, atNull}
		if tt.aux.Platform != "" {
			wantOrder = []uint64{atPageSize, atHWCap, atHWCap2, atRandom, atPlatform, atNull}
		}
		if tt.aux.SysinfoEHDR != 0 {
			wantOrder = slices.Insert(wantOrder, len(wantOrder)-1, atSysinfo)
			if d.aux[atSysinfo] != tt.aux.SysinfoEHDR {
				t.Errorf("%s: AT_SYSINFO_EHDR %#x, want %#x", tt.name, d.aux[atSysinfo], tt.aux.SysinfoEHDR)
			}
		}
		if !slices.Equal(d.auxOrder, wantOrder) {
			t.Errorf("%s: auxv tags %v, want %v", tt.name, d.auxOrder, wantOrder)
		}
		if d.aux[atPageSize] != tt.aux.PageSize || d.aux[atHWCap] != tt.aux.HWCap || d.aux[atHWCap2] != tt.aux.HWCap2 {
			t.Errorf("%s: auxv values %v", tt.name, d.aux)
		}
		if !bytes.Equal(d.random, tt.aux.Random[:]) || d.platform != tt.aux.Platform {
			t.Errorf("%s: random %x platform %q", tt.name, d.random, d.platform)
		}
		// Nothing below sp was touched, and the strings end exactly at top.
		base := tt.top - uintptr(tt.size)
		if below := mem[:sp-base]; bytes.Count(below, []byte{0xcc}) != len(below) {
			t.Errorf("%s: bytes below sp were written", tt.name)
		}
		if len(tt.argv)+len(tt.envv) > 0 && mem[len(mem)-1] != 0 {
			t.Errorf("%s: last string does not end at top", tt.name)
		}
	}
}

// TestBuildExactFit finds the smallest window that works and checks that one
// byte less is ENOMEM and leaves the window untouched.
func TestBuildExactFit(t *testing.T) {
	argv := []string{"prog", strings.Repeat("a", 37)}
	envv := []string{"X=1"}
	for _, top := range []uintptr{0x10000, 0x10007, 0x1000f} {
		smallest := -1
		for size := 0; size < 1024; size++ {
			mem := make([]byte, size)
			if _, err := Build(mem, top, argv, envv, testAux); err == 0 {
				smallest = size
				break
			} else if err != abi.ENOMEM {
				t.Fatalf("size %d: error %d, want ENOMEM", size, err)
			} else if bytes.Count(mem, []byte{0}) != size {
				t.Fatalf("size %d: failed Build wrote to the window", size)
			}
		}
		// argc + 2 argv + NULL + 1 env + NULL + 5 aux pairs = 16 words,
		// then 16 random bytes and 4+1 + 37+1 + 3+1 string bytes.
		if min := 16*8 + 16 + 47; smallest < min || smallest > min+15 {
			t.Errorf("top %#x: smallest window %d, want %d..%d", top, smallest, min, min+15)
		}
		mem := make([]byte, smallest)
		sp, _ := Build(mem, top, argv, envv, testAux)
		if sp != top-uintptr(smallest) {
			t.Errorf("top %#x: exact fit has sp %#x, want the window start %#x", top, sp, top-uintptr(smallest))
		}
	}
}

func TestBuildErrors(t *testing.T) {
	nulPlatform := testAux
	nulPlatform.Platform = "x\x00"
	big := make([]string, 1000)
	tests := []struct {
		name       string
		size       int
		top        uintptr
		argv, envv []string
		aux        Auxv
		want       int
	}{
		{"NUL in argv", 4096, 0x10000, []string{"a\x00b"}, nil, testAux, abi.EINVAL},
		{"NUL in envv", 4096, 0x10000, nil, []string{"\x00"}, testAux, abi.EINVAL},
		{"NUL in platform", 4096, 0x10000, nil, nil, nulPlatform, abi.EINVAL},
		{"window below zero", 4096, 100, nil, nil, testAux, abi.EINVAL},
		{"empty window", 0, 0x10000, nil, nil, testAux, abi.ENOMEM},
		{"strings do not fit", 64, 0x10000, []string{strings.Repeat("z", 64)}, nil, testAux, abi.ENOMEM},
		{"pointers do not fit", 4096, 0x10000, big, nil, testAux, abi.ENOMEM},
		{"env pointers do not fit", 4096, 0x10000, nil, big, testAux, abi.ENOMEM},
	}
	for _, tt := range tests {
		mem := make([]byte, tt.size)
		if sp, err := Build(mem, tt.top, tt.argv, tt.envv, tt.aux); err != tt.want || sp != 0 {
			t.Errorf("%s: Build = %#x, %d; want 0, %d", tt.name, sp, err, tt.want)
		}
		if bytes.Count(mem, []byte{0}) != len(mem) {
			t.Errorf("%s: failed Build wrote to the window", tt.name)
		}
	}
}

func FuzzBuild(f *testing.F) {
	f.Add(uint16(512), uint16(7), "prog a b", "K=V GODEBUG=x", "x86_64")
	f.Add(uint16(90), uint16(0), "", "", "")
	f.Add(uint16(300), uint16(15), "a\x00b", "", "aarch64")
	f.Fuzz(func(t *testing.T, size, topLow uint16, args, env, platform string) {
		argv := strings.Fields(args)
		envv := strings.Fields(env)
		aux := testAux
		aux.Platform = platform
		top := uintptr(0x7fff_0000) + uintptr(topLow)
		mem := make([]byte, size)
		sp, err := Build(mem, top, argv, envv, aux)
		if err != 0 {
			if err != abi.ENOMEM && err != abi.EINVAL {
				t.Fatalf("error %d", err)
			}
			if bytes.Count(mem, []byte{0}) != len(mem) {
				t.Fatal("failed Build wrote to the window")
			}
			return
		}
		if sp%16 != 0 {
			t.Fatalf("sp %#x unaligned", sp)
		}
		d, derr := decode(mem, top, sp)
		if derr != nil {
			t.Fatal(derr)
		}
		if !slices.Equal(d.argv, argv) || !slices.Equal(d.envv, envv) || d.platform != platform {
			t.Fatalf("decoded %q %q %q", d.argv, d.envv, d.platform)
		}
	})
}
