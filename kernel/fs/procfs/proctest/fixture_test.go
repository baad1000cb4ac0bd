package proctest

import (
	"testing"

	"github.com/unitrace/unitrace/kernel/sched"
)

// The fixture is what its doc says: the main thread running on CPU 0, 1 MiB of frames taken,
// and threads that come and go.
func TestFixture(t *testing.T) {
	x := New(t, "unitrace.verbose=1 -- -flag")
	if x.Sched.Current(0) != sched.FirstThread || x.Src.Threads[sched.FirstThread] != 1 {
		t.Fatalf("CPU 0 runs %d, main tid %d", x.Sched.Current(0), x.Src.Threads[sched.FirstThread])
	}
	if st := x.Frames.Stats(); st.Allocated != 256 {
		t.Fatalf("%d frames allocated, want 256 (1 MiB)", st.Allocated)
	}
	slot := x.AddThread(t, 7)
	if x.Src.Threads[slot] != 7 || x.Sched.State(slot) == sched.Free {
		t.Fatalf("the added thread: tid %d, state %v", x.Src.Threads[slot], x.Sched.State(slot))
	}
	x.ExitThread(slot)
	if x.Src.Threads[slot] != 0 {
		t.Fatal("an exited thread keeps its tid")
	}
}
