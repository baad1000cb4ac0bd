package profile

import (
	"slices"
	"testing"

	"github.com/unitrace/unitrace/trace/record"
	"github.com/unitrace/unitrace/trace/wire"
)

// TestSplitStack: the marks go, the word after each is exact, the words before the thread's
// mark are the kernel's, and marks where the format has none are read without trusting them.
func TestSplitStack(t *testing.T) {
	const (
		T = record.StackMarkThread
		K = record.StackMarkKernel
		S = record.StackMarkSignal
		M = record.StackMarkTable
	)
	for _, c := range []struct {
		name      string
		stack     []uint64
		flags     record.Flags
		inKernel  bool
		want      []Word
		thread    int
		malformed bool
	}{
		{"a thread's sample", []uint64{1, 2, 3}, record.PC0Exact, false,
			[]Word{{1, true, false, false}, {2, false, false, false}, {3, false, false, false}}, -1, false},
		{"a backtrace", []uint64{1, 2}, 0, false, []Word{{1, false, false, false}, {2, false, false, false}}, -1, false},
		{"crossed", []uint64{1, 2, T, 3, 4}, record.PC0Exact, true,
			[]Word{{1, true, true, false}, {2, false, true, false}, {3, true, false, false}, {4, false, false, false}}, 2, false},
		{"a crossed backtrace", []uint64{1, T, 3}, 0, false, []Word{{1, false, true, false}, {3, true, false, false}}, 1, false},
		{"nested", []uint64{1, K, 2, 5, T, 3}, record.PC0Exact, true,
			[]Word{{1, true, true, false}, {2, true, true, false}, {5, false, true, false}, {3, true, false, false}}, 3, false},
		{"in a handler, the walk cut before the thread", []uint64{1, 2}, record.PC0Exact, true,
			[]Word{{1, true, true, false}, {2, false, true, false}}, -1, false},
		{"a nested mark, the walk cut before the thread", []uint64{1, K, 2}, record.PC0Exact, false,
			[]Word{{1, true, true, false}, {2, true, true, false}}, -1, false},
		{"a mark at the end", []uint64{1, 2, T}, record.PC0Exact, true, []Word{{1, true, true, false}, {2, false, true, false}}, -1, true},
		{"a mark as stack[0]", []uint64{T, 3, 4}, record.PC0Exact, false, []Word{{3, true, false, false}, {4, false, false, false}}, 0, true},
		{"marks in a row", []uint64{1, K, T, 3}, record.PC0Exact, true, []Word{{1, true, true, false}, {3, true, false, false}}, 1, true},
		{"two thread marks", []uint64{1, T, 3, T, 4, 5}, record.PC0Exact, true, []Word{{1, true, true, false}, {3, true, false, false}}, 1, true},
		{"a nested mark in the thread", []uint64{1, T, 3, 6, K, 4}, record.PC0Exact, true,
			[]Word{{1, true, true, false}, {3, true, false, false}, {6, false, false, false}}, 1, true},
		{"a signal handler", []uint64{1, 2, S, 3, 4}, record.PC0Exact, false,
			[]Word{{1, true, false, false}, {2, false, false, false}, {3, true, false, false}, {4, false, false, false}}, -1, false},
		{"nested signal handlers", []uint64{1, S, 3, S, 5}, record.PC0Exact, false,
			[]Word{{1, true, false, false}, {3, true, false, false}, {5, true, false, false}}, -1, false},
		{"a signal handler's system call", []uint64{1, T, 3, 4, S, 5, 6}, record.PC0Exact, true,
			[]Word{{1, true, true, false}, {3, true, false, false}, {4, false, false, false}, {5, true, false, false}, {6, false, false, false}}, 1, false},
		{"a signal mark in the kernel's part", []uint64{1, S, 2, T, 3}, record.PC0Exact, true,
			[]Word{{1, true, true, false}, {2, true, true, false}, {3, true, false, false}}, 2, true},
		{"only marks", []uint64{T, K, T}, record.PC0Exact, false, nil, -1, true},
		{"a leaf's caller from the tables", []uint64{1, M, 2, 3}, record.PC0Exact, false,
			[]Word{{1, true, false, false}, {2, false, false, true}, {3, false, false, false}}, -1, false},
		{"the thread's caller from the tables", []uint64{1, T, 3, M, 4, 5}, record.PC0Exact, true,
			[]Word{{1, true, true, false}, {3, true, false, false}, {4, false, false, true}, {5, false, false, false}}, 1, false},
		{"a table mark first", []uint64{M, 1, 2}, record.PC0Exact, false,
			[]Word{{1, false, false, false}, {2, false, false, false}}, -1, true},
		{"a table mark at the end", []uint64{1, M}, record.PC0Exact, false, []Word{{1, true, false, false}}, -1, true},
		{"a table mark after a context mark", []uint64{1, T, M, 3}, record.PC0Exact, true,
			[]Word{{1, true, true, false}, {3, true, false, false}}, 1, true},
		{"empty", nil, record.PC0Exact, false, nil, -1, false},
	} {
		st := splitStack(c.stack, c.flags, c.inKernel)
		if !slices.Equal(st.words, c.want) || st.thread != c.thread || st.malformed != c.malformed {
			t.Errorf("%s: %+v, thread %d, malformed %v; want %+v, %d, %v", c.name, st.words, st.thread, st.malformed, c.want, c.thread, c.malformed)
		}
		if st.thread >= 0 && !st.words[st.thread].Exact {
			t.Errorf("%s: the thread's pc is not exact", c.name)
		}
	}
}

// TestFoldKernelWords: folding leaves the thread's words, its pc first; a stack with no
// thread part folds to nothing (Build shows FrameKernel then).
func TestFoldKernelWords(t *testing.T) {
	st := splitStack([]uint64{1, 2, record.StackMarkThread, 3, 4}, record.PC0Exact, true)
	st.insert(0, 9) // a leaf fix in the kernel
	st.insert(st.thread, 8)
	if st.thread != 3 || !slices.Equal(st.words, []Word{{1, true, true, false}, {9, false, true, false}, {2, false, true, false}, {3, true, false, false}, {8, false, false, false}, {4, false, false, false}}) {
		t.Fatalf("after the fixes: %+v, thread %d", st.words, st.thread)
	}
	st.foldKernel()
	if st.thread != 0 || !slices.Equal(st.words, []Word{{3, true, false, false}, {8, false, false, false}, {4, false, false, false}}) {
		t.Errorf("folded: %+v, thread %d", st.words, st.thread)
	}
	cut := splitStack([]uint64{1, 2}, record.PC0Exact, true)
	cut.foldKernel()
	if len(cut.words) != 0 || cut.thread != -1 {
		t.Errorf("a kernel-only stack folded: %+v", cut.words)
	}
}

// TestLeafFixNotTwice: a leaf or thread pc whose caller the guest found by the tables
// (StackMarkTable) gets no leaf fix on the host: the caller is in the stack already.
func TestLeafFixNotTwice(t *testing.T) {
	rec := &record.Record{Header: record.Header{Flags: record.PC0Exact}, Stack: []uint64{1, record.StackMarkTable, 2, 3}}
	st := splitStack(rec.Stack, rec.Flags, false)
	if res := st.fixLeaf(wire.ArchAMD64, nil, rec); res != FixInGuest || len(st.words) != 3 {
		t.Errorf("leaf: %v, %d words", res, len(st.words))
	}
	if _, res := FixStack(wire.ArchAMD64, nil, rec); res != FixInGuest {
		t.Errorf("FixStack: %v", res)
	}
	crossed := splitStack([]uint64{1, record.StackMarkThread, 3, record.StackMarkTable, 4}, record.PC0Exact, true)
	if res := crossed.fixThreadWith(wire.ArchAMD64, nil, Regs{}, true); res != FixInGuest || len(crossed.words) != 3 {
		t.Errorf("thread: %v, %d words", res, len(crossed.words))
	}
}
