package agent

import (
	"runtime"
	"syscall"
	"unsafe"

	"github.com/unitrace/unitrace/trace"
	"github.com/unitrace/unitrace/trace/ctl"
	"github.com/unitrace/unitrace/trace/record"
)

// The goroutines command: the stacks snapshot (every CPU and thread), then the kernel's
// snapshot of every goroutine (trace.CtlGoroutines, trace/goroutinesnap.go), checked and
// replied as JSON with addresses as plain numbers, for the host to symbolize and name
// (internal/threadsnap).

// maxGoroutineEntries bounds the kernel's snapshot the agent asks for, and maxGoroutineReply
// what goes into the reply: one frame of JSON holds about that many goroutines with their
// stacks. Past it the reply says how many there were.
const (
	maxGoroutineEntries = 8192
	maxGoroutineReply   = 2000
)

// goroutinesReply is the reply's "goroutines" object.
type goroutinesReply struct {
	Total int              `json:"total"` // goroutines the runtime's list held
	List  []goroutineReply `json:"list"`  // the first of them, in the list's order
}

// goroutineReply is one goroutine. Reason is the runtime's wait reason as a number (the host
// names it from the image); Syscall the system call's number, -1 for none.
type goroutineReply struct {
	ID          uint64   `json:"id"`
	State       string   `json:"state"`
	Reason      uint8    `json:"reason"`
	Wait        string   `json:"wait,omitempty"`
	ThreadState string   `json:"thread_state,omitempty"`
	TID         uint32   `json:"tid"`
	Syscall     int64    `json:"syscall"`
	WaitNs      uint64   `json:"wait_ns"`
	GoPC        uint64   `json:"gopc"`
	StartPC     uint64   `json:"startpc"`
	OnCPU       bool     `json:"on_cpu"`
	Raced       bool     `json:"raced"`
	PCExact     bool     `json:"pc_exact"`
	WalkStop    bool     `json:"walk_stop"`
	Truncated   bool     `json:"truncated"`
	SP          uint64   `json:"sp"`
	FP          uint64   `json:"fp"`
	LR          uint64   `json:"lr"`
	W0          uint64   `json:"w0"`
	W1          uint64   `json:"w1"`
	Stack       []uint64 `json:"stack"` // as a GOROUTINE record's: marks included
}

var goroutineStates = [...]string{1: "runnable", 2: "running", 3: "syscall", 4: "waiting"}

// goroutinesCmd runs the goroutines command.
func goroutinesCmd(resp *response) ctl.Err {
	if e := stacks(resp); e != ctl.ErrNone {
		return e
	}
	buf := make([]byte, maxGoroutineEntries*trace.GoroutineEntrySize)
	n, _, errno := syscall.Syscall(trace.SysCtl, trace.CtlGoroutines, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
	runtime.KeepAlive(buf) // the kernel stored into it during the call
	if errno != 0 {
		resp.Stacks = nil
		return stacksCallError(errno)
	}
	entries, err := trace.DecodeGoroutines(buf, min(int(n), maxGoroutineEntries))
	if err != nil {
		resp.Stacks, resp.detail = nil, err.Error()
		return ctl.ErrBadSnapshot
	}
	g := &goroutinesReply{Total: int(n), List: []goroutineReply{}}
	for i := range entries[:min(len(entries), maxGoroutineReply)] {
		e := &entries[i]
		stack := e.Frames
		if stack == nil {
			stack = []uint64{}
		}
		walk := record.Flags(e.Flags)
		g.List = append(g.List, goroutineReply{ID: e.ID, State: goroutineStates[e.State], Reason: e.Reason, Wait: e.Wait.String(),
			TID: e.TID, Syscall: int64(e.Syscall) - 1, WaitNs: e.WaitNs, GoPC: e.GoPC, StartPC: e.StartPC,
			OnCPU: e.Flags&trace.GoroutineOnCPU != 0, Raced: e.Flags&trace.GoroutineRaced != 0, PCExact: walk&record.PC0Exact != 0,
			WalkStop: walk&record.WalkStop != 0, Truncated: walk&record.StackTrunc != 0,
			SP: e.SP, FP: e.FP, LR: e.LR, W0: e.W0, W1: e.W1, Stack: stack, ThreadState: threadStateName(e.ThreadState)})
	}
	resp.Goroutines = g
	return ctl.ErrNone
}

func threadStateName(s trace.StackState) string {
	if s == 0 {
		return ""
	}
	return s.String()
}
