package threadsnap

import (
	"fmt"

	"github.com/unitrace/unitrace/internal/profile"
	"github.com/unitrace/unitrace/internal/tracefile"
	"github.com/unitrace/unitrace/trace/record"
	"github.com/unitrace/unitrace/trace/wire"
)

// Symbolize looks every entry's stack up in the image at elfPath. The image must be the one
// the guest runs: when the reply names a GNU build id or an architecture, a different one is
// an error (wrapping tracefile.ErrBuildID for the build id).
func Symbolize(s *Snapshot, elfPath string) error {
	im, err := profile.OpenImage(elfPath)
	if err != nil {
		return err
	}
	return SymbolizeImage(s, im, false)
}

// SymbolizeImage is Symbolize with an opened image; force skips the build id and
// architecture checks.
func SymbolizeImage(s *Snapshot, im *profile.Image, force bool) error {
	if !force {
		if id := tracefile.BuildIDHex(im.BuildID); s.BuildID != "" && id != s.BuildID {
			return fmt.Errorf("%s has GNU build id %q, the guest runs %q: %w (pass the right image; -force symbolizes anyway)",
				im.Path, id, s.BuildID, tracefile.ErrBuildID)
		}
		if s.Arch != "" && s.Arch != im.Arch.String() {
			return fmt.Errorf("%s is an %s image, the guest is %s", im.Path, im.Arch, s.Arch)
		}
	}
	im.Adopt(&wire.Hello{TextStart: s.TextStart})
	for i := range s.CPUs {
		symbolizeEntry(im, &s.CPUs[i])
	}
	for i := range s.Threads {
		symbolizeEntry(im, &s.Threads[i])
	}
	symbolizeGoroutines(s, im)
	s.Symbolized = true
	return nil
}

func symbolizeEntry(im *profile.Image, e *Entry) {
	e.Stack, e.LeafFix = nil, profile.FixOff
	for _, pc := range e.KernelFrames {
		w := word(im, pc, false)
		w.Kernel = true
		e.Stack = append(e.Stack, w)
	}
	if e.PC != 0 {
		e.Stack = append(e.Stack, word(im, e.PC, true))
		if len(e.Frames) > 0 && e.Frames[0] == record.StackMarkTable {
			e.LeafFix = profile.FixInGuest // the kernel stepped the leaf by the tables
		} else if !e.NoWalk {
			ra, res := profile.LeafCaller(im.Arch, im, profile.Regs{PC: e.PC, SP: e.SP, FP: e.FP, LR: e.LR, W0: e.W0, W1: e.W1})
			e.LeafFix = res
			// A kernel that recovered the caller itself already put it first.
			if res == profile.FixApplied && (len(e.Frames) == 0 || e.Frames[0] != ra) {
				w := word(im, ra, false)
				w.Recovered = true
				e.Stack = append(e.Stack, w)
			}
		}
	}
	signal, table := false, false
	for _, pc := range e.Frames {
		switch pc {
		case record.StackMarkSignal: // the interrupted pc follows
			signal = true
			continue
		case record.StackMarkTable: // a return address the tables found follows
			table = true
			continue
		}
		w := word(im, pc, signal)
		w.Signal, w.Table, signal, table = signal, table, false, false
		e.Stack = append(e.Stack, w)
	}
}

// word symbolizes one stack word: the leaf (exact) at pc, a return address inside its call.
func word(im *profile.Image, pc uint64, exact bool) Word {
	w := Word{PC: pc, Exact: exact}
	for _, f := range im.Frames(pc, exact) {
		fr := Frame{Func: f.Func, File: f.File, Line: f.Line, Inlined: f.Inlined, Known: f.Known}
		if !f.Known {
			fr.Func = "?"
		}
		if f.Known && !f.Inlined {
			look := pc
			if !exact {
				look = im.CallPC(pc) // the function holding the call, as Frames found it
			}
			if fn, ok := im.Func(look); ok {
				fr.Offset = pc - fn.Entry
			}
		}
		w.Frames = append(w.Frames, fr)
	}
	return w
}
