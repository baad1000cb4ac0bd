package agent

import (
	"encoding/hex"
	"strconv"
	"syscall"

	"github.com/unitrace/unitrace/trace"
	"github.com/unitrace/unitrace/trace/ctl"
	"github.com/unitrace/unitrace/trace/record"
	"github.com/unitrace/unitrace/trace/wire"
)

// The stacks command: the kernel writes a snapshot of every CPU and thread (trace.CtlStacks,
// trace/threadsnap.go) into a buffer of the agent's; the agent checks it and replies with it as
// JSON, addresses as plain numbers, for the host to symbolize (internal/threadsnap).

// stacksReply is the reply's "stacks" object.
type stacksReply struct {
	Arch string `json:"arch,omitempty"`
	// BuildID and TextStart let the host check that it symbolizes with the running image.
	BuildID   string       `json:"build_id,omitempty"`
	TextStart uint64       `json:"text_start,omitempty"`
	CPUs      []stackReply `json:"cpus"`
	Threads   []stackReply `json:"threads"`
	// Unanswered are the CPUs that did not answer the capture IPI: their threads' stacks are
	// missing or stale.
	Unanswered []int `json:"unanswered"`
}

// stackReply is one CPU or thread. A CPU's tid is the thread it runs (0: none).
type stackReply struct {
	CPU       int32    `json:"cpu"`
	TID       int32    `json:"tid"`
	Gen       uint32   `json:"gen"`
	Slot      uint32   `json:"slot"`
	State     string   `json:"state"`
	Wait      string   `json:"wait,omitempty"`
	PC        uint64   `json:"pc"` // the leaf, exact: look it up as is
	SP        uint64   `json:"sp"`
	FP        uint64   `json:"fp"`
	LR        uint64   `json:"lr"`
	W0        uint64   `json:"w0"`
	W1        uint64   `json:"w1"`
	Ticks     uint64   `json:"ticks"`
	StackKind string   `json:"stack_kind"`
	ByIPI     bool     `json:"by_ipi"`
	Saved     bool     `json:"saved"`
	NoWalk    bool     `json:"no_walk"`
	WalkStop  bool     `json:"walk_stop"`
	Truncated bool     `json:"truncated"`
	Frames    []uint64 `json:"frames"` // return addresses, callers of pc, innermost first
	// KernelFrames is, for a blocked thread, the kernel's path that blocked it: return
	// addresses, innermost first, above pc.
	KernelFrames []uint64 `json:"kernel_frames,omitempty"`
}

// stacks runs the stacks command.
func stacks(resp *response) ctl.Err {
	buf := make([]byte, trace.MaxStackEntries*trace.StackEntrySize)
	n, err := kernelStacks(buf)
	if err != nil {
		return stacksCallError(err)
	}
	var mask uint64
	if m, err := kernelCtlValue(trace.CtlUnanswered, 0, 0); err == nil {
		mask = m
	}
	b := trace.Boot()
	s, err := buildStacks(buf, n, mask, b.Arch, b.TextStart, trace.ImageBuildID())
	if err != nil {
		resp.detail = err.Error()
		return ctl.ErrBadSnapshot
	}
	resp.Stacks = s
	return ctl.ErrNone
}

// stacksCallError maps the kernel's refusal of CtlStacks to the reply's error: a kernel
// without the operation (or without the tracer) says EINVAL, ENOSYS or ENODEV.
func stacksCallError(err error) ctl.Err {
	switch err {
	case syscall.EINVAL, syscall.ENOSYS, syscall.ENODEV:
		return ctl.ErrUnavailable
	case syscall.ENOSPC:
		return ctl.ErrTooManyEntries
	}
	return ctl.ErrFailed
}

// buildStacks decodes n entries of the kernel's snapshot in buf into the reply object.
func buildStacks(buf []byte, n, unanswered uint64, arch wire.Arch, textStart uint64, buildID []byte) (*stacksReply, error) {
	if n > trace.MaxStackEntries {
		return nil, &trace.StacksError{Entry: -1, Why: "the kernel reported " + strconv.FormatUint(n, 10) +
			" entries, more than " + strconv.Itoa(trace.MaxStackEntries)}
	}
	entries, err := trace.DecodeStacks(buf, int(n))
	if err != nil {
		return nil, err
	}
	s := &stacksReply{BuildID: hex.EncodeToString(buildID), TextStart: textStart,
		CPUs: []stackReply{}, Threads: []stackReply{}, Unanswered: maskCPUs(unanswered)}
	if arch != wire.ArchUnknown {
		s.Arch = arch.String()
	}
	for i := range entries {
		r := entryReply(&entries[i])
		if entries[i].Kind == trace.EntryCPU {
			s.CPUs = append(s.CPUs, r)
		} else {
			s.Threads = append(s.Threads, r)
		}
	}
	return s, nil
}

func entryReply(e *trace.StackEntry) stackReply {
	kernel, frames := e.SplitKernelPath()
	if frames == nil {
		frames = []uint64{}
	}
	walk := record.Flags(e.Flags)
	return stackReply{
		CPU: e.CPU, TID: e.TID, Gen: e.Gen, Slot: e.Slot, State: e.State.String(), Wait: e.Wait.String(),
		PC: e.PC, SP: e.SP, FP: e.FP, LR: e.LR, W0: e.W0, W1: e.W1, Ticks: e.Ticks, StackKind: trace.StackKindName(e.StackKind),
		ByIPI: e.Flags&trace.StackByIPI != 0, Saved: e.Flags&trace.StackSaved != 0,
		NoWalk: e.Flags&trace.StackNoWalk != 0, WalkStop: walk&record.WalkStop != 0,
		Truncated: walk&record.StackTrunc != 0, Frames: frames, KernelFrames: kernel,
	}
}

// maskCPUs lists the CPUs whose bits are set, in order; empty, not nil, for none.
func maskCPUs(mask uint64) []int {
	cpus := []int{}
	for cpu := 0; cpu < 64; cpu++ {
		if mask&(1<<cpu) != 0 {
			cpus = append(cpus, cpu)
		}
	}
	return cpus
}

// crossCPU adds to a sampler reply how many CPUs there are and which did not acknowledge the
// request. A kernel without these operations leaves the reply as it was.
func crossCPU(resp *response) {
	if n, err := kernelCtlValue(trace.CtlCPUs, 0, 0); err == nil {
		resp.CPUs = &n
	}
	if m, err := kernelCtlValue(trace.CtlUnanswered, 0, 0); err == nil && m != 0 {
		resp.Unanswered = maskCPUs(m)
	}
}
