package main

import (
	"testing"

	"github.com/unitrace/unitrace/kernel/systab"
)

// TestTableCoversKernel fails when a call the kernel serves (kernel/systab's Calls) is neither
// in the fuzzer's table nor excluded with its reason.
func TestTableCoversKernel(t *testing.T) {
	in := map[string]bool{}
	for _, s := range table {
		if in[s.name] {
			t.Errorf("%s is in the table twice", s.name)
		}
		in[s.name] = true
	}
	kernel := map[string]bool{}
	for _, c := range systab.Calls {
		kernel[c.Name] = true
		_, ex := excluded[c.Name]
		switch {
		case in[c.Name] && ex:
			t.Errorf("%s is both in the table and excluded", c.Name)
		case !in[c.Name] && !ex:
			t.Errorf("the kernel serves %s, but the fuzzer's table has no entry for it and no exclusion says why", c.Name)
		}
	}
	for name, why := range excluded {
		if !kernel[name] {
			t.Errorf("excluded %s is not a call the kernel serves", name)
		}
		if why == "" {
			t.Errorf("excluded %s has no reason", name)
		}
	}
}

// TestNumbers: every name in the table is a Linux call on amd64 or arm64 (the ones only amd64
// has, like open, are left out on arm64).
func TestNumbers(t *testing.T) {
	nrs := numbers()
	if _, ok := nrs["read"]; !ok {
		t.Fatal("no number for read")
	}
	specs, err := selectSpecs("")
	if err != nil {
		t.Fatal(err)
	}
	if len(specs) < 100 {
		t.Errorf("only %d calls in the table on this architecture", len(specs))
	}
	if _, err := selectSpecs("read,nosuchcall"); err == nil {
		t.Error("selectSpecs accepted an unknown name")
	}
}

// TestOwns: a pointer near the top of the address space, whose end wraps, is not the thread's.
func TestOwns(t *testing.T) {
	th := &thread{region: 0x10000}
	for _, c := range []struct {
		p    uintptr
		n    int
		want bool
	}{
		{0x10000, 8, true}, {0x10000 + regionSize - 8, 8, true}, {0x10000 + regionSize - 7, 8, false},
		{0xffff, 8, false}, {^uintptr(0) - 1, 16, false}, {^uintptr(0) - 15, 16, false},
	} {
		if got := th.owns(c.p, c.n); got != c.want {
			t.Errorf("owns(%#x, %d) = %v, want %v", c.p, c.n, got, c.want)
		}
	}
}
