package main

import (
	"reflect"
	"testing"

	"github.com/unitrace/unitrace/internal/tracefile"
)

// TestDropEmitFrames: a tracepoint backtrace's first pc, in the site's function, also resolves
// to the tracepoint entry point inlined there; that frame goes and the site's stays. An entry
// point built without inlining is the pc's only frame, and it goes too.
func TestDropEmitFrames(t *testing.T) {
	emit := tracefile.Frame{Func: "github.com/unitrace/unitrace/trace.(*Point).Emit4", Inlined: true}
	site := tracefile.Frame{Func: "github.com/unitrace/unitrace/kernel.syscall"}
	for _, c := range []struct{ in, want []tracefile.Frame }{
		{[]tracefile.Frame{emit, site}, []tracefile.Frame{site}},
		{[]tracefile.Frame{site}, []tracefile.Frame{site}},
		{[]tracefile.Frame{{Func: emit.Func}}, []tracefile.Frame{}},
	} {
		if got := dropEmitFrames(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("dropEmitFrames(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}
