package main

import "time"

// badFPUnits is the work of one call with a garbage frame pointer, the same as leafUnits.
const badFPUnits = 1 << 18

// absoluteGarbage are the values spinWithFramePointer puts in the frame-pointer register. Each
// fails a validated frame-pointer walk (unwind.Walk) at its first step, for a different reason,
// and each would fault or wander if a walk loaded through it unchecked.
var absoluteGarbage = [...]uintptr{
	0x4,                   // unaligned, and below every stack (a small integer left in BP)
	0x0000_8000_0000_0000, // aligned; non-canonical on amd64, far above every stack on arm64
	0xdead_beef_dead_beef, // non-canonical and unaligned
	0xffff_ffff_ffff_fff8, // aligned and canonical, but the word after it wraps to address 0
}

// The frame-record shapes spinOnFakeFrames builds on its own stack before pointing the
// frame-pointer register into them. A frame record is two words, {next frame pointer, return
// address}; the fake records' return addresses point into the text (into spinOnFakeFrames), so
// a walk can only be stopped by the shape of the frame pointers.
const (
	stackUnaligned = iota // BP is 4 bytes into a record: inside the stack but not 8-byte aligned
	stackSelfLoop         // BP points at a record whose next frame pointer is itself
	stackCycle            // BP points at a record whose successor points back down at it

	stackShapes = iota
)

// badFramePointers runs the badfp workload until d has passed: it calls each garbage kind in
// turn, round-robin, so that every kind gets samples however short the run.
//
//go:noinline
func badFramePointers(d time.Duration) result {
	clock := startClock(d)
	var r result
	x := uint64(0x94d049bb133111eb)
	for clock.running() {
		for _, fp := range absoluteGarbage {
			x = spinWithFramePointer(x, badFPUnits, fp)
		}
		for shape := range stackShapes {
			x = spinOnFakeFrames(x, badFPUnits, shape)
		}
		r.calls += uint64(len(absoluteGarbage) + stackShapes)
		r.units += uint64(len(absoluteGarbage)+stackShapes) * badFPUnits
	}
	r.checksum = x
	return r
}

// spinWithFramePointer runs n xorshift64 steps from x, like spinLeaf, with fp in the
// frame-pointer register (BP on amd64, R29 on arm64) for the whole loop. It keeps its own frame
// pointer in its frame and puts it back before it returns, so the caller never sees the garbage.
//
// This is safe for the Go runtime. An assembly function is never an asynchronous preemption
// point (runtime.isAsyncSafePoint refuses FuncFlagAsm), so a preemption signal that arrives
// during the loop returns straight to it. The loop calls nothing, so nothing reads this
// goroutine's frame pointer before it is back: stack copies, GC stack scans and tracebacks
// happen only at safe points, the unwinder signal handlers and the CPU profiler use (sigprof)
// reads PC and SP and the pclntab, never BP, the runtime's frame-pointer unwinders (execution
// tracer, block and mutex profiles) start at a safe point or in their own frame, and its
// frame-pointer check (debugCheckBP) is off. TestBadFramePointersUnderExecutionTracer checks
// that the caller gets a sound frame pointer back.
func spinWithFramePointer(x, n uint64, fp uintptr) uint64

// spinOnFakeFrames runs n xorshift64 steps from x with the frame-pointer register pointing into
// fake frame records on its own stack, laid out as shape says (stackUnaligned, stackSelfLoop or
// stackCycle); any other shape is taken as stackCycle. It restores its frame pointer before it
// returns, like spinWithFramePointer.
func spinOnFakeFrames(x, n uint64, shape int) uint64
