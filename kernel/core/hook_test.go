package core

import "testing"

func double(x int) int { return 2 * x }

func TestHook(t *testing.T) {
	var h Hook[func(int) int]
	if h.IsSet() || h.Get() != nil {
		t.Fatal("an empty hook is set")
	}
	h.Set(double)
	if !h.IsSet() || h.Get()(21) != 42 {
		t.Fatal("the hook does not call what was set")
	}
	h.Set(func(x int) int { return x + 1 }) // a closure without captures is static too
	if h.Get()(1) != 2 {
		t.Fatal("the hook does not call its replacement")
	}
	if n := testing.AllocsPerRun(100, func() { h.Set(double); _ = h.Get()(1) }); n != 0 {
		t.Fatalf("%v allocations to set and call a hook", n)
	}
}
