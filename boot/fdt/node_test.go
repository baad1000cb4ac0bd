package fdt

import (
	"testing"
)

// sample is a tree with the shapes the lookups must handle: unit
// addresses, a name that is a prefix of another, nesting, aliases,
// phandles (current and legacy), status values and string lists.
func sample() *tnode {
	return node("",
		pcells("#address-cells", 2), pcells("#size-cells", 2),
		node("aliases", pstr("serial0", "/soc/uart@1000"), pstr("bad", "soc/uart@1000"), praw("unterminated", []byte("/soc"))),
		node("memory@80000000", pstr("device_type", "memory"), pcells("reg", 0, 0x80000000, 0, 0x1000000)),
		node("memory@1", pstr("device_type", "memory")),
		node("mem", pstr("note", "a prefix of memory, not a match")),
		node("soc",
			pcells("#address-cells", 1), pcells("#size-cells", 1),
			node("uart@1000", pstr("compatible", "vendor,uart", "arm,pl011"), pcells("phandle", 7)),
			node("uart@2000", pstr("compatible", "arm,pl011"), pstr("status", "disabled")),
			node("intc", pcells("linux,phandle", 9), pstr("status", "ok")),
			node("bad-status", pstr("status", "fail")),
			node("broken-status", praw("status", []byte("okay"))),
		),
		node("chosen", pstr("bootargs", "a b c"), pu64("kaslr-seed", 0x0123456789abcdef), praw("empty-string", []byte{0}),
			praw("two-strings", []byte("a\x00b\x00")), praw("no-nul", []byte("abc")), pempty("flag")),
	)
}

func TestNavigation(t *testing.T) {
	b := Blob(build(sample()))
	if err := b.Check(); err != OK {
		t.Fatal(err)
	}
	root, err := b.Root()
	if err != OK || !root.Valid() || len(b.Name(root)) != 0 || root.Offset() == 0 {
		t.Fatalf("Root %v %v", root, err)
	}
	// Document order.
	want := []string{"", "aliases", "memory@80000000", "memory@1", "mem", "soc", "uart@1000", "uart@2000",
		"intc", "bad-status", "broken-status", "chosen"}
	n := root
	for i, name := range want {
		if string(b.Name(n)) != name {
			t.Errorf("node %d: %q, want %q", i, b.Name(n), name)
		}
		n, err = b.Next(n)
		if (err != OK) != (i == len(want)-1) {
			t.Errorf("Next after %q: %v", name, err)
		}
	}
	if err != ErrNotFound {
		t.Errorf("Next after the last node: %v", err)
	}
	paths := []struct {
		path string
		want string
		err  Err
	}{
		{"/", "", OK},
		{"/soc/uart@2000", "uart@2000", OK},
		{"/soc/uart", "uart@1000", OK}, // no unit address: the first uart@
		{"/soc//intc/", "intc", OK},
		{"/memory", "memory@80000000", OK},
		{"/mem", "mem", OK},
		{"/memory@1", "memory@1", OK},
		{"/memory@2", "", ErrNotFound},
		{"/me", "", ErrNotFound},
		{"/soc/uart@1000/x", "", ErrNotFound},
		{"/chosen@", "", ErrNotFound},
		{"soc", "", ErrPath},
		{"", "", ErrPath},
	}
	for _, tt := range paths {
		n, err := b.Path(tt.path)
		if err != tt.err || string(b.Name(n)) != tt.want || n.Valid() != (err == OK) {
			t.Errorf("Path(%q) = %q, %v; want %q, %v", tt.path, b.Name(n), err, tt.want, tt.err)
		}
	}
	soc, _ := b.Path("/soc")
	u1, _ := b.Path("/soc/uart@1000")
	u2, _ := b.Path("/soc/uart@2000")
	intc, _ := b.Path("/soc/intc")
	chosen, _ := b.Path("/chosen")
	if c, err := b.FirstChild(soc); err != OK || c != u1 {
		t.Errorf("FirstChild(soc) %v", err)
	}
	if _, err := b.FirstChild(u1); err != ErrNotFound {
		t.Errorf("FirstChild(leaf) %v", err)
	}
	if s, err := b.NextSibling(u1); err != OK || s != u2 {
		t.Errorf("NextSibling(uart@1000) %v", err)
	}
	if s, err := b.NextSibling(soc); err != OK || s != chosen {
		t.Errorf("NextSibling(soc) %v", err)
	}
	for _, n := range []Node{chosen, root} {
		if _, err := b.NextSibling(n); err != ErrNotFound {
			t.Errorf("NextSibling(%q) %v", b.Name(n), err)
		}
	}
	if p, err := b.Parent(u2); err != OK || p != soc {
		t.Errorf("Parent(uart@2000) %v", err)
	}
	if p, err := b.Parent(soc); err != OK || p != root {
		t.Errorf("Parent(soc) %v", err)
	}
	if _, err := b.Parent(root); err != ErrNotFound {
		t.Errorf("Parent(root) %v", err)
	}
	if c, err := b.Child(soc, "intc"); err != OK || c != intc {
		t.Errorf("Child %v", err)
	}
	if n, err := b.Named("memory", 1); err != OK || string(b.Name(n)) != "memory@1" {
		t.Errorf("Named(memory, 1) %q %v", b.Name(n), err)
	}
	for _, nth := range []int{2, -1} {
		if _, err := b.Named("memory", nth); err != ErrNotFound {
			t.Errorf("Named(memory, %d) %v", nth, err)
		}
	}
	if n, err := b.Compatible("arm,pl011", 1); err != OK || n != u2 {
		t.Errorf("Compatible(pl011, 1) %v", err)
	}
	if n, err := b.Compatible("vendor,uart", 0); err != OK || n != u1 {
		t.Errorf("Compatible(vendor,uart) %v", err)
	}
	if _, err := b.Compatible("arm,pl01", 0); err != ErrNotFound {
		t.Errorf("Compatible matches a prefix: %v", err)
	}
	if n, err := b.ByPhandle(7); err != OK || n != u1 {
		t.Errorf("ByPhandle(7) %v", err)
	}
	if n, err := b.ByPhandle(9); err != OK || n != intc {
		t.Errorf("ByPhandle(9), legacy linux,phandle: %v", err)
	}
	for _, ph := range []uint32{0, 8, 0xffffffff} {
		if _, err := b.ByPhandle(ph); err != ErrNotFound {
			t.Errorf("ByPhandle(%#x) %v", ph, err)
		}
	}
	if n, err := b.Alias("serial0"); err != OK || n != u1 {
		t.Errorf("Alias(serial0) %v", err)
	}
	for alias, want := range map[string]Err{"bad": ErrPath, "unterminated": ErrNotString, "nope": ErrNotFound} {
		if _, err := b.Alias(alias); err != want {
			t.Errorf("Alias(%s) %v, want %v", alias, err, want)
		}
	}
}

func TestProps(t *testing.T) {
	b := Blob(build(sample()))
	chosen, _ := b.Path("/chosen")
	u1, _ := b.Path("/soc/uart@1000")
	if v, err := b.StringProp(chosen, "bootargs"); err != OK || string(v) != "a b c" {
		t.Errorf("bootargs %q %v", v, err)
	}
	if v, err := b.StringProp(chosen, "empty-string"); err != OK || len(v) != 0 {
		t.Errorf("empty-string %q %v", v, err)
	}
	for _, name := range []string{"two-strings", "no-nul", "flag"} {
		if _, err := b.StringProp(chosen, name); err != ErrNotString {
			t.Errorf("StringProp(%s) %v", name, err)
		}
	}
	if _, err := b.StringProp(chosen, "nope"); err != ErrNotFound {
		t.Errorf("StringProp(nope) %v", err)
	}
	if x, err := b.U64(chosen, "kaslr-seed"); err != OK || x != 0x0123456789abcdef {
		t.Errorf("U64 %#x %v", x, err)
	}
	if _, err := b.U32(chosen, "kaslr-seed"); err != ErrPropLen {
		t.Errorf("U32 of 8 bytes: %v", err)
	}
	if _, err := b.U64(u1, "phandle"); err != ErrPropLen {
		t.Errorf("U64 of 4 bytes: %v", err)
	}
	if s, err := b.Prop(chosen, "flag"); err != OK || s.Len != 0 || s.Bytes(b) == nil {
		t.Errorf("empty property %+v %v", s, err)
	}
	if v, err := b.PropBytes(chosen, "two-strings"); err != OK || string(v) != "a\x00b\x00" {
		t.Errorf("PropBytes %q %v", v, err)
	}
	// A subnode's properties are not its parent's.
	soc, _ := b.Path("/soc")
	if _, err := b.Prop(soc, "phandle"); err != ErrNotFound {
		t.Errorf("Prop looked into a child: %v", err)
	}
	for name, want := range map[string]bool{"vendor,uart": true, "arm,pl011": true, "arm": false, "": false, "vendor,uart\x00arm,pl011": false} {
		if b.HasString(u1, "compatible", name) != want {
			t.Errorf("HasString(%q) != %v", name, want)
		}
	}
	if b.HasString(chosen, "no-nul", "abc") {
		t.Error("HasString matched a string without NUL")
	}
	for path, want := range map[string]bool{"/soc/uart@1000": true, "/soc/uart@2000": false, "/soc/intc": true,
		"/soc/bad-status": false, "/soc/broken-status": false} {
		n, _ := b.Path(path)
		if b.Enabled(n) != want {
			t.Errorf("Enabled(%s) != %v", path, want)
		}
	}
	if sp := (Span{Off: uint32(len(b)) - 2, Len: 3}); sp.Bytes(b) != nil {
		t.Error("Span past the blob")
	}
	if sp := (Span{Off: 1<<32 - 1, Len: 1<<32 - 1}); sp.Bytes(b) != nil {
		t.Error("Span wrapping")
	}
}

// TestBadNodes hands every call nodes that are not nodes of the blob.
func TestBadNodes(t *testing.T) {
	b := Blob(build(sample()))
	h, _ := b.Header()
	root, _ := b.Root()
	bad := []Node{{}, {at: 1}, {at: root.at + 4}, {at: h.OffStruct + h.SizeStruct}, {at: 1<<32 - 4}}
	for _, n := range bad {
		if b.Name(n) != nil || b.Enabled(n) || b.HasString(n, "compatible", "x") {
			t.Errorf("%x: Name, Enabled or HasString answered", n.at)
		}
		calls := map[string]func() Err{
			"Next":        func() Err { _, err := b.Next(n); return err },
			"FirstChild":  func() Err { _, err := b.FirstChild(n); return err },
			"NextSibling": func() Err { _, err := b.NextSibling(n); return err },
			"Parent":      func() Err { _, err := b.Parent(n); return err },
			"Child":       func() Err { _, err := b.Child(n, "soc"); return err },
			"Prop":        func() Err { _, err := b.Prop(n, "reg"); return err },
			"Reg":         func() Err { _, err := b.Reg(n, 0); return err },
			"Interrupt":   func() Err { _, err := b.Interrupt(n, 0); return err },
		}
		for name, call := range calls {
			if err := call(); err != ErrBadNode {
				t.Errorf("%x: %s: %v", n.at, name, err)
			}
		}
	}
}
