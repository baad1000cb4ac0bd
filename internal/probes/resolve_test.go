package probes

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/arch/arm64/arm64asm"
	"golang.org/x/arch/x86/x86asm"

	"github.com/unitrace/unitrace/probe"
)

// buildTarget builds testdata/target for goarch and opens it.
func buildTarget(t *testing.T, goarch string) *Image {
	t.Helper()
	out := filepath.Join(t.TempDir(), "target")
	cmd := exec.Command("go", "build", "-o", out, "./testdata/target")
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH="+goarch, "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	im, err := OpenImage(out)
	if err != nil {
		t.Fatal(err)
	}
	return im
}

var arches = []string{"amd64", "arm64"}

func TestResolveTargets(t *testing.T) {
	for _, goarch := range arches {
		t.Run(goarch, func(t *testing.T) {
			im := buildTarget(t, goarch)
			// main.small is a frameless leaf: its entry is arithmetic the kernel does not emulate.
			ts, err := Resolve(im, Spec{Pattern: "main.small"}, Options{})
			if err != nil || len(ts) != 1 || ts[0].Err == nil || !strings.Contains(ts[0].Err.Error(), "can emulate") {
				t.Errorf("main.small's entry: %+v, %v; want it refused", ts, err)
			}
			for _, name := range []string{"main.small", "main.framed", "main.large", "main.sum", "main.returns"} {
				for _, ret := range []bool{false, true} {
					if (name == "main.small" || name == "main.sum") && !ret {
						continue // frameless leaves: their entries may be refused
					}
					ts, err := Resolve(im, Spec{Pattern: name, Return: ret}, Options{})
					if err != nil {
						t.Fatal(err)
					}
					if len(ts) != 1 || ts[0].Err != nil {
						t.Fatalf("%s return=%v: %+v", name, ret, ts)
					}
					checkSites(t, im, ts[0], ret)
				}
			}
			ts, err = Resolve(im, Spec{Pattern: "main.returns", Return: true}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if n := len(ts[0].Sites); n < 2 {
				t.Errorf("main.returns has %d return sites, want several", n)
			}
		})
	}
}

// checkSites checks a target's sites against the disassembler: inside the function, on an
// instruction boundary, the displaced bytes the image's, and the instruction what the kind says.
func checkSites(t *testing.T, im *Image, tg Target, ret bool) {
	t.Helper()
	for _, s := range tg.Sites {
		if s.PC < tg.Func.Entry || s.PC >= tg.Func.End {
			t.Errorf("%s: site %#x outside [%#x, %#x)", tg.Func.Name, s.PC, tg.Func.Entry, tg.Func.End)
		}
		code := im.Code(s.PC, s.PC+uint64(s.Len))
		if string(code) != string(s.Code[:s.Len]) {
			t.Errorf("%s: site %#x code % x, image % x", tg.Func.Name, s.PC, s.Code[:s.Len], code)
		}
		var b [probe.SiteSize]byte
		s.Put(b[:])
		if _, _, e := probe.ParseSite(b[:], im.Arch, probe.IntRegs(im.Arch)); e != probe.OK {
			t.Errorf("%s: site %#x: the kernel would refuse it: %v", tg.Func.Name, s.PC, e)
		}
		if want := map[bool]probe.Kind{false: probe.KindEntry, true: probe.KindReturn}[ret]; s.Kind != want && !(ret && s.Kind == probe.KindCallEntry) {
			t.Errorf("%s: site %#x kind %d", tg.Func.Name, s.PC, s.Kind)
		}
		insts, err := im.disassemble(tg.Func)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, in := range insts {
			found = found || in.pc == s.PC
		}
		if !found {
			t.Errorf("%s: site %#x is not on an instruction boundary", tg.Func.Name, s.PC)
		}
	}
}

// TestEveryFunction resolves the entry and the returns of every function of the image and
// reports what is refused: every function with a stack check and a frame must get an entry
// site, and every return instruction must be one the kernel emulates.
func TestEveryFunction(t *testing.T) {
	for _, goarch := range arches {
		t.Run(goarch, func(t *testing.T) {
			im := buildTarget(t, goarch)
			var entries, refused, rets int
			for _, f := range im.Funcs {
				if _, denied := probe.Denied([]byte(f.Name)); denied {
					continue
				}
				insts, err := im.disassemble(f)
				if err != nil {
					continue // assembly with data in it, or padding the disassembler refuses
				}
				if _, err := im.entrySite(f, insts); err == nil {
					entries++
				} else {
					refused++
					if hasStackCheck(im, insts) && strings.Contains(err.Error(), "no instruction at its entry") && !strings.HasPrefix(f.Name, "runtime.") {
						t.Errorf("a Go function with a stack check refused: %v", err)
					}
				}
				for _, in := range insts {
					if in.class == classRet {
						rets++
						if _, ok := im.site(in, probe.KindReturn); !ok {
							t.Errorf("%s: return %#x (%s) refused", f.Name, in.pc, in.text)
						}
					}
				}
			}
			t.Logf("%s: %d functions: %d entry sites, %d refused; %d returns", goarch, len(im.Funcs), entries, refused, rets)
			if entries < len(im.Funcs)/2 {
				t.Errorf("only %d of %d functions have an entry site", entries, len(im.Funcs))
			}
		})
	}
}

func hasStackCheck(im *Image, insts []inst) bool {
	for i := 0; i < len(insts) && i < prologueLen; i++ {
		if insts[i].class == classCondBranch && im.callsMorestack(insts, insts[i].target) {
			return true
		}
	}
	return false
}

// TestDecodeAgreesWithDisassembler decodes every instruction of the image with the kernel's
// decoder: whatever it accepts, the disassembler must read as the same operation on the same
// registers, and every instruction of the classes it emulates that the compiler emitted must be
// accepted.
func TestDecodeAgreesWithDisassembler(t *testing.T) {
	for _, goarch := range arches {
		t.Run(goarch, func(t *testing.T) {
			im := buildTarget(t, goarch)
			accepted := map[probe.Op]int{}
			for _, f := range im.Funcs {
				insts, err := im.disassemble(f)
				if err != nil {
					continue
				}
				for _, in := range insts {
					code := im.Code(in.pc, in.pc+uint64(in.len))
					d, ok := probe.Decode(im.Arch, code)
					want, wantOK := oracle(t, im.Arch, code)
					if ok != wantOK || ok && d != want {
						t.Errorf("%s %#x %s (% x): decoded %+v %v, disassembler says %+v %v", f.Name, in.pc, in.text, code, d, ok, want, wantOK)
					}
					if ok {
						accepted[d.Op]++
					}
				}
			}
			t.Logf("accepted: %v", accepted)
			for _, op := range []probe.Op{probe.OpMove, probe.OpRet, probe.OpAddImm} {
				if accepted[op] == 0 && !(im.Arch == probe.AMD64 && op == probe.OpAddImm) {
					t.Errorf("no instruction of op %d in the image", op)
				}
			}
		})
	}
}

// oracle decodes code with golang.org/x/arch and says what the kernel's decoder should make of
// it: the same Insn for the instructions the set holds, false for every other.
func oracle(t *testing.T, arch probe.Arch, code []byte) (probe.Insn, bool) {
	if arch == probe.AMD64 {
		x, err := x86asm.Decode(code, 64)
		if err != nil {
			return probe.Insn{}, false
		}
		switch {
		case x.Op == x86asm.RET && x.Len == 1:
			return probe.Insn{Op: probe.OpRet, Len: 1, Src: probe.RegSP}, true
		case x.Op == x86asm.MOV && x.Len == 3 && x.DataSize == 64:
			dst, ok1 := x.Args[0].(x86asm.Reg)
			src, ok2 := x.Args[1].(x86asm.Reg)
			if ok1 && ok2 && dst >= x86asm.RAX && dst <= x86asm.R15 && src >= x86asm.RAX && src <= x86asm.R15 {
				return probe.Insn{Op: probe.OpMove, Len: 3, Dst: x86Reg(dst), Src: x86Reg(src)}, true
			}
		}
		return probe.Insn{}, false
	}
	x, err := arm64asm.Decode(code)
	if err != nil {
		return probe.Insn{}, false
	}
	switch x.Op {
	case arm64asm.RET:
		r := uint8(probe.RegZero)
		if len(x.Args) > 0 && x.Args[0] != nil {
			r = armReg(x.Args[0])
		} else {
			r = 30
		}
		return probe.Insn{Op: probe.OpRet, Len: 4, Src: r}, true
	case arm64asm.ADD, arm64asm.SUB, arm64asm.MOV, arm64asm.MOVZ:
		// Only the immediate and SP forms of ADD/SUB, MOVZ, and the register MOV (ORR alias)
		// are in the set; the decoder's own bit tests say which encoding this was.
		w := uint32(code[0]) | uint32(code[1])<<8 | uint32(code[2])<<16 | uint32(code[3])<<24
		switch {
		case w&0xff800000 == 0x91000000 || w&0xff800000 == 0xd1000000:
			imm := int64(w >> 10 & 0xfff)
			if w>>22&1 != 0 {
				imm <<= 12
			}
			if x.Op == arm64asm.SUB {
				imm = -imm
			} else if x.Op != arm64asm.ADD && x.Op != arm64asm.MOV {
				t.Errorf("% x: ADD/SUB immediate disassembled as %v", code, x)
			}
			return probe.Insn{Op: probe.OpAddImm, Len: 4, Dst: armReg(x.Args[0]), Src: armReg(x.Args[1]), Imm: imm}, true
		case w&0xff800000 == 0xd2800000:
			return probe.Insn{Op: probe.OpMovImm, Len: 4, Dst: armReg(x.Args[0]), Imm: int64(w>>5&0xffff) << (16 * (w >> 21 & 3))}, true
		case w&0xffe0ffe0 == 0xaa0003e0:
			return probe.Insn{Op: probe.OpMove, Len: 4, Dst: armReg(x.Args[0]), Src: armReg(x.Args[1])}, true
		}
	}
	return probe.Insn{}, false
}

func x86Reg(r x86asm.Reg) uint8 {
	n := uint8(r - x86asm.RAX)
	if n == 4 {
		return probe.RegSP
	}
	return n
}

func armReg(a arm64asm.Arg) uint8 {
	switch r := a.(type) {
	case arm64asm.Reg:
		if r == arm64asm.XZR {
			return probe.RegZero
		}
		return uint8(r - arm64asm.X0)
	case arm64asm.RegSP:
		if arm64asm.Reg(r) == arm64asm.SP {
			return probe.RegSP
		}
		return uint8(arm64asm.Reg(r) - arm64asm.X0)
	}
	return 255
}

// TestInlinedBodies resolves a function the compiler inlined everywhere: a site at its body's
// start in main.main, which the image's inline tree names as the callee's code; and its
// %return is refused, having no function of its own.
func TestInlinedBodies(t *testing.T) {
	for _, goarch := range arches {
		t.Run(goarch, func(t *testing.T) {
			im := buildTarget(t, goarch)
			ts, err := Resolve(im, Spec{Pattern: "main.inlined"}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(ts) != 1 || !ts[0].Inlined || ts[0].Err != nil || len(ts[0].Sites) != 1 {
				t.Fatalf("main.inlined: %+v", ts)
			}
			s := ts[0].Sites[0]
			caller, _ := im.FuncAt(s.PC)
			name, inlined, ok := im.NameAt(s.PC)
			if caller.Name != "main.main" || name != "main.inlined" || !inlined || !ok {
				t.Errorf("site %#x: in %s, named %s (inlined %v)", s.PC, caller.Name, name, inlined)
			}
			if _, err := Resolve(im, Spec{Pattern: "main.inlined", Return: true}, Options{}); err == nil {
				t.Error("main.inlined%return resolved: an inlined body has no return")
			}
		})
	}
}
