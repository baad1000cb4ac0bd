// Package profiletest builds what the sampler views' tests need: a small
// real Go program (compiled for amd64 or arm64 with the stock toolchain)
// whose functions have known shapes, the return addresses of its calls,
// and synthetic recordings of SAMPLE records whose stacks use them.
package profiletest

import (
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"golang.org/x/arch/arm64/arm64asm"
	"golang.org/x/arch/x86/x86asm"

	"github.com/unitrace/unitrace/symtab"
)

// Source of the program. leaf is a frameless Go leaf (no locals, no
// calls); mid, outer, middle and withInline have frames; asmleaf is a
// NOFRAME assembly leaf called from middle; inl is inlined into withInline.
// Package prog/kernel stands in for the unikernel's kernel (kernelGo).
const mainGo = `package main

import (
	"os"

	"prog/kernel"
)

//go:noinline
func leaf(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i * i
	}
	return s
}

//go:noinline
func mid(n int) int { return leaf(n) + 1 }

//go:noinline
func outer(n int) int {
	t := 0
	for i := 0; i < 3; i++ {
		t += mid(n + i)
	}
	return t
}

func asmleaf(n int) int

//go:noinline
func middle(n int) int { return asmleaf(n) + 2 }

func inl(n int) int {
	for i := 0; i < n; i++ {
		n ^= i * 7
	}
	return n
}

//go:noinline
func withInline(n int) int { return inl(n) + mid(n) }

func main() {
	n := len(os.Args)
	os.Exit(outer(n) + middle(n) + withInline(n) + kernel.Trap(n))
}
`

// kernelGo is the kernel's side of a system call, for stacks that cross the kernel boundary:
// Trap stands in for the trap handler, syscall for the system call it dispatches to, and
// lockKernel is a frameless leaf (the chain skips syscall when it is interrupted).
const kernelGo = `package kernel

var held = 3

//go:noinline
func lockKernel(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i ^ held
	}
	return s
}

//go:noinline
func syscall(n int) int { return lockKernel(n) + 1 }

//go:noinline
func Trap(n int) int { return syscall(n) * 2 }
`

const asmAMD64 = `#include "textflag.h"

// func asmleaf(n int) int
TEXT ·asmleaf(SB), NOSPLIT|NOFRAME, $0-16
	MOVQ	n+0(FP), CX
	XORQ	AX, AX
loop:
	ADDQ	CX, AX
	DECQ	CX
	JNZ	loop
	MOVQ	AX, ret+8(FP)
	RET
`

const asmARM64 = `#include "textflag.h"

// func asmleaf(n int) int
TEXT ·asmleaf(SB), NOSPLIT|NOFRAME, $0-16
	MOVD	n+0(FP), R1
	MOVD	ZR, R0
loop:
	ADD	R1, R0, R0
	SUBS	$1, R1, R1
	BNE	loop
	MOVD	R0, ret+8(FP)
	RET
`

// BuildID is the GNU build id the program is linked with.
var BuildID = []byte{0x75, 0x6e, 0x69, 0x74, 0x72, 0x61, 0x63, 0x65}

// Program is the compiled test program.
type Program struct {
	Path  string
	Arch  string            // GOARCH
	Funcs map[string]Symbol // every function by name (main.*, prog/kernel.*, runtime.*)
	text  []byte
	addr  uint64 // of text
	table symtab.Table
}

// Symbol is one function of the program.
type Symbol struct {
	Name       string
	Entry, End uint64
}

// Build compiles the program for goarch into dir and reads its symbols.
func Build(t testing.TB, dir, goarch string) *Program {
	t.Helper()
	src := filepath.Join(dir, "src-"+goarch)
	files := map[string]string{"go.mod": "module prog\n\ngo 1.26\n", "main.go": mainGo,
		"asm_amd64.s": asmAMD64, "asm_arm64.s": asmARM64, "kernel/kernel.go": kernelGo}
	if err := os.MkdirAll(filepath.Join(src, "kernel"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(src, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "prog-"+goarch+".elf")
	cmd := exec.Command("go", "build", "-o", out, fmt.Sprintf("-ldflags=-B 0x%x", BuildID), ".")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+goarch, "GOWORK=off", "GOFLAGS=")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	p, err := read(out, goarch)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func read(path, goarch string) (*Program, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p := &Program{Path: path, Arch: goarch, Funcs: map[string]Symbol{}}
	text := f.Section(".text")
	if p.text, err = text.Data(); err != nil {
		return nil, err
	}
	p.addr = text.Addr
	pcln, err := f.Section(".gopclntab").Data()
	if err != nil {
		return nil, err
	}
	var textSym uint64
	syms, err := f.Symbols()
	if err != nil {
		return nil, err
	}
	for _, s := range syms {
		if s.Name == "runtime.text" {
			textSym = s.Value
		}
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC {
			continue
		}
		name := s.Name
		if n := len(name); n > 5 && name[n-5:] == ".abi0" { // an assembly function's ELF name
			name = name[:n-5]
		}
		p.Funcs[name] = Symbol{Name: name, Entry: s.Value, End: s.Value + s.Size}
	}
	var ok bool
	if p.table, ok = symtab.New(pcln, uintptr(textSym)); !ok {
		return nil, fmt.Errorf("%s: unreadable pclntab", path)
	}
	for _, want := range []string{"main.leaf", "main.mid", "main.outer", "main.asmleaf", "main.middle", "main.withInline", "main.main",
		"prog/kernel.lockKernel", "prog/kernel.syscall", "prog/kernel.Trap", "runtime.futex", "runtime.futexsleep", "runtime.notesleep"} {
		if _, ok := p.Funcs[want]; !ok {
			return nil, fmt.Errorf("%s: no symbol %s", path, want)
		}
	}
	return p, nil
}

// Func returns the named function ("main.leaf"); it panics on a name the
// program does not have, which is a bug in the test.
func (p *Program) Func(name string) Symbol {
	s, ok := p.Funcs[name]
	if !ok {
		panic("profiletest: no function " + name)
	}
	return s
}

// Inst is one decoded instruction of the program.
type Inst struct {
	PC     uint64
	Len    int
	Text   string // Go syntax
	Call   bool
	Target uint64 // of a direct call
}

// Code disassembles one function.
func (p *Program) Code(name string) []Inst {
	s := p.Func(name)
	b := p.text[s.Entry-p.addr : s.End-p.addr]
	var out []Inst
	for i := 0; i < len(b); {
		pc := s.Entry + uint64(i)
		switch p.Arch {
		case "amd64":
			in, err := x86asm.Decode(b[i:], 64)
			if err != nil {
				return out
			}
			ins := Inst{PC: pc, Len: in.Len, Text: x86asm.GoSyntax(in, pc, nil), Call: in.Op == x86asm.CALL}
			if rel, ok := in.Args[0].(x86asm.Rel); ok && ins.Call {
				ins.Target = pc + uint64(in.Len) + uint64(int64(rel))
			}
			out = append(out, ins)
			i += in.Len
		case "arm64":
			if len(b)-i < 4 {
				return out
			}
			in, err := arm64asm.Decode(b[i : i+4])
			if err != nil {
				i += 4
				continue
			}
			ins := Inst{PC: pc, Len: 4, Text: arm64asm.GoSyntax(in, pc, nil, nil), Call: in.Op == arm64asm.BL}
			if rel, ok := in.Args[0].(arm64asm.PCRel); ok && ins.Call {
				ins.Target = pc + uint64(int64(rel))
			}
			out = append(out, ins)
			i += 4
		default:
			return out
		}
	}
	return out
}

// ReturnAddress returns the address after caller's first direct call to
// callee: the return address a call from caller to callee leaves.
func (p *Program) ReturnAddress(caller, callee string) uint64 {
	target := p.Func(callee).Entry
	for _, in := range p.Code(caller) {
		if in.Call && in.Target == target {
			return in.PC + uint64(in.Len)
		}
	}
	panic(fmt.Sprintf("profiletest: %s does not call %s", caller, callee))
}

// InlinedPC returns the first instruction of outer whose innermost frame
// is inner, inlined.
func (p *Program) InlinedPC(outer, inner string) uint64 {
	for _, in := range p.Code(outer) {
		if fr, ok := p.table.Lookup(uintptr(in.PC)); ok && fr.Inlined && string(fr.Name) == inner {
			return in.PC
		}
	}
	panic(fmt.Sprintf("profiletest: nothing of %s is inlined into %s", inner, outer))
}

// Find returns the first instruction of a function whose text starts with
// prefix ("PUSHQ BP", "RET").
func (p *Program) Find(name, prefix string) Inst {
	for _, in := range p.Code(name) {
		if len(in.Text) >= len(prefix) && in.Text[:len(prefix)] == prefix {
			return in
		}
	}
	panic(fmt.Sprintf("profiletest: no %q in %s", prefix, name))
}
