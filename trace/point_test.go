package trace

import (
	"testing"

	"github.com/unitrace/unitrace/trace/record"
)

// The registry is global: these tests register their own points once.
var (
	tpA = Point{Name: "test_alpha", Format: "x=%d", Args: ArgKinds{N: 1, Kinds: [MaxArgs]record.Kind{record.KU64}}}
	tpB = Point{Name: "test_beta", Format: ""}
	tpC = Point{Name: "other_gamma", Format: ""}
)

func init() {
	for _, p := range []*Point{&tpA, &tpB, &tpC} {
		if !Register(p) {
			panic("register " + p.Name)
		}
	}
}

func TestRegister(t *testing.T) {
	if tpA.ID() < uint16(record.FirstDictID) || tpB.ID() != tpA.ID()+1 {
		t.Errorf("ids %d %d", tpA.ID(), tpB.ID())
	}
	if Register(&tpA) {
		t.Error("registering twice succeeded")
	}
	if PointAt(int(tpA.ID()-uint16(record.FirstDictID))) != &tpA {
		t.Error("PointAt does not find tpA")
	}
}

func TestEnableByGlob(t *testing.T) {
	defer Disable([]byte("*"), Enabled|Backtrace)
	if n := Enable([]byte("test_*"), Enabled); n != 2 {
		t.Fatalf("matched %d, want 2", n)
	}
	if !tpA.On() || !tpB.On() || tpC.On() {
		t.Errorf("on: a=%v b=%v c=%v", tpA.On(), tpB.On(), tpC.On())
	}
	Disable([]byte("test_b*"), Enabled)
	if tpB.On() || !tpA.On() {
		t.Error("disable by glob")
	}
}

// The global log-backtrace option sets Backtrace on enabled points only, and never
// InterruptBacktrace, which belongs to the sampler's tick.
func TestGlobalBacktrace(t *testing.T) {
	defer SetGlobalBacktrace(false)
	defer Disable([]byte("*"), Enabled|Backtrace|InterruptBacktrace)
	tpC.SetFlags(Enabled | InterruptBacktrace)
	Enable([]byte("test_alpha"), Enabled)
	SetGlobalBacktrace(true)
	if tpA.Flags()&Backtrace == 0 {
		t.Error("enabled point did not get Backtrace")
	}
	if tpB.Flags()&Backtrace != 0 {
		t.Error("disabled point got Backtrace")
	}
	if tpC.Flags()&InterruptBacktrace == 0 || tpC.Flags()&Backtrace == 0 {
		t.Errorf("tpC flags %#x: InterruptBacktrace must stay, Backtrace added", tpC.Flags())
	}
	Enable([]byte("test_beta"), Enabled)
	if tpB.Flags()&Backtrace == 0 {
		t.Error("a point enabled later did not get Backtrace")
	}
	for i := 0; i < NumPoints(); i++ {
		if p := PointAt(i); p != &tpC && p.Flags()&InterruptBacktrace != 0 {
			t.Errorf("%s got InterruptBacktrace", p.Name)
		}
	}
}
