package threadsnap

import (
	"slices"
	"strings"
	"testing"

	"github.com/unitrace/unitrace/trace/record"
)

const goroutinesReply = `{"id":1,"ok":true,"stacks":{"arch":"amd64","cpus":[],"threads":[],"unanswered":[]},
"goroutines":{"total":5,"list":[
{"id":7,"state":"waiting","reason":19,"tid":0,"syscall":-1,"wait_ns":2000000000,"stack":[4096,4352]},
{"id":9,"state":"syscall","reason":0,"wait":"pipe","thread_state":"blocked","tid":3,"syscall":0,"stack":[36864,18446181123756130305,20480,20736],"sp":16},
{"id":11,"state":"running","reason":0,"tid":4,"syscall":-1,"on_cpu":true,"stack":[]}]}}`

func TestParseGoroutines(t *testing.T) {
	s, err := Parse([]byte(goroutinesReply))
	if err != nil {
		t.Fatal(err)
	}
	if !s.HasGoroutines || s.GoroutinesTotal != 5 || len(s.Goroutines) != 3 {
		t.Fatalf("goroutines %v, total %d, %d listed", s.HasGoroutines, s.GoroutinesTotal, len(s.Goroutines))
	}
	own, blocked := s.Goroutines[0].Entry, s.Goroutines[1].Entry
	if own.PC != 0 || !slices.Equal(own.Frames, []uint64{4096, 4352}) {
		t.Errorf("a goroutine's own stack: pc %#x frames %x, want its words as return addresses", own.PC, own.Frames)
	}
	if !slices.Equal(blocked.KernelFrames, []uint64{36864}) || blocked.PC != 20480 || !slices.Equal(blocked.Frames, []uint64{20736}) || blocked.SP != 16 {
		t.Errorf("a blocked thread's stack: kernel %x pc %#x frames %x", blocked.KernelFrames, blocked.PC, blocked.Frames)
	}
	if record.StackMarkThread != 18446181123756130305 {
		t.Fatal("the test's mark is not StackMarkThread")
	}
	var b strings.Builder
	if err := FormatGoroutines(&b, s); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"goroutine 7 [wait reason 19]: waiting 2s", "goroutine 9 [syscall]: its thread 3 blocked on pipe",
		"goroutine 11 [running]: its thread 4 on a CPU", "(2 more goroutines: one reply holds 3)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in:\n%s", want, b.String())
		}
	}
	for _, bad := range []string{`{"id":0,"state":"waiting","stack":[]}`, `{"id":3,"state":"dead","stack":[]}`} {
		reply := strings.Replace(goroutinesReply, `{"id":7,"state":"waiting","reason":19,"tid":0,"syscall":-1,"wait_ns":2000000000,"stack":[4096,4352]}`, bad, 1)
		if _, err := Parse([]byte(reply)); err == nil {
			t.Errorf("%s was accepted", bad)
		}
	}
}
