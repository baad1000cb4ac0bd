package profile

import (
	"slices"

	"github.com/unitrace/unitrace/trace/record"
	"github.com/unitrace/unitrace/trace/wire"
)

// Word is one address of a sample's stack, once the stack marks are taken out.
type Word struct {
	Addr   uint64
	Exact  bool // the instruction a trap interrupted: symbolized as it is, not at Addr-1
	Kernel bool // in the kernel's trap context, before the thread's pc
	// Table: a return address the guest found by the image's SP-delta tables
	// (record.StackMarkTable), where the frame-pointer chain could not be trusted.
	Table bool
}

// stack is a SAMPLE's stack split at its marks (record.StackMarkThread, StackMarkKernel,
// StackMarkSignal). A stack that crosses the kernel boundary reads leaf first: the kernel's pc
// and chain, maybe a nested trap's StackMarkKernel with the pc and chain of the kernel code it
// interrupted, then StackMarkThread and the thread's pc and chain. A thread's chain that ran
// into a signal handler's restorer goes on with StackMarkSignal and the pc and chain of the
// code the signal interrupted, in the same context. The word after a mark is exact.
type stack struct {
	words  []Word
	thread int // index in words of the thread's exact pc; -1 when there is none
	// crossed says the stack holds StackMarkThread, malformed that it held marks where the
	// format has none, kernel that the sample was taken in the kernel's trap context.
	crossed, malformed, kernel bool
}

// splitStack reads a record's stack words. A guest only writes marks between contexts, but a
// buggy or hostile one may write anything, so marks where none can be are read this way, and
// the stack is malformed:
//
//   - a mark as stack[0] (a stack starts at a pc), two marks in a row, a mark at the end, or
//     StackMarkSignal in the kernel's part: the marks are dropped, the word after them is
//     exact;
//   - StackMarkThread or StackMarkKernel after the thread's mark (a thread's chain holds no
//     trap frame, only signal frames): the walk is not to be trusted from there, and the
//     stack ends before it.
//
// inKernel says the sample's state puts the leaf in a trap handler: then every word before
// the thread mark, or every word when a cut walk never reached it, is the kernel's.
func splitStack(words []uint64, flags record.Flags, inKernel bool) stack {
	kernel := inKernel || slices.Contains(words, record.StackMarkThread) || slices.Contains(words, record.StackMarkKernel)
	st := stack{thread: -1, kernel: kernel}
	afterMark, table := false, false
	for i, w := range words {
		if w == record.StackMarkTable {
			// A return address found by the tables follows, in the same context. One that
			// begins a stack, follows another mark or ends it is malformed, and dropped.
			if i == 0 || afterMark || table || i == len(words)-1 {
				st.malformed = true
				continue
			}
			table = true
			continue
		}
		if record.IsStackMark(w) {
			if table {
				st.malformed, table = true, false
			}
			if st.crossed && w != record.StackMarkSignal {
				st.malformed = true
				break
			}
			if i == 0 || afterMark || i == len(words)-1 || w == record.StackMarkSignal && kernel && !st.crossed {
				st.malformed = true // (the kernel's own code runs no signal handlers)
			}
			st.crossed = st.crossed || w == record.StackMarkThread
			afterMark = true
			continue
		}
		exact := afterMark || i == 0 && flags&record.PC0Exact != 0
		if afterMark && st.crossed && st.thread < 0 {
			st.thread = len(st.words)
		}
		st.words = append(st.words, Word{Addr: w, Exact: exact, Kernel: kernel && !st.crossed, Table: table})
		afterMark, table = false, false
	}
	return st
}

// inKernel reports whether the sample was taken in the kernel's trap context: its state
// says so, or its stack holds a mark.
func (st *stack) inKernel() bool { return st.kernel }

// insert puts a return address the leaf fix recovered after words[i], in the same context.
func (st *stack) insert(i int, ra uint64) {
	st.words = slices.Insert(st.words, i+1, Word{Addr: ra, Kernel: st.words[i].Kernel})
	if st.thread > i {
		st.thread++
	}
}

// fixLeaf applies the leaf fix at stack[0] with the registers of the leaf's context.
func (st *stack) fixLeaf(arch wire.Arch, code Code, rec *record.Record) FixResult {
	if len(rec.Stack) == 0 || record.IsStackMark(rec.Stack[0]) || len(st.words) == 0 {
		return FixUnknownPC
	}
	if len(st.words) > 1 && st.words[1].Table {
		return FixInGuest
	}
	r, ok := SampleRegs(rec)
	if !ok {
		return FixNoTrapFrame
	}
	ra, res := LeafCaller(arch, code, r)
	if res == FixApplied {
		st.insert(0, ra)
	}
	return res
}

// fixThread applies the leaf fix at the thread's pc with the registers of the thread's
// context: the pc is often a frameless leaf (a system call's assembly wrapper), whose caller
// the thread's chain skips just as a thread sample's does.
func (st *stack) fixThread(arch wire.Arch, code Code, rec *record.Record) FixResult {
	r, ok := ThreadRegs(rec)
	return st.fixThreadWith(arch, code, r, ok)
}

// fixThreadWith applies the leaf fix at the thread's pc with the thread context's registers r
// (ok: the record had them).
func (st *stack) fixThreadWith(arch wire.Arch, code Code, r Regs, ok bool) FixResult {
	if st.thread+1 < len(st.words) && st.words[st.thread+1].Table {
		return FixInGuest
	}
	if !ok {
		return FixNoTrapFrame
	}
	r.PC = st.words[st.thread].Addr
	ra, res := LeafCaller(arch, code, r)
	if res == FixApplied {
		st.insert(st.thread, ra)
	}
	return res
}

// foldKernel drops the kernel's words, so that the thread's exact pc becomes the leaf: the
// time in the kernel is charged to the system call (or the instruction) that entered it.
func (st *stack) foldKernel() {
	n := 0
	for n < len(st.words) && st.words[n].Kernel {
		n++
	}
	st.words = st.words[n:]
	if st.thread >= 0 {
		st.thread -= n
	}
}
