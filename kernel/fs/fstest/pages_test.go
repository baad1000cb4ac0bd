package fstest

import "testing"

// The fixture must catch what a file system must never do with its pages.
func TestPagesCatchMisuse(t *testing.T) {
	p := NewPages(t, 2)
	a, ok := p.Alloc()
	b, ok2 := p.Alloc()
	if !ok || !ok2 || a == b || p.InUse() != 2 {
		t.Fatalf("two allocations: %#x %v, %#x %v, %d in use", a, ok, b, ok2, p.InUse())
	}
	if _, ok := p.Alloc(); ok {
		t.Fatal("a third page from a region of two")
	}
	p.Free(a)
	p.Free(a)
	if p.Err == nil || p.InUse() != 1 {
		t.Fatalf("a double free was not caught (err %v, %d in use)", p.Err, p.InUse())
	}
	q := NewPages(t, 4)
	q.Limit = 1
	q.Alloc()
	if _, ok := q.Alloc(); ok {
		t.Fatal("an allocation past Limit")
	}
}
