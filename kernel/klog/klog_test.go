//go:build unitrace_host && amd64

package klog

import (
	"math"
	"strings"
	"testing"

	"github.com/unitrace/unitrace/kernel/machine"
)

func TestLine(t *testing.T) {
	machine.Host = machine.HostMachine{}
	t.Cleanup(func() { machine.Host = machine.HostMachine{} })
	Log().S("cpu ").D(-12).S(" ").U(math.MaxUint64).S(" ").X(0).S(" ").X(0xbeef).S(" ").X16(0xbeef).S(" ").BS([]byte("ok")).NL()
	want := "unitrace: cpu -12 18446744073709551615 0x0 0xbeef 000000000000beef ok\n"
	if got := string(machine.Host.Console); got != want {
		t.Fatalf("console %q, want %q", got, want)
	}
}

func TestLongLineWhole(t *testing.T) {
	machine.Host = machine.HostMachine{}
	t.Cleanup(func() { machine.Host = machine.HostMachine{} })
	long := strings.Repeat("x", 1000)
	Log().S(long).NL()
	if got, want := string(machine.Host.Console), "unitrace: "+long+"\n"; got != want {
		t.Fatalf("a line longer than the buffer came out as %d bytes, want %d", len(got), len(want))
	}
}

func TestNoAllocation(t *testing.T) {
	machine.Host = machine.HostMachine{Console: make([]byte, 0, 1<<16)}
	t.Cleanup(func() { machine.Host = machine.HostMachine{} })
	if n := testing.AllocsPerRun(100, func() {
		machine.Host.Console = machine.Host.Console[:0]
		Log().S("x ").D(-1).X(2).NL()
	}); n != 0 {
		t.Fatalf("%v allocations a line", n)
	}
}

func TestBootFault(t *testing.T) {
	machine.Host = machine.HostMachine{}
	t.Cleanup(func() { machine.Host = machine.HostMachine{} })
	defer func() {
		e, ok := recover().(machine.HostExit)
		if !ok || e.Code != machine.FaultExitValue {
			t.Fatalf("BootFault stopped with %v, want the fault exit code", e)
		}
		want := "unitrace: kernel fault: boot: no memory\nunitrace: kernel fault, halting\n"
		if got := string(machine.Host.Console); got != want {
			t.Fatalf("console %q, want %q", got, want)
		}
	}()
	BootFault("no memory")
}
