package threadsnap

import (
	"errors"
	"strings"
	"testing"
)

// reply is a stacks reply as trace/agent writes it.
const reply = `{"id":7,"ok":true,"stacks":{"arch":"amd64","build_id":"abcd","text_start":4198400,
"cpus":[
 {"cpu":2,"tid":9,"gen":1,"slot":3,"state":"running","pc":4856608,"sp":0,"fp":0,"lr":0,"ticks":5,"stack_kind":"goroutine","by_ipi":true,"saved":false,"no_walk":false,"walk_stop":false,"truncated":false,"frames":[]},
 {"cpu":0,"tid":1,"gen":1,"slot":0,"state":"running","pc":0,"sp":0,"fp":0,"lr":0,"ticks":0,"stack_kind":"unknown","by_ipi":false,"saved":false,"no_walk":true,"walk_stop":false,"truncated":false,"frames":[]},
 {"cpu":1,"tid":0,"gen":0,"slot":0,"state":"idle","pc":0,"sp":0,"fp":0,"lr":0,"ticks":0,"stack_kind":"unknown","by_ipi":false,"saved":false,"no_walk":true,"walk_stop":false,"truncated":false,"frames":[]},
 {"cpu":3,"tid":4,"gen":2,"slot":0,"state":"no-answer","pc":0,"sp":0,"fp":0,"lr":0,"ticks":0,"stack_kind":"unknown","by_ipi":false,"saved":false,"no_walk":true,"walk_stop":false,"truncated":false,"frames":[]}],
"threads":[
 {"cpu":1,"tid":12,"gen":1,"slot":5,"state":"never-run","pc":0,"sp":0,"fp":0,"lr":0,"ticks":0,"stack_kind":"unknown","by_ipi":false,"saved":false,"no_walk":true,"walk_stop":false,"truncated":false,"frames":[]},
 {"cpu":2,"tid":9,"gen":1,"slot":3,"state":"running","pc":4856608,"sp":824633786368,"fp":824633786432,"lr":0,"ticks":5,"stack_kind":"goroutine","by_ipi":true,"saved":false,"no_walk":false,"walk_stop":true,"truncated":false,"frames":[4856832,4857856]},
 {"cpu":1,"tid":3,"gen":2,"slot":1,"state":"blocked","wait":"futex","pc":4649984,"sp":1,"fp":2,"lr":0,"ticks":3,"stack_kind":"system","by_ipi":false,"saved":true,"no_walk":false,"walk_stop":false,"truncated":true,"frames":[4440064]},
 {"cpu":0,"tid":1,"gen":1,"slot":0,"state":"runnable","pc":4649000,"sp":1,"fp":2,"lr":0,"ticks":3,"stack_kind":"goroutine","by_ipi":false,"saved":true,"no_walk":false,"walk_stop":false,"truncated":false,"frames":[]},
 {"cpu":3,"tid":4,"gen":2,"slot":2,"state":"no-answer","pc":0,"sp":0,"fp":0,"lr":0,"ticks":0,"stack_kind":"unknown","by_ipi":false,"saved":false,"no_walk":true,"walk_stop":false,"truncated":false,"frames":[]}],
"unanswered":[3]}}`

func TestParse(t *testing.T) {
	s, err := Parse([]byte(reply))
	if err != nil {
		t.Fatal(err)
	}
	if s.Arch != "amd64" || s.BuildID != "abcd" || s.TextStart != 4198400 || len(s.Unanswered) != 1 || s.Unanswered[0] != 3 {
		t.Errorf("header %+v", s)
	}
	var cpus, tids []int32
	for _, c := range s.CPUs {
		cpus = append(cpus, c.CPU)
	}
	for _, th := range s.Threads {
		tids = append(tids, th.TID)
	}
	if len(cpus) != 4 || cpus[0] != 0 || cpus[3] != 3 || len(tids) != 5 || tids[0] != 1 || tids[4] != 12 {
		t.Errorf("order: cpus %v threads %v", cpus, tids)
	}
	th := s.Threads[2] // threads 1, 3, 4, 9, 12
	if th.TID != 4 || th.State != "no-answer" {
		t.Errorf("thread %+v", th)
	}
	th = s.Threads[3]
	if th.TID != 9 || th.PC != 0x4a1b20 || len(th.Frames) != 2 || th.Frames[0] != 0x4a1c00 || !th.ByIPI || !th.WalkStop || th.StackKind != "goroutine" {
		t.Errorf("thread 9: %+v", th)
	}
	if th := s.Threads[1]; th.Wait != "futex" || !th.Saved || !th.Truncated {
		t.Errorf("thread 3: %+v", th)
	}
}

func TestParseRefuses(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"id":1,"error":"not available in this kernel"}`, "the guest refused: not available in this kernel"},
		{`{"id":1,"ok":true}`, "neither ok with a snapshot nor an error"},
		{`{"id":1,"stacks":{"cpus":[],"threads":[]}}`, "neither ok"},
		{`{"id":1,"ok":true,"stacks":`, "unexpected end"},
		{`[]`, "cannot unmarshal"},
		{`{"ok":true,"stacks":{"cpus":[{"cpu":-1,"state":"idle"}]}}`, "cpu entry 0"},
		{`{"ok":true,"stacks":{"cpus":[{"cpu":64,"state":"idle"}]}}`, "cpu entry 0"},
		{`{"ok":true,"stacks":{"cpus":[{"cpu":0,"state":""}]}}`, "cpu entry 0"},
		{`{"ok":true,"stacks":{"threads":[{"tid":0,"cpu":0,"state":"running"}]}}`, "thread entry 0"},
		{`{"ok":true,"stacks":{"threads":[{"tid":1,"cpu":-2,"state":"running"}]}}`, "thread entry 0"},
		{`{"ok":true,"stacks":{"threads":[{"tid":1,"cpu":0,"state":"running","frames":[` +
			strings.Repeat("1,", 64) + `1]}]}}`, "65 frames"},
		{`{"ok":true,"stacks":{"threads":[{"tid":1,"cpu":0,"state":"running","pc":-1}]}}`, "cannot unmarshal"},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%.60s): %v, want ...%s...", tt.in, err, tt.want)
		}
	}
	_, err := Parse([]byte(tests[0].in))
	var re *RefusedError
	if !errors.As(err, &re) || re.Message != "not available in this kernel" {
		t.Errorf("refusal: %#v", err)
	}
}

// FuzzParse: Parse never panics, and what it accepts Format prints.
func FuzzParse(f *testing.F) {
	f.Add([]byte(reply))
	f.Add([]byte(`{"id":1,"error":"x"}`))
	f.Add([]byte(`{"ok":true,"stacks":{"cpus":[{"cpu":1,"state":"weird","tid":3}],"threads":[{"tid":3,"cpu":-1,"state":"new","wait":"w"}]}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		s, err := Parse(in)
		if err != nil {
			return
		}
		var b strings.Builder
		if err := Format(&b, s); err != nil {
			t.Fatal(err)
		}
	})
}
