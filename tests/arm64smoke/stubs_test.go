package main_test

import (
	"bufio"
	"bytes"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// instruction is one line of go tool objdump output.
type instruction struct {
	addr uint64
	text string // the disassembly, e.g. "SUB $848, RSP, RSP"
}

// disassemble returns the instructions of each function of arch/arm64's assembly that the
// stubs consist of, keyed by the name objdump prints (file-local symbols lose their <>).
func disassemble(t *testing.T, image string) map[string][]instruction {
	t.Helper()
	out, err := exec.Command("go", "tool", "objdump", image).Output()
	if err != nil {
		t.Fatalf("go tool objdump: %v", err)
	}
	funcs := map[string][]instruction{}
	cur := ""
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if name, ok := strings.CutPrefix(line, "TEXT "); ok {
			cur = strings.TrimSuffix(strings.Fields(name)[0], "(SB)")
			continue
		}
		f := strings.Split(strings.TrimSpace(line), "\t")
		var fields []string
		for _, s := range f {
			if s != "" {
				fields = append(fields, s)
			}
		}
		if len(fields) < 4 || !strings.HasPrefix(fields[0], "trap_arm64.s:") {
			continue
		}
		addr, err := strconv.ParseUint(strings.TrimPrefix(fields[1], "0x"), 16, 64)
		if err != nil {
			continue
		}
		funcs[cur] = append(funcs[cur], instruction{addr, strings.TrimSpace(fields[3])})
	}
	return funcs
}

// TestVectorStubs checks the assembled vector table of a linked image, which go_asm.h and the
// Frame tests cannot see: 2 KiB alignment, every entry at its 128-byte slot (PCALIGN pads each
// entry there; an entry that outgrew 32 instructions would push the rest out of place), and no
// use of R27 (REGTMP, where the assembler materializes constants it cannot encode) before the
// stubs have saved it.
func TestVectorStubs(t *testing.T) {
	funcs := disassemble(t, buildImage(t))
	const vectors = "github.com/unitrace/unitrace/arch/arm64.vectors.abi0"
	code := funcs[vectors]
	if len(code) == 0 {
		t.Fatalf("no %s in the image", vectors)
	}
	base := code[0].addr
	if base%2048 != 0 {
		t.Errorf("vectors at %#x, not 2 KiB aligned", base)
	}
	first := map[uint64]string{}
	for _, in := range code {
		if strings.Contains(in.text, "R27") {
			t.Errorf("vectors+%#x uses R27: %s", in.addr-base, in.text)
		}
		if (in.addr-base)%0x80 == 0 {
			first[(in.addr-base)/0x80] = in.text
		}
		if in.addr-base >= 0x800 {
			t.Errorf("vectors+%#x: the table is longer than 2 KiB", in.addr-base)
			break
		}
	}
	for kind := uint64(0); kind < 16; kind++ {
		el1t := strings.HasPrefix(first[kind], "SUB $") && strings.HasSuffix(first[kind], ", RSP, RSP") // SUB_SP(trapReserve)
		el1h := first[kind] == "MOVD RSP, R18"
		if kind < 4 && !el1t || kind >= 4 && !el1h {
			t.Errorf("vector %d starts with %q, not the first instruction of its stub", kind, first[kind])
		}
	}
	for _, name := range []string{"el1tEntry", "el1hEntry"} {
		if len(funcs[name]) == 0 {
			t.Errorf("no %s in the image", name)
		}
		for _, in := range funcs[name] {
			if strings.Contains(in.text, "R27") && in.text != "STP (R26, R27), 208(RSP)" {
				t.Errorf("%s uses R27 before saving it: %s", name, in.text)
			}
		}
	}
	if len(funcs["trapReturn"]) == 0 {
		t.Error("no trapReturn in the image")
	}
	for _, in := range funcs["trapReturn"] {
		if strings.Contains(in.text, "R27") && in.text != "LDP 208(RSP), (R26, R27)" {
			t.Errorf("trapReturn uses R27 after restoring it: %s", in.text)
		}
	}
}
