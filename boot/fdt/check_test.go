package fdt

import (
	"strings"
	"testing"
)

// TestCheckStructure feeds Check hand-written token streams.
func TestCheckStructure(t *testing.T) {
	tests := []struct {
		name  string
		write func(w *writer)
		want  Err
	}{
		{"minimal", func(w *writer) { w.begin(""); w.endNode(); w.end() }, OK},
		{"nops everywhere", func(w *writer) {
			w.nop()
			w.begin("")
			w.nop()
			w.prop("a", nil)
			w.nop()
			w.begin("k")
			w.endNode()
			w.nop()
			w.endNode()
			w.nop()
			w.end()
		}, OK},
		{"bytes after END are ignored", func(w *writer) { w.begin(""); w.endNode(); w.end(); w.word(0xdeadbeef) }, OK},
		{"empty structure block", func(w *writer) {}, ErrToken},
		{"END alone", func(w *writer) { w.end() }, ErrUnbalanced},
		{"no END", func(w *writer) { w.begin(""); w.endNode() }, ErrToken},
		{"unknown token", func(w *writer) { w.begin(""); w.word(5); w.endNode(); w.end() }, ErrToken},
		{"END inside the root", func(w *writer) { w.begin(""); w.end() }, ErrUnbalanced},
		{"END_NODE before the root", func(w *writer) { w.endNode(); w.end() }, ErrUnbalanced},
		{"property outside the root", func(w *writer) { w.prop("a", nil); w.begin(""); w.endNode(); w.end() }, ErrUnbalanced},
		{"two roots", func(w *writer) { w.begin(""); w.endNode(); w.begin(""); w.endNode(); w.end() }, ErrUnbalanced},
		{"property after subnode", func(w *writer) {
			w.begin("")
			w.begin("k")
			w.endNode()
			w.prop("a", nil)
			w.endNode()
			w.end()
		}, ErrPropOrder},
		{"unterminated name", func(w *writer) { w.begin(""); w.word(tokBeginNode); w.st = append(w.st, "abcd"...) }, ErrNodeName},
		{"property header cut", func(w *writer) { w.begin(""); w.word(tokProp); w.word(0) }, ErrToken},
		{"property value past the block", func(w *writer) {
			w.begin("")
			w.word(tokProp)
			w.word(9)
			w.word(w.nameOff("a"))
			w.word(0)
			w.word(tokEndNode)
		}, ErrPropBounds},
		{"property length 2^32-1", func(w *writer) {
			w.begin("")
			w.word(tokProp)
			w.word(1<<32 - 1)
			w.word(w.nameOff("a"))
			w.endNode()
			w.end()
		}, ErrPropBounds},
		{"name offset past strings", func(w *writer) { w.begin(""); w.propAt(1000, nil); w.endNode(); w.end() }, ErrPropName},
		{"name offset 2^32-1", func(w *writer) { w.begin(""); w.propAt(1<<32-1, nil); w.endNode(); w.end() }, ErrPropName},
		{"name without NUL", func(w *writer) {
			w.strs = append(w.strs, "abc"...) // the block's last bytes, no NUL
			w.begin("")
			w.propAt(0, nil)
			w.endNode()
			w.end()
		}, ErrPropName},
		{"deepest allowed", func(w *writer) { nest(w, MaxDepth) }, OK},
		{"one too deep", func(w *writer) { nest(w, MaxDepth+1) }, ErrNesting},
	}
	for _, tt := range tests {
		w := newWriter()
		tt.write(w)
		b := Blob(w.blob(0))
		if err := b.Check(); err != tt.want {
			t.Errorf("%s: Check %v, want %v", tt.name, err, tt.want)
		}
	}
}

// nest writes depth nodes, each inside the one before.
func nest(w *writer, depth int) {
	for i := 0; i < depth; i++ {
		w.begin(strings.Repeat("n", i))
	}
	for i := 0; i < depth; i++ {
		w.endNode()
	}
	w.end()
}

func TestErrStrings(t *testing.T) {
	seen := map[string]bool{}
	for e := OK; e < numErrors; e++ {
		s := e.String()
		if s == "" || seen[s] || strings.Contains(s, "unknown") {
			t.Errorf("Err(%d).String() = %q", e, s)
		}
		seen[s] = true
	}
	if Err(200).String() != "fdt: unknown error" {
		t.Error("unknown error string")
	}
}
