package profile

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"

	"golang.org/x/arch/arm64/arm64asm"
	"golang.org/x/arch/x86/x86asm"

	"github.com/unitrace/unitrace/trace/record"
	"github.com/unitrace/unitrace/trace/wire"
)

// TCGWarning is printed above annotated code recorded under TCG (or where
// the accelerator is not known).
const TCGWarning = "warning: recorded under TCG (or an unknown accelerator): QEMU takes interrupts only at translation-block boundaries, " +
	"so samples pile up on the first instruction of each block; per-instruction counts are coarse, function totals are right"

// UnderTCG reports whether the profile was (or may have been) recorded
// under TCG, where annotate's per-instruction counts are coarse.
func (p *Profile) UnderTCG() bool {
	return p.Accel != "kvm"
}

// ErrNoFunc is the cause of Annotate's error for a name no function has.
var ErrNoFunc = errors.New("no such function in the image")

// Annotate writes the disassembly of the functions named name (as
// FuncsNamed matches names) with the number of samples (weighted) whose
// exact pc was each instruction. Only exact leaf pcs count: return
// addresses say where a call will return to, not where time went. A sample
// taken in the kernel counts at the kernel's pc; the thread's pc it entered
// the kernel from is its leaf only with Options.FoldKernel, and otherwise
// each function says how many samples entered the kernel from it.
func Annotate(w io.Writer, p *Profile, name string) error {
	im := p.Image
	if im == nil {
		return fmt.Errorf("annotate: no image")
	}
	a := &annotation{hits: map[uint64]int{}, entered: map[uint64]int{}}
	funcs := map[uint64]Func{}
	for i := range p.Samples {
		s := &p.Samples[i]
		if s.Thread > 0 {
			if f, ok := im.Func(s.Stack[s.Thread].Addr); ok && nameMatches(f.Name, name) {
				a.entered[f.Entry] += s.Weight
				funcs[f.Entry] = f
			}
		}
		if len(s.Stack) == 0 {
			continue
		}
		leaf := s.Stack[0]
		f, ok := im.Func(leaf.Addr)
		if !ok || !nameMatches(f.Name, name) {
			continue
		}
		// With the kernel folded away, the leaf is the thread's pc: exact by its mark,
		// whatever the flags say about stack[0].
		fromTrapFrame := s.Flags&record.NoInterruptFrame == 0 || p.FoldKernel && s.InKernel
		if !leaf.Exact || !fromTrapFrame {
			a.inexact += s.Weight
			continue
		}
		a.hits[leaf.Addr] += s.Weight
		funcs[f.Entry] = f
	}
	for _, f := range im.FuncsNamed(name) {
		funcs[f.Entry] = f
	}
	if len(funcs) == 0 {
		return fmt.Errorf("%q: %w (names match whole, or after the last '.' or '/')", name, ErrNoFunc)
	}
	list := make([]Func, 0, len(funcs))
	for _, f := range funcs {
		list = append(list, f)
	}
	fhits := map[uint64]int{}
	for pc, n := range a.hits {
		for _, f := range list {
			if pc >= f.Entry && pc < f.End {
				fhits[f.Entry] += n
			}
		}
	}
	slices.SortFunc(list, func(x, y Func) int {
		return cmp.Or(cmp.Compare(fhits[y.Entry], fhits[x.Entry]), cmp.Compare(x.Entry, y.Entry))
	})
	bw := bufio.NewWriter(w)
	if p.UnderTCG() {
		fmt.Fprintln(bw, TCGWarning)
	}
	for _, f := range list {
		if err := annotateFunc(bw, p, f, a, fhits[f.Entry]); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// annotation is what Annotate counted, weighted: samples by exact leaf pc, samples of the
// functions without an exact pc, and by function entry the samples taken in the kernel that
// entered it from that function.
type annotation struct {
	hits    map[uint64]int
	inexact int
	entered map[uint64]int
}

// annotateFunc writes one function with its n exact samples.
func annotateFunc(w *bufio.Writer, p *Profile, f Func, a *annotation, n int) error {
	im := p.Image
	code, ok := im.Code(f.Entry, f.End)
	if !ok {
		return fmt.Errorf("%s: the image has no code bytes for [%#x, %#x)", f.Name, f.Entry, f.End)
	}
	file := ""
	if fr := im.Frames(f.Entry, true); len(fr) > 0 {
		file = fr[len(fr)-1].File
	}
	fmt.Fprintf(w, "\nROUTINE %s %s\n", f.Name, file)
	fmt.Fprintf(w, "  %d samples with an exact pc in this function (%s of %d samples)\n", n, pct(n, p.Deadlines), p.Deadlines)
	if a.inexact > 0 {
		fmt.Fprintf(w, "  %d samples without an exact pc are not attributed to instructions\n", a.inexact)
	}
	if k := a.entered[f.Entry]; k > 0 {
		fmt.Fprintf(w, "  %d samples were in the kernel, entered from this function (-fold-kernel counts them at the pcs it entered from)\n", k)
	}
	hits := a.hits
	insts := disassemble(im, code, f.Entry)
	// Drop the alignment padding after the last instruction the pc tables
	// cover, unless a sample (wrongly) landed there.
	for len(insts) > 0 {
		last := insts[len(insts)-1]
		if _, ok := im.SPDelta(last.pc); ok || countIn(hits, last.pc, last.size) > 0 {
			break
		}
		insts = insts[:len(insts)-1]
	}
	fmt.Fprintf(w, "  %7s %7s  %-12s %-24s %s\n", "count", "share", "address", "source", "instruction")
	for _, in := range insts {
		c := countIn(hits, in.pc, in.size)
		cnt, share := ".", ""
		if c > 0 {
			cnt, share = fmt.Sprint(c), pct(c, n)
		}
		src := ""
		if fr := im.Frames(in.pc, true); len(fr) > 0 && fr[0].File != "" {
			src = fmt.Sprintf("%s:%d", filepath.Base(fr[0].File), fr[0].Line)
		}
		fmt.Fprintf(w, "  %7s %7s  %#-12x %-24s %s\n", cnt, share, in.pc, src, in.text)
	}
	return nil
}

func countIn(hits map[uint64]int, pc uint64, size int) int {
	n := 0
	for a := pc; a < pc+uint64(size); a++ {
		n += hits[a]
	}
	return n
}

func pct(n, total int) string {
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(max(total, 1)))
}

type instruction struct {
	pc   uint64
	size int
	text string
}

// disassemble decodes code, loaded at pc, in Go assembler syntax. Bytes
// that do not decode show as "?" and take one byte (amd64) or one word.
func disassemble(im *Image, code []byte, pc uint64) []instruction {
	symname := func(addr uint64) (string, uint64) {
		if f, ok := im.Func(addr); ok {
			return f.Name, f.Entry
		}
		return "", 0
	}
	var out []instruction
	for i := 0; i < len(code); {
		at := pc + uint64(i)
		switch im.Arch {
		case wire.ArchAMD64:
			inst, err := x86asm.Decode(code[i:], 64)
			if err != nil || inst.Len == 0 {
				out = append(out, instruction{at, 1, fmt.Sprintf("? %#02x", code[i])})
				i++
				continue
			}
			out = append(out, instruction{at, inst.Len, x86asm.GoSyntax(inst, at, symname)})
			i += inst.Len
		case wire.ArchARM64:
			if len(code)-i < 4 {
				return out
			}
			inst, err := arm64asm.Decode(code[i : i+4])
			text := "?"
			if err == nil {
				text = arm64asm.GoSyntax(inst, at, symname, textReader{im})
			}
			out = append(out, instruction{at, 4, text})
			i += 4
		default:
			return out
		}
	}
	return out
}

// textReader reads the image's code at run-time addresses, for arm64's
// pc-relative literal loads.
type textReader struct{ im *Image }

func (r textReader) ReadAt(b []byte, off int64) (int, error) {
	code, ok := r.im.Code(uint64(off), uint64(off)+uint64(len(b)))
	if !ok {
		return 0, io.EOF
	}
	return copy(b, code), nil
}
