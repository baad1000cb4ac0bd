package record

// Host-only code (see decode_host.go): reading the stack marks a trap leaves in a stack.

// ExactAt reports whether stack[i] is the instruction a trap interrupted, to be symbolized as
// it is, rather than a return address, to be looked up at the word minus one (inside the call):
// stack[0] when the record's PC0Exact flag says so, and every word right after a stack mark,
// whatever the flags (a tracepoint's backtrace that crosses a trap frame has a return address
// in stack[0] but an exact pc after StackMarkThread), except StackMarkTable, which a return
// address follows. A mark itself is not exact: it is no address at all.
func ExactAt(stack []uint64, i int, flags Flags) bool {
	switch {
	case i < 0 || i >= len(stack) || IsStackMark(stack[i]):
		return false
	case i == 0:
		return flags&PC0Exact != 0
	}
	return IsContextMark(stack[i-1])
}

// StackMarkName names a stack mark for the views that print stacks: what the words after it
// are. It returns "" for a word that is not a mark.
func StackMarkName(w uint64) string {
	switch w {
	case StackMarkThread:
		return "thread (trap frame)"
	case StackMarkKernel:
		return "kernel (nested trap frame)"
	case StackMarkSignal:
		return "interrupted by a signal (signal frame)"
	case StackMarkTable:
		return "caller found by the SP-delta tables"
	}
	return ""
}
