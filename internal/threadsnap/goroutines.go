package threadsnap

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/unitrace/unitrace/internal/profile"
	"github.com/unitrace/unitrace/trace/record"
	"github.com/unitrace/unitrace/trace/wire"
)

// Goroutine is one goroutine of a goroutines reply (stacks -g), as the kernel read it from the
// runtime's list without stopping the program.
type Goroutine struct {
	ID          uint64 `json:"id"`
	State       string `json:"state"`  // runnable, running, syscall, waiting
	Reason      uint8  `json:"reason"` // the runtime's wait reason (waiting): an index into the image's names
	Wait        string `json:"wait"`   // what its thread waits on in the kernel ("" for nothing)
	ThreadState string `json:"thread_state"`
	TID         uint32 `json:"tid"`     // its thread, 0 for none
	Syscall     int64  `json:"syscall"` // the system call its thread is in, -1 for none
	WaitNs      uint64 `json:"wait_ns"` // how long in this state, as far as the kernel knows (0: not known)
	GoPC        uint64 `json:"gopc"`
	StartPC     uint64 `json:"startpc"`
	OnCPU       bool   `json:"on_cpu"` // its thread runs on a CPU: its stack is the thread's entry's
	Raced       bool   `json:"raced"`  // it changed while it was read: no stack
	PCExact     bool   `json:"pc_exact"`
	WalkStop    bool   `json:"walk_stop"`
	Truncated   bool   `json:"truncated"`
	SP          uint64 `json:"sp"`
	FP          uint64 `json:"fp"`
	LR          uint64 `json:"lr"`
	W0          uint64 `json:"w0"`
	W1          uint64 `json:"w1"`
	// Words is the stack as the GOROUTINE record's: the resume pc and its callers, or a blocked
	// thread's kernel path, StackMarkThread, the thread's exact pc and its callers.
	Words []uint64 `json:"stack"`

	// Set by Symbolize: the names of the wait reason and the system call, the stack as an
	// entry's (Entry.Stack), and where the goroutine was created.
	ReasonName, SyscallName string  `json:"-"`
	Entry                   Entry   `json:"-"`
	CreatedBy               []Frame `json:"-"`
}

func (g *Goroutine) check() error {
	switch {
	case g.ID == 0:
		return errors.New("goroutine id 0")
	case !slices.Contains([]string{"runnable", "running", "syscall", "waiting"}, g.State):
		return fmt.Errorf("goroutine %d: unknown state %q", g.ID, g.State)
	case len(g.Words) > 2*maxDepth:
		return fmt.Errorf("goroutine %d: %d stack words", g.ID, len(g.Words))
	}
	return nil
}

// entry lays the goroutine's stack out as an Entry's: a thread's context with its kernel path
// and exact pc, or the goroutine's own resume pc (a return address) and callers.
func (g *Goroutine) entry() Entry {
	e := Entry{TID: int32(g.TID), State: g.State, Wait: g.Wait, SP: g.SP, FP: g.FP, LR: g.LR, W0: g.W0, W1: g.W1,
		WalkStop: g.WalkStop, Truncated: g.Truncated}
	words := g.Words
	if i := slices.Index(words, record.StackMarkThread); i >= 0 && i+1 < len(words) {
		e.KernelFrames, e.PC, e.Frames = words[:i], words[i+1], words[i+2:]
		return e
	}
	if g.PCExact && len(words) > 0 {
		e.PC, e.Frames = words[0], words[1:]
		return e
	}
	e.Frames = words // the resume pc is a return address (gopark's call): no leaf to fix
	return e
}

// symbolizeGoroutines names what the goroutines wait for and symbolizes their stacks.
func symbolizeGoroutines(s *Snapshot, im *profile.Image) {
	threads := map[int32]*Entry{}
	for i := range s.Threads {
		threads[s.Threads[i].TID] = &s.Threads[i]
	}
	for i := range s.Goroutines {
		g := &s.Goroutines[i]
		if g.State == "waiting" {
			g.ReasonName = im.WaitReason(g.Reason)
		}
		if g.Syscall >= 0 {
			arch := wire.ArchAMD64
			if s.Arch == "arm64" {
				arch = wire.ArchARM64
			}
			g.SyscallName = profile.SyscallName(arch, uint64(g.Syscall))
		}
		if t := threads[int32(g.TID)]; g.OnCPU && t != nil {
			g.Entry = *t // the thread's entry, symbolized already: its CPU captured it
		} else {
			g.Entry = g.entry()
			symbolizeEntry(im, &g.Entry)
		}
		if g.GoPC != 0 && g.ID != 1 { // the main goroutine's creator is the runtime's start-up, which the runtime's dump leaves out too
			g.CreatedBy = word(im, g.GoPC, false).Frames
		}
	}
}

// FormatGoroutines prints the goroutines as the runtime's own dump does, innermost first,
// with what the kernel knows beside:
//
//	goroutine 7 [chan receive]: waiting 1.5s
//	  0x4a1b20 runtime.gopark+0xce  /usr/local/go/src/runtime/proc.go:460
//	  ...
//	  created by main.main  /x/main.go:30
//	goroutine 9 [syscall]: read, its thread 3 blocked on pipe
//
// The bracket holds the runtime's wait reason, or its state when it is not waiting.
func FormatGoroutines(w io.Writer, s *Snapshot) error {
	for i := range s.Goroutines {
		g := &s.Goroutines[i]
		fmt.Fprintf(w, "goroutine %d [%s]:%s\n", g.ID, g.Bracket(), g.detail())
		writeStack(w, s, &g.Entry, !g.OnCPU)
		if len(g.CreatedBy) > 0 {
			f := g.CreatedBy[len(g.CreatedBy)-1]
			fmt.Fprintf(w, "  created by %s  %s:%d\n", f.Func, f.File, f.Line)
		}
	}
	if more := s.GoroutinesTotal - len(s.Goroutines); more > 0 {
		fmt.Fprintf(w, "(%d more goroutines: one reply holds %d)\n", more, len(s.Goroutines))
	}
	return nil
}

// Bracket is what the runtime's dump puts in brackets: the wait reason of a waiting goroutine
// (its number when the image has no names), else its state.
func (g *Goroutine) Bracket() string {
	if g.State != "waiting" {
		return g.State
	}
	if g.ReasonName != "" {
		return g.ReasonName
	}
	return fmt.Sprintf("wait reason %d", g.Reason)
}

func (g *Goroutine) detail() string {
	var parts []string
	if g.WaitNs > 0 {
		parts = append(parts, fmt.Sprintf("%s %v", g.State, time.Duration(g.WaitNs).Round(time.Millisecond)))
	}
	if g.SyscallName != "" {
		parts = append(parts, g.SyscallName)
	}
	if g.TID != 0 {
		t := fmt.Sprintf("its thread %d", g.TID)
		switch {
		case g.OnCPU:
			t += " on a CPU"
		case g.ThreadState != "":
			t += " " + g.ThreadState
		}
		if g.Wait != "" {
			t += " on " + g.Wait
		}
		parts = append(parts, t)
	}
	if g.Raced {
		parts = append(parts, "changed while read: no stack")
	}
	if len(parts) == 0 {
		return ""
	}
	return " " + strings.Join(parts, ", ")
}
