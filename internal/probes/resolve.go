package probes

import (
	"fmt"
	"strings"

	"github.com/unitrace/unitrace/probe"
	"github.com/unitrace/unitrace/symtab"
)

// Target is one function a spec matched, with its sites or why it cannot be probed.
type Target struct {
	Func    Func // for an inlined body, the caller's extent with the callee's name
	Inlined bool // a body the compiler inlined into Func's code
	Sites   []probe.Site
	Err     error // refused: Sites is empty
}

// Options say what a probe's hits record beyond the registers.
type Options struct {
	// StringBytes is how many bytes of each string argument (at an entry) or result (at a
	// return) a hit copies, up to probe.MaxStringBytes, for the first probe.MaxStrings of them
	// that the ABI passes in registers; 0 copies none.
	StringBytes int
}

// Resolve finds the functions spec names and each one's sites: its own code's, and for an entry
// probe the start of each of its bodies the compiler inlined into a caller, so that the count is
// the calls as written. A spec that names no function is an error; a function that cannot be
// probed, or an inlined body, is a Target with Err set, so that a glob still probes the others
// (the caller says which were refused).
func Resolve(im *Image, spec Spec, opt Options) ([]Target, error) {
	var out []Target
	for _, f := range im.Funcs {
		if !spec.Matches(f.Name) {
			continue
		}
		t := Target{Func: f}
		t.Sites, t.Err = im.Sites(f, spec.Return)
		if opt.StringBytes > 0 {
			im.copyStrings(f.Name, t.Sites, opt.StringBytes)
		}
		out = append(out, t)
	}
	if !spec.Return {
		out = append(out, im.inlinedTargets(spec)...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("probe %s: no function of the image matches", spec)
	}
	return out, nil
}

// prologueLen bounds how far from the entry the stack-growth check may end, in instructions
// (arm64's check of a large frame is six), and frameSetupLen how many frame-building stores may
// come before the entry site.
const (
	prologueLen   = 8
	frameSetupLen = 3
	// morestackBlockLen bounds the instructions of a stack-growth block before its call of
	// runtime.morestack (the spills of the argument registers come first).
	morestackBlockLen = 64
)

// Sites returns f's entry site, or with ret its return sites and its entry as a call entry
// (probe.KindCallEntry) when it has one.
func (im *Image) Sites(f Func, ret bool) ([]probe.Site, error) {
	if p, ok := probe.Denied([]byte(f.Name)); ok {
		return nil, fmt.Errorf("%s is on the deny list (%s*): the probe's own handling runs it", f.Name, p)
	}
	insts, err := im.disassemble(f)
	if err != nil {
		return nil, err
	}
	if ret {
		sites, err := im.returnSites(f, insts)
		if err != nil {
			return nil, err
		}
		// The entry too, to pair each return with its call: its time and its arguments. A
		// function whose entry cannot be probed still has its returns counted.
		if e, err := im.entrySite(f, insts); err == nil {
			e.Kind = probe.KindCallEntry
			sites = append(sites, e)
		}
		return sites, nil
	}
	s, err := im.entrySite(f, insts)
	if err != nil {
		return nil, err
	}
	return []probe.Site{s}, nil
}

// disassemble decodes f from its entry to its end.
func (im *Image) disassemble(f Func) ([]inst, error) {
	code := im.Code(f.Entry, f.End)
	if code == nil {
		return nil, fmt.Errorf("%s: its code is outside .text", f.Name)
	}
	var insts []inst
	for off := 0; off < len(code); {
		in, err := im.decode(f.Entry+uint64(off), code[off:])
		if err != nil {
			return nil, fmt.Errorf("%s: disassembling: %w", f.Name, err)
		}
		insts = append(insts, in)
		off += in.len
	}
	return insts, nil
}

// entrySite finds the entry site: past the stack-growth check, the first instruction the kernel
// emulates, with only frame-building stores before it.
func (im *Image) entrySite(f Func, insts []inst) (probe.Site, error) {
	start := im.stackCheckEnd(insts)
	for i := start; i < len(insts) && i < start+frameSetupLen+1; i++ {
		if s, ok := im.site(insts[i], probe.KindEntry); ok {
			return s, nil
		}
		if insts[i].class != classFrameStore {
			break
		}
	}
	if start >= len(insts) {
		return probe.Site{}, fmt.Errorf("%s: no instruction after its stack check", f.Name)
	}
	return probe.Site{}, fmt.Errorf("%s: no instruction at its entry that the kernel can emulate (first: %s); the kernel emulates register moves and adds, never stores",
		f.Name, insts[start].text)
}

// stackCheckEnd returns the index of the first instruction after f's stack-growth check (0 for
// a function without one). The check is the prologue's conditional branches to the block that
// calls runtime.morestack (one, or two for a large frame's overflow test on amd64; arm64's
// large frame has two too): the first such branch names the block, and the check ends after
// the last branch to it.
func (im *Image) stackCheckEnd(insts []inst) int {
	end, block := 0, uint64(0)
	for i := 0; i < len(insts) && i < prologueLen; i++ {
		in := insts[i]
		if in.class != classCondBranch {
			continue
		}
		if block == 0 && im.callsMorestack(insts, in.target) {
			block = in.target
		}
		if block != 0 && in.target == block {
			end = i + 1
		}
	}
	return end
}

// callsMorestack reports whether the block at target calls runtime.morestack* before it
// returns or jumps: then a branch to it is the stack-growth check's.
func (im *Image) callsMorestack(insts []inst, target uint64) bool {
	for i, in := range insts {
		if in.pc != target {
			continue
		}
		for _, b := range insts[i:min(len(insts), i+morestackBlockLen)] {
			switch b.class {
			case classCall:
				callee, ok := im.FuncAt(b.target)
				return ok && strings.HasPrefix(callee.Name, "runtime.morestack")
			case classRet, classJump:
				return false
			}
		}
		return false
	}
	return false
}

// returnSites returns a site on each of f's return instructions.
func (im *Image) returnSites(f Func, insts []inst) ([]probe.Site, error) {
	var sites []probe.Site
	for _, in := range insts {
		if in.class != classRet {
			continue
		}
		s, ok := im.site(in, probe.KindReturn)
		if !ok {
			return nil, fmt.Errorf("%s: the return at %#x (%s) is not one the kernel emulates", f.Name, in.pc, in.text)
		}
		sites = append(sites, s)
	}
	if len(sites) == 0 {
		return nil, fmt.Errorf("%s has no return instruction (it never returns, or ends in a jump to another function)", f.Name)
	}
	return sites, nil
}

// site makes a site of kind at in, if the kernel emulates it as such.
func (im *Image) site(in inst, kind probe.Kind) (probe.Site, bool) {
	code := im.Code(in.pc, in.pc+uint64(in.len))
	d, ok := probe.Decode(im.Arch, code)
	if !ok || int(d.Len) != in.len || in.len > probe.MaxInsnLen || (kind == probe.KindReturn) != (d.Op == probe.OpRet) {
		return probe.Site{}, false
	}
	s := probe.Site{PC: in.pc, Len: d.Len, Kind: kind, Arch: im.Arch}
	copy(s.Code[:], code)
	return s, true
}

// inlinedTargets returns a target for each inlined body of a function spec names, from the
// inline trees of every function: its site is the body's start (symtab.InlinedCall.BodyStart),
// its first instruction in address order. The Target's Func is the caller's, with the callee's
// name.
func (im *Image) inlinedTargets(spec Spec) []Target {
	var out []Target
	var calls []symtab.InlinedCall
	for _, f := range im.Funcs {
		calls = im.table.InlinedCalls(uintptr(f.Entry), calls[:0])
		for _, c := range calls {
			name := string(c.Name)
			if !spec.Matches(name) {
				continue
			}
			t := Target{Func: Func{Name: name, Entry: f.Entry, End: f.End}, Inlined: true}
			if p, ok := probe.Denied([]byte(f.Name)); ok {
				t.Err = fmt.Errorf("%s inlined into %s, which is on the deny list (%s*)", name, f.Name, p)
				out = append(out, t)
				continue
			}
			pc := uint64(c.BodyStart)
			first := "nothing"
			if in, err := im.decode(pc, im.Code(pc, min(pc+16, f.End))); err == nil {
				first = in.text
				if s, ok := im.site(in, probe.KindEntry); ok {
					t.Sites = []probe.Site{s}
				}
			}
			if t.Sites == nil {
				t.Err = fmt.Errorf("%s inlined into %s: its body starts with %s, which the kernel cannot emulate", name, f.Name, first)
			}
			out = append(out, t)
		}
	}
	return out
}

// copyStrings has sites copy the string arguments (entry sites) or results (return sites) of
// the function called name, as its DWARF says the ABI passes them.
func (im *Image) copyStrings(name string, sites []probe.Site, n int) {
	ps := im.Params(name, probe.IntRegs(im.Arch), probe.FloatRegs(im.Arch))
	for i := range sites {
		s := &sites[i]
		s.StringBytes = uint8(min(n, probe.MaxStringBytes))
		for _, p := range ps {
			if p.Result != (s.Kind == probe.KindReturn) || !isString(p) || int(s.NStrings) >= probe.MaxStrings {
				continue
			}
			s.Strings[s.NStrings] = probe.StringRegs{Ptr: uint8(p.Ints[0]), Len: uint8(p.Ints[1])}
			s.NStrings++
		}
		if s.NStrings == 0 {
			s.StringBytes = 0
		}
	}
}
