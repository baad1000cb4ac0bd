package ctl

import (
	"strings"
	"testing"
)

func cmd(op Op, id uint32, has uint16, f func(*Command)) Command {
	c := Command{ID: id, Op: op, Has: has}
	if f != nil {
		f(&c)
	}
	return c
}

func withMatch(s string) func(*Command) {
	return func(c *Command) { c.MatchLen = uint8(copy(c.Match[:], s)) }
}

func TestParseCommands(t *testing.T) {
	tests := []struct {
		in   string
		want Command
	}{
		{`{"id":1,"cmd":"hello"}`, cmd(OpHello, 1, 0, nil)},
		{` { "cmd" : "hello" , "id" : 0 } ` + "\n", cmd(OpHello, 0, 0, nil)},
		{`{"id":2,"cmd":"list"}`, cmd(OpList, 2, 0, nil)},
		{`{"id":3,"cmd":"list","match":"sys*"}`, cmd(OpList, 3, HasMatch, withMatch("sys*"))},
		{`{"id":4,"cmd":"enable","match":"syscall_?"}`, cmd(OpEnable, 4, HasMatch, withMatch("syscall_?"))},
		{`{"id":5,"cmd":"enable","match":"*","stack":true}`, cmd(OpEnable, 5, HasMatch|HasStack,
			func(c *Command) { withMatch("*")(c); c.Stack = true })},
		{`{"id":6,"cmd":"disable","match":"a\"b\\c\/d"}`, cmd(OpDisable, 6, HasMatch, withMatch(`a"b\c/d`))},
		{`{"id":7,"cmd":"disable","match":"","stack":false}`, cmd(OpDisable, 7, HasMatch|HasStack, nil)},
		{`{"id":8,"cmd":"mode","ring":"flight"}`, cmd(OpMode, 8, HasRing, func(c *Command) { c.Ring = RingFlight })},
		{`{"id":9,"cmd":"mode","ring":"stream","size":16384}`, cmd(OpMode, 9, HasRing|HasSize,
			func(c *Command) { c.Ring = RingStream; c.Size = 16384 })},
		{`{"id":10,"cmd":"mode","size":1073741824}`, cmd(OpMode, 10, HasSize, func(c *Command) { c.Size = 1 << 30 })},
		{`{"id":11,"cmd":"snapshot"}`, cmd(OpSnapshot, 11, 0, nil)},
		{`{"id":12,"cmd":"flush"}`, cmd(OpFlush, 12, 0, nil)},
		{`{"id":13,"cmd":"stats"}`, cmd(OpStats, 13, 0, nil)},
		{`{"id":14,"cmd":"stop"}`, cmd(OpStop, 14, 0, nil)},
		{`{"id":15,"cmd":"sampler.start"}`, cmd(OpSamplerStart, 15, 0, nil)},
		{`{"id":16,"cmd":"sampler.start","hz":10000}`, cmd(OpSamplerStart, 16, HasHz, func(c *Command) { c.Hz = 10000 })},
		{`{"id":17,"cmd":"sampler.start","hz":100000,"force":true}`, cmd(OpSamplerStart, 17, HasHz|HasForce,
			func(c *Command) { c.Hz = 100000; c.Force = true })},
		{`{"id":18,"cmd":"sampler.stop"}`, cmd(OpSamplerStop, 18, 0, nil)},
		{`{"id":4294967295,"cmd":"stop"}`, cmd(OpStop, 4294967295, 0, nil)},
		{`{"id":19,"cmd":"stacks"}`, cmd(OpStacks, 19, 0, nil)},
		{`{"cmd":"stacks","id":0}`, cmd(OpStacks, 0, 0, nil)},
		{`{"id":20,"cmd":"signal","sig":2}`, cmd(OpSignal, 20, HasSig, func(c *Command) { c.Sig = 2 })},
		{`{"sig":1,"cmd":"signal","id":21}`, cmd(OpSignal, 21, HasSig, func(c *Command) { c.Sig = 1 })},
		{`{"id":22,"cmd":"signal","sig":64}`, cmd(OpSignal, 22, HasSig, func(c *Command) { c.Sig = 64 })},
		{`{"id":1,"cmd":"list","match":"` + strings.Repeat("x", 64) + `"}`, cmd(OpList, 1, HasMatch, withMatch(strings.Repeat("x", 64)))},
		{`{"id":23,"cmd":"stdin.open"}`, cmd(OpStdinOpen, 23, 0, nil)},
		{`{"id":24,"cmd":"stdin.end","total":0}`, cmd(OpStdinEnd, 24, HasTotal, nil)},
		{`{"total":18446744073709551615,"cmd":"stdin.end","id":25}`, cmd(OpStdinEnd, 25, HasTotal, func(c *Command) { c.Total = 1<<64 - 1 })},
		{`{"id":26,"cmd":"probe.site","probe":3,"site":"00ff10"}`, cmd(OpProbeSite, 26, HasProbe|HasSite,
			func(c *Command) { c.Probe = 3; c.Site[1], c.Site[2], c.SiteLen = 0xff, 0x10, 3 })},
		{`{"id":27,"cmd":"probe.arm","probe":64,"stack":true}`, cmd(OpProbeArm, 27, HasProbe|HasStack,
			func(c *Command) { c.Probe = 64; c.Stack = true })},
		{`{"id":28,"cmd":"probe.del","probe":1}`, cmd(OpProbeDel, 28, HasProbe, func(c *Command) { c.Probe = 1 })},
		{`{"id":29,"cmd":"probe.new"}`, cmd(OpProbeNew, 29, 0, nil)},
		{`{"id":31,"cmd":"probe.list"}`, cmd(OpProbeList, 31, 0, nil)},
		{`{"id":30,"cmd":"resume"}`, cmd(OpResume, 30, 0, nil)},
	}
	for _, tt := range tests {
		got, e := Parse([]byte(tt.in))
		if e != ErrNone || got != tt.want {
			t.Errorf("Parse(%s) = %+v, %q; want %+v", tt.in, got, e.Message(), tt.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		in   string
		want Err
	}{
		{`{"id":1,"cmd":"stop"` + strings.Repeat(" ", MaxCommand) + `}`, ErrTooLong},
		{``, ErrSyntax},
		{`[]`, ErrSyntax},
		{`{"id":1,"cmd":"stop"`, ErrSyntax},
		{`{"id":1 "cmd":"stop"}`, ErrSyntax},
		{`{"id":1,,"cmd":"stop"}`, ErrSyntax},
		{`{"id":1,"cmd":"stop",}`, ErrSyntax},
		{`{id:1}`, ErrSyntax},
		{`{"id":1,"cmd":"stop`, ErrSyntax},
		{`{"id":1,"cmd":"stop\`, ErrSyntax},
		{`{"id":1,"cmd":tru}`, ErrSyntax},
		{`{"id":1,"cmd":"stop"}x`, ErrTrailing},
		{`{"id":1,"cmd":"stop"}{}`, ErrTrailing},
		{`{"id":1,"cmd":{"a":1}}`, ErrNesting},
		{`{"id":[1],"cmd":"stop"}`, ErrNesting},
		{`{"id":1,"cmd":"list","match":"` + strings.Repeat("x", 65) + `"}`, ErrStringTooLong},
		{`{"id":1,"cmd":"list","match":"a\u0041"}`, ErrBadString},
		{`{"id":1,"cmd":"list","match":"a` + "\t" + `"}`, ErrBadString},
		{`{"id":1,"cmd":"list","match":"é"}`, ErrBadString},
		{`{"id":01,"cmd":"stop"}`, ErrBadNumber},
		{`{"id":1.0,"cmd":"stop"}`, ErrBadNumber},
		{`{"id":1e3,"cmd":"stop"}`, ErrBadNumber},
		{`{"id":-1,"cmd":"stop"}`, ErrOutOfRange},
		{`{"id":4294967296,"cmd":"stop"}`, ErrOutOfRange},
		{`{"id":18446744073709551616,"cmd":"stop"}`, ErrOutOfRange},
		{`{"id":1,"cmd":"stop","bogus":1}`, ErrUnknownField},
		{`{"id":1,"ID":2,"cmd":"stop"}`, ErrUnknownField},
		{`{"id":1,"id":2,"cmd":"stop"}`, ErrDuplicateField},
		{`{"id":1,"cmd":"stop","cmd":"stop"}`, ErrDuplicateField},
		{`{"id":"1","cmd":"stop"}`, ErrWrongType},
		{`{"id":1,"cmd":7}`, ErrWrongType},
		{`{"id":1,"cmd":null}`, ErrWrongType},
		{`{"id":1,"cmd":"enable","match":"*","stack":1}`, ErrWrongType},
		{`{"id":1,"cmd":"Stop"}`, ErrUnknownCmd},
		{`{"id":1,"cmd":"reboot"}`, ErrUnknownCmd},
		{`{"cmd":"stop"}`, ErrNoID},
		{`{}`, ErrNoID},
		{`{"id":1}`, ErrNoCmd},
		{`{"id":1,"cmd":"stop","match":"*"}`, ErrFieldNotForCmd},
		{`{"id":1,"cmd":"list","stack":true}`, ErrFieldNotForCmd},
		{`{"id":1,"cmd":"mode","hz":10}`, ErrFieldNotForCmd},
		{`{"id":1,"cmd":"stacks","match":"*"}`, ErrFieldNotForCmd},
		{`{"id":1,"cmd":"stacks","stack":true}`, ErrFieldNotForCmd},
		{`{"id":1,"cmd":"stacks","hz":100}`, ErrFieldNotForCmd},
		{`{"id":1,"cmd":"stacks","threads":1}`, ErrUnknownField},
		{`{"id":1,"cmd":"Stacks"}`, ErrUnknownCmd},
		{`{"id":1,"cmd":"stacks "}`, ErrUnknownCmd},
		{`{"id":1,"cmd":"stack"}`, ErrUnknownCmd},
		{`{"id":1,"cmd":"stacks","cmd":"stacks"}`, ErrDuplicateField},
		{`{"cmd":"stacks"}`, ErrNoID},
		{`{"id":1,"cmd":"enable"}`, ErrMissingField},
		{`{"id":1,"cmd":"disable","stack":true}`, ErrMissingField},
		{`{"id":1,"cmd":"mode"}`, ErrMissingField},
		{`{"id":1,"cmd":"mode","ring":"ring"}`, ErrBadRing},
		{`{"id":1,"cmd":"mode","size":12345}`, ErrBadSize},
		{`{"id":1,"cmd":"mode","size":8192}`, ErrBadSize},
		{`{"id":1,"cmd":"mode","size":2147483648}`, ErrBadSize},
		{`{"id":1,"cmd":"sampler.start","hz":0}`, ErrBadHz},
		{`{"id":1,"cmd":"sampler.start","hz":10001}`, ErrBadHz},
		{`{"id":1,"cmd":"sampler.start","hz":100001,"force":true}`, ErrBadHz},
		{`{"id":1,"cmd":"sampler.start","hz":20000,"force":false}`, ErrBadHz},
		{`{"id":1,"cmd":"signal"}`, ErrMissingField},
		{`{"id":1,"cmd":"signal","sig":0}`, ErrBadSignal},
		{`{"id":1,"cmd":"signal","sig":65}`, ErrBadSignal},
		{`{"id":1,"cmd":"signal","sig":256}`, ErrBadSignal},
		{`{"id":1,"cmd":"signal","sig":18446744073709551615}`, ErrBadSignal},
		{`{"id":1,"cmd":"probe.del","probe":0}`, ErrBadProbe},
		{`{"id":1,"cmd":"probe.del","probe":65}`, ErrBadProbe},
		{`{"id":1,"cmd":"probe.del"}`, ErrMissingField},
		{`{"id":1,"cmd":"probe.site","probe":1}`, ErrMissingField},
		{`{"id":1,"cmd":"probe.site","probe":1,"site":"0"}`, ErrBadSite},
		{`{"id":1,"cmd":"probe.site","probe":1,"site":"0G"}`, ErrBadSite},
		{`{"id":1,"cmd":"probe.site","probe":1,"site":"AB"}`, ErrBadSite},
		{`{"id":1,"cmd":"probe.del","probe":1,"site":"ab"}`, ErrFieldNotForCmd},
		{`{"id":1,"cmd":"probe.new","probe":1}`, ErrFieldNotForCmd},
		{`{"id":1,"cmd":"signal","sig":-2}`, ErrOutOfRange},
		{`{"id":1,"cmd":"signal","sig":"INT"}`, ErrWrongType},
		{`{"id":1,"cmd":"signal","sig":2.0}`, ErrBadNumber},
		{`{"id":1,"cmd":"signal","sig":true}`, ErrWrongType},
		{`{"id":1,"cmd":"signal","sig":2,"sig":3}`, ErrDuplicateField},
		{`{"id":1,"cmd":"signal","sig":2,"match":"*"}`, ErrFieldNotForCmd},
		{`{"id":1,"cmd":"stop","sig":2}`, ErrFieldNotForCmd},
		{`{"id":1,"cmd":"stdin.end"}`, ErrMissingField},
		{`{"id":1,"cmd":"stdin.open","total":3}`, ErrFieldNotForCmd},
		{`{"id":1,"cmd":"signal","sig":2,"total":3}`, ErrFieldNotForCmd},
		{`{"id":1,"cmd":"stdin.end","total":-1}`, ErrOutOfRange},
		{`{"id":1,"cmd":"stdin.end","total":18446744073709551616}`, ErrOutOfRange},
		{`{"id":1,"cmd":"stdin.end","total":"12"}`, ErrWrongType},
		{`{"id":1,"cmd":"stdin.end","total":1,"total":1}`, ErrDuplicateField},
		{`{"id":1,"cmd":"stdin"}`, ErrUnknownCmd},
		{`{"id":1,"cmd":"stacks","sig":3}`, ErrFieldNotForCmd},
	}
	for _, tt := range tests {
		got, e := Parse([]byte(tt.in))
		if e != tt.want || got != (Command{}) {
			t.Errorf("Parse(%.80s) = %+v, %q; want error %q", tt.in, got, e.Message(), tt.want.Message())
		}
	}
	for e := Err(1); e < numErrs; e++ {
		if e.Message() == "" {
			t.Errorf("Err %d has no message", e)
		}
	}
	if Err(200).Message() == "" {
		t.Error("out-of-range Err has no message")
	}
}

func TestParseAllocs(t *testing.T) {
	in := []byte(`{"id":5,"cmd":"enable","match":"sys*","stack":true}`)
	bad := []byte(`{"id":5,"cmd":"enable","match":"sys*","stack":true,"x":1}`)
	buf := make([]byte, 256)
	if a := testing.AllocsPerRun(1000, func() {
		c, _ := Parse(in)
		Parse(bad)
		c.Encode(buf)
		EncodeOK(buf, c.ID)
		EncodeError(buf, c.ID, ErrUnknownField)
		Match(c.Pattern(), "syscall_enter")
	}); a != 0 {
		t.Fatalf("%v allocations per run", a)
	}
}

func TestEncodeReplies(t *testing.T) {
	buf := make([]byte, 128)
	n, ok := EncodeOK(buf, 42)
	if !ok || string(buf[:n]) != `{"id":42,"ok":true}` {
		t.Errorf("EncodeOK = %q", buf[:n])
	}
	n, ok = EncodeError(buf, 0, ErrBadRing)
	if !ok || string(buf[:n]) != `{"id":0,"error":"ring must be \"stream\" or \"flight\""}` {
		t.Errorf("EncodeError = %q", buf[:n])
	}
	w := NewWriter(buf)
	w.Uint("id", 4294967295)
	w.Bool("ok", false)
	w.String("name", []byte("a\"\\\x01"))
	n, ok = w.End()
	if !ok || string(buf[:n]) != `{"id":4294967295,"ok":false,"name":"a\"\\?"}` {
		t.Errorf("Writer = %q", buf[:n])
	}
	c := Command{ID: 7, Op: OpStacks}
	n, ok = c.Encode(buf)
	if !ok || string(buf[:n]) != `{"id":7,"cmd":"stacks"}` {
		t.Errorf("stacks Encode = %q", buf[:n])
	}
	n, ok = EncodeError(buf, 3, ErrBadSnapshot)
	if !ok || string(buf[:n]) != `{"id":3,"error":"the kernel's stacks snapshot is malformed"}` {
		t.Errorf("EncodeError = %q", buf[:n])
	}
	for size := range len(`{"id":42,"ok":true}`) {
		if _, ok := EncodeOK(buf[:size], 42); ok {
			t.Errorf("EncodeOK fit in %d bytes", size)
		}
	}
}

func TestMatch(t *testing.T) {
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"*", "", true},
		{"*", "syscall_enter", true},
		{"", "", true},
		{"", "a", false},
		{"syscall_enter", "syscall_enter", true},
		{"syscall_enter", "syscall_exit", false},
		{"syscall_*", "syscall_exit", true},
		{"syscall_*", "sched_switch", false},
		{"*_exit", "syscall_exit", true},
		{"*_exit", "syscall_exit2", false},
		{"s?s*_e*t", "syscall_exit", true},
		{"?", "", false},
		{"??", "ab", true},
		{"a*b*c", "aXbYbZc", true},
		{"a*b*c", "aXbYbZ", false},
		{"**a", "a", true},
		{"*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false},
	}
	for _, tt := range tests {
		if got := Match([]byte(tt.pattern), tt.name); got != tt.want {
			t.Errorf("Match(%q, %q) = %v", tt.pattern, tt.name, got)
		}
	}
}
