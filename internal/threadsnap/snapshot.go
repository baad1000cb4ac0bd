package threadsnap

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/unitrace/unitrace/internal/profile"
)

// The guest's limits: maxCPUs and maxDepth (tools import no guest package).
const (
	maxCPUs  = 64
	maxDepth = 64
)

// Snapshot is one stacks reply: every CPU, then every live thread.
type Snapshot struct {
	Arch      string  `json:"arch"`     // "amd64", "arm64"; "" if the guest did not say
	BuildID   string  `json:"build_id"` // the guest image's GNU build id, hex; "" if unknown
	TextStart uint64  `json:"text_start"`
	CPUs      []Entry `json:"cpus"`    // sorted by CPU
	Threads   []Entry `json:"threads"` // sorted by thread id
	// Unanswered are the CPUs that did not answer the capture IPI.
	Unanswered []int `json:"unanswered"`
	// Symbolized says Symbolize filled the entries' Stack.
	Symbolized bool `json:"-"`

	// Goroutines are the goroutines command's (stacks -g): every goroutine the runtime's list
	// held, as the kernel read them, up to the reply's cap; GoroutinesTotal how many there
	// were. HasGoroutines says the reply was the goroutines command's.
	Goroutines      []Goroutine `json:"-"`
	GoroutinesTotal int         `json:"-"`
	HasGoroutines   bool        `json:"-"`
}

// Entry is one CPU or thread. A CPU's TID is the thread it runs, 0 for none.
type Entry struct {
	CPU       int32    `json:"cpu"` // a thread's: where it runs or last ran, -1 for never
	TID       int32    `json:"tid"`
	Gen       uint32   `json:"gen"` // the thread slot's generation
	Slot      uint32   `json:"slot"`
	State     string   `json:"state"` // running, runnable, blocked, never-run, idle, no-answer, halted, in-kernel
	Wait      string   `json:"wait"`  // what a blocked thread waits for: futex, sleep, epoll, ...
	PC        uint64   `json:"pc"`    // the leaf: the context's own instruction
	SP        uint64   `json:"sp"`
	FP        uint64   `json:"fp"`
	LR        uint64   `json:"lr"`
	W0        uint64   `json:"w0"`
	W1        uint64   `json:"w1"`
	Ticks     uint64   `json:"ticks"`
	StackKind string   `json:"stack_kind"`
	ByIPI     bool     `json:"by_ipi"`    // captured on its CPU by an IPI
	Saved     bool     `json:"saved"`     // the thread's saved context
	NoWalk    bool     `json:"no_walk"`   // no frame-pointer walk was tried
	WalkStop  bool     `json:"walk_stop"` // a frame check failed and ended the walk
	Truncated bool     `json:"truncated"` // the walk reached the depth cap
	Frames    []uint64 `json:"frames"`    // return addresses, callers of PC, innermost first
	// KernelFrames is, for a blocked thread, the kernel's path that blocked it (return
	// addresses, innermost first), above PC: the kernel keeps no stack for a blocked thread.
	KernelFrames []uint64 `json:"kernel_frames,omitempty"`

	// Stack is the symbolized stack (Symbolize): the kernel's path (Kernel words), the leaf, a
	// recovered caller if any, then one word per frame.
	Stack []Word `json:"-"`
	// LeafFix says whether the leaf's caller was recovered, and if not, why.
	LeafFix profile.FixResult `json:"-"`
}

// Word is one stack word and the logical frames at it.
type Word struct {
	PC        uint64
	Exact     bool // the leaf: looked up at PC itself, not PC-1
	Recovered bool // the caller of a frameless leaf, which the frame-pointer chain skipped
	// Table marks a return address the guest's walk found by the image's SP-delta tables
	// (record.StackMarkTable), where the frame-pointer chain could not be trusted.
	Table  bool
	Kernel bool // the kernel's path that blocked the thread
	// Signal marks the pc a signal interrupted (exact), read from the signal frame: the words
	// before it are the handler's, the ones after it its callers.
	Signal bool
	Frames []Frame
}

// Frame is one logical frame, innermost first; all but the last of a word are inlined.
type Frame struct {
	Func    string // "?" when no function holds the address
	Offset  uint64 // PC minus the entry of the physical function (not for inlined frames)
	File    string
	Line    int
	Inlined bool
	Known   bool
}

// RefusedError is a reply in which the guest refused the command; Message is its text.
type RefusedError struct{ Message string }

func (e *RefusedError) Error() string { return "the guest refused: " + e.Message }

// Parse decodes a RESP payload of the stacks command. A reply with an error gives a
// *RefusedError. Entries are sorted: CPUs by number, threads by id.
func Parse(respJSON []byte) (*Snapshot, error) {
	var r struct {
		OK         bool      `json:"ok"`
		Error      string    `json:"error"`
		Stacks     *Snapshot `json:"stacks"`
		Goroutines *struct {
			Total int         `json:"total"`
			List  []Goroutine `json:"list"`
		} `json:"goroutines"`
	}
	if err := json.Unmarshal(respJSON, &r); err != nil {
		return nil, fmt.Errorf("stacks reply: %w", err)
	}
	switch {
	case r.Error != "":
		return nil, &RefusedError{r.Error}
	case !r.OK || r.Stacks == nil:
		return nil, errors.New("stacks reply: neither ok with a snapshot nor an error")
	}
	s := r.Stacks
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("stacks reply: %w", err)
	}
	if g := r.Goroutines; g != nil {
		s.Goroutines, s.GoroutinesTotal, s.HasGoroutines = g.List, g.Total, true
		for i := range s.Goroutines {
			if err := s.Goroutines[i].check(); err != nil {
				return nil, fmt.Errorf("goroutines reply: entry %d: %w", i, err)
			}
			s.Goroutines[i].Entry = s.Goroutines[i].entry()
		}
	}
	slices.SortStableFunc(s.CPUs, func(a, b Entry) int { return cmp.Compare(a.CPU, b.CPU) })
	slices.SortStableFunc(s.Threads, func(a, b Entry) int {
		return cmp.Or(cmp.Compare(a.TID, b.TID), cmp.Compare(a.Gen, b.Gen))
	})
	return s, nil
}

// check refuses what the agent never sends: it decoded the kernel's snapshot strictly
// (trace.DecodeStacks), so anything else is not its reply. Unknown states and waits are
// kept: a newer kernel may add some, and Format prints them as they are.
func (s *Snapshot) check() error {
	for i, e := range s.CPUs {
		if e.CPU < 0 || e.CPU >= maxCPUs || e.State == "" || len(e.Frames) > maxDepth {
			return fmt.Errorf("cpu entry %d (cpu %d, state %q, %d frames) is malformed", i, e.CPU, e.State, len(e.Frames))
		}
	}
	for i, e := range s.Threads {
		if e.TID <= 0 || e.CPU < -1 || e.CPU >= maxCPUs || e.State == "" || len(e.Frames)+len(e.KernelFrames) > maxDepth {
			return fmt.Errorf("thread entry %d (tid %d, cpu %d, state %q, %d frames) is malformed", i, e.TID, e.CPU, e.State, len(e.Frames))
		}
	}
	return nil
}
