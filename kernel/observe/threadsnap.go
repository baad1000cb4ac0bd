package observe

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/sched"
	"github.com/unitrace/unitrace/trace"
)

// Stacks of every thread, as FreeBSD's stack_save_td gives them: a thread that is not running
// has its context saved in its slot, so its stack is walked from there; a thread running on
// another CPU is captured on that CPU, by an IPI whose handler records the frame it interrupted
// (the exact leaf pc, then the frame-pointer chain validated against that thread's own stack);
// a thread that has never run has no stack worth walking and says so. The snapshot goes to the
// agent's buffer (trace.CtlStacks) or, from the watchdog, to the console.
//
// While the requester holds the kernel lock no thread can start or stop running anywhere
// (switching threads takes the lock), so who runs where cannot change under the snapshot; only
// the running threads' registers and stacks move, and those are captured by their own CPUs.

// captured is what a CPU recorded for the capture request: the context of the thread it was
// running when the IPI came (or when it began to wait for the kernel lock).
type captured struct {
	seq     uint64 // the request it answers
	entry   capturedEntry
	nframes int
	frames  [trace.MaxDepth]uint64
}

// capturedEntry is the pointer-free part of a trace.StackEntry that CaptureFrame fills.
type capturedEntry struct {
	pc, sp, fp, lr, ticks uint64
	kind                  uint8
	flags                 trace.StackFlags
}

var captures [core.MaxCPUs]captured

// CaptureHere records the frame f interrupted on this CPU (a cross-CPU request). On the
// requesting CPU f is nil: its own thread is in the system call that asked, and its context is
// this kernel entry's frame.
func CaptureHere(f *machine.Frame) {
	cpu := machine.CPUIndex() & (core.MaxCPUs - 1)
	c := &captures[cpu]
	c.seq = core.Xcall.Seq.Load()
	c.nframes = 0
	c.entry = capturedEntry{}
	if f == nil {
		f = core.CurrentTrapFrame()
	}
	if f == nil || core.OnIdle() {
		return
	}
	var e trace.StackEntry
	c.nframes = trace.CaptureFrame(machine.AddrOfFrame(f), &e, &c.frames)
	c.entry = capturedEntry{pc: e.PC, sp: e.SP, fp: e.FP, lr: e.LR, ticks: e.Ticks, kind: e.StackKind, flags: e.Flags}
}

// snapshotStacks captures every CPU and thread into sink, under the kernel lock: first one entry
// per online CPU, then one per live thread. It returns the entries written, or -1 if the sink
// refused one (too small).
func snapshotStacks(sink *stackSink) int {
	unanswered := core.CrossCall(core.XcallCapture, 0)
	seq := core.Xcall.Seq.Load()
	me := machine.CPUIndex()
	count := 0
	var scratch [trace.MaxDepth]uint64
	for cpu := 0; cpu < core.NumCPUs; cpu++ {
		l := &core.CPULocals[cpu]
		if !l.Online.Load() {
			continue
		}
		cur := core.Scheduler.Current(cpu)
		e := trace.StackEntry{Kind: trace.EntryCPU, CPU: int32(cpu), Slot: uint32(cur)}
		switch {
		case l.Halted.Load():
			e.State = trace.StateHalted
		case core.IsIdleSlot(cur):
			e.State = trace.StateIdle
		case unanswered&(1<<uint(cpu)) != 0:
			e.State = trace.StateNoAnswer
		default:
			e.State = trace.StateRunning
		}
		if !core.IsIdleSlot(cur) {
			t := &core.Threads[cur]
			e.TID, e.Gen = t.Tid, t.Gen
		}
		if !sink.put(&e, &scratch, 0) {
			return -1
		}
		count++
	}
	for slot := int32(core.FirstThreadSlot); slot < core.MaxThreads; slot++ {
		t := &core.Threads[slot]
		state, tcpu := core.Scheduler.State(slot), core.Scheduler.CPU(slot)
		if state == sched.Free {
			continue
		}
		e := trace.StackEntry{Kind: trace.EntryThread, TID: t.Tid, Gen: t.Gen, CPU: tcpu, Slot: uint32(slot)}
		frames, n := &scratch, 0
		switch {
		case state == sched.Running:
			e.State = trace.StateRunning
			c := &captures[tcpu&(core.MaxCPUs-1)]
			if unanswered&(1<<uint(tcpu)) != 0 || c.seq != seq {
				e.Flags = trace.StackNoWalk // its CPU did not answer: no context to show
				break
			}
			ce := &c.entry
			e.PC, e.SP, e.FP, e.LR, e.Ticks, e.StackKind, e.Flags = ce.pc, ce.sp, ce.fp, ce.lr, ce.ticks, ce.kind, ce.flags
			if int(tcpu) != me {
				e.Flags |= trace.StackByIPI
			}
			frames, n = &c.frames, c.nframes
		case tcpu < 0:
			e.State = trace.StateNeverRun
			e.Flags = trace.StackNoWalk
			e.PC, e.SP = uint64(machine.FramePC(&t.Frame)), uint64(machine.FrameSP(&t.Frame))
		default:
			e.State = trace.StateRunnable
			n = trace.CaptureFrame(machine.AddrOfFrame(&t.Frame), &e, &scratch)
			e.Flags |= trace.StackSaved
			if state == sched.Blocked {
				e.State = trace.StateBlocked
				e.Wait = trace.StackWait(t.Wait)
				if t.NKPath > 0 {
					// The kernel's path above the thread's own frames, as procstat -kk shows.
					n = trace.PrependKernelPath(&scratch, n, t.KPath[:t.NKPath])
					e.Flags |= trace.StackKernelPath
				}
			}
		}
		if !sink.put(&e, frames, n) {
			return -1
		}
		count++
	}
	return count
}

// stackSink receives the snapshot's entries one at a time: into the agent's buffer, or printed
// on the console (the watchdog).
type stackSink struct {
	console         bool
	buf, size, used uintptr
}

func (s *stackSink) put(e *trace.StackEntry, frames *[trace.MaxDepth]uint64, n int) bool {
	if s.console {
		printStackEntry(e, frames, n)
		return true
	}
	if s.size-s.used < trace.StackEntrySize {
		return false
	}
	b, ok := core.UserBytes(s.buf+s.used, trace.StackEntrySize, true)
	if !ok || !trace.PutStackEntry(b, e, frames, n) {
		return false
	}
	s.used += trace.StackEntrySize
	return true
}

// captureStacks serves trace.CtlStacks: the snapshot into the buffer at buf of size bytes.
func captureStacks(buf, size uintptr) uint64 {
	if !core.UserRange(buf, size, true) {
		return abi.Neg(abi.EFAULT)
	}
	sink := stackSink{buf: buf, size: size}
	n := snapshotStacks(&sink)
	if n < 0 {
		return abi.Neg(abi.ENOSPC)
	}
	return uint64(n)
}
