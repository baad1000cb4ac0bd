package record

import "testing"

// TestExactAt: stack[0] follows PC0Exact, the word after either mark is exact whatever the
// flags, return addresses and the marks themselves are not.
func TestExactAt(t *testing.T) {
	stack := []uint64{0x401000, 0x402000, StackMarkKernel, 0x403000, StackMarkThread, 0x404000, 0x405000, StackMarkThread}
	want := []bool{true, false, false, true, false, true, false, false}
	for i := range stack {
		if got := ExactAt(stack, i, PC0Exact); got != want[i] {
			t.Errorf("ExactAt(%d) with PC0Exact = %v, want %v", i, got, want[i])
		}
	}
	if ExactAt(stack, 0, 0) || !ExactAt(stack, 3, 0) || !ExactAt(stack, 5, 0) {
		t.Error("without PC0Exact: stack[0] must be a return address, the words after marks exact")
	}
	if ExactAt(stack, -1, PC0Exact) || ExactAt(stack, len(stack), PC0Exact) || ExactAt(nil, 0, PC0Exact) {
		t.Error("an index outside the stack is exact")
	}
	if ExactAt([]uint64{StackMarkThread, 0x401000}, 0, PC0Exact) {
		t.Error("a mark as stack[0] is exact")
	}
	if StackMarkName(StackMarkThread) == "" || StackMarkName(StackMarkKernel) == "" || StackMarkName(0x401000) != "" {
		t.Error("StackMarkName")
	}
}
