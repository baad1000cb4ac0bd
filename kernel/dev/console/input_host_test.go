//go:build unitrace_host && amd64

package console

import (
	"testing"

	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/core/coretest"
	"github.com/unitrace/unitrace/kernel/fd"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/rxring"
)

// freshConsole starts the console's input on the host machine: descriptors 0-2 are the console,
// a thread runs on CPU 0 in f, and it has 4 pages of user memory.
func freshConsole(t *testing.T, f *machine.Frame) (user uintptr) {
	t.Helper()
	coretest.Fresh(t)
	Input, conInput = rxring.Ring{}, false
	t.Cleanup(func() { Input, conInput = rxring.Ring{}, false })
	core.FDs.Init()
	core.WaitKinds[core.WaitConsole].Complete.Set(CompleteWait)
	Init()
	coretest.Running(t, f)
	return coretest.UserMemory(t, 4)
}

func TestReadWhatArrived(t *testing.T) {
	var f machine.Frame
	user := freshConsole(t, &f)
	machine.Host.Input = []byte("hello")
	Interrupt()
	if ret, done := Call(&f, 0, false, user, 3); !done || ret != 3 {
		t.Fatalf("read: %d done %v, want 3 bytes", int64(ret), done)
	}
	if got := string(coretest.Bytes(user, 3)); got != "hel" {
		t.Fatalf("read %q, want the first bytes typed", got)
	}
	if ret, _ := Call(&f, 0, false, user, 64); ret != 2 || string(coretest.Bytes(user, 2)) != "lo" {
		t.Fatalf("the second read: %d %q, want the rest", int64(ret), coretest.Bytes(user, 2))
	}
	machine.Host.Input = []byte("z")
	Interrupt()
	if ret, _ := Call(&f, 0, false, 0x10, 1); ret != abi.Neg(abi.EFAULT) {
		t.Fatalf("a read into unmapped memory: %d, want EFAULT", int64(ret))
	}
	if ret, _ := Call(&f, 0, false, user, 1); ret != 1 || coretest.Bytes(user, 1)[0] != 'z' {
		t.Fatalf("after EFAULT: %d %q, want the byte the failed read left", int64(ret), coretest.Bytes(user, 1))
	}
	if ret, _ := Call(&f, 5, false, user, 1); ret != abi.Neg(abi.EBADF) {
		t.Fatalf("a read of a descriptor that is not the console: %d, want EBADF", int64(ret))
	}
}

// A read that finds nothing blocks its thread; the interrupt that brings bytes wakes it, and
// its call completes with them as it runs again.
func TestBlockedReadWakes(t *testing.T) {
	var f machine.Frame
	user := freshConsole(t, &f)
	reader := core.CurSlot()
	if _, done := Call(&f, 0, false, user, 16); done {
		t.Fatal("a read of an empty console did not wait")
	}
	if !core.OnIdle() || core.Threads[reader].Wait != core.WaitConsole {
		t.Fatalf("the reader does not wait: CPU 0 runs %d, wait %d", core.CurSlot(), core.Threads[reader].Wait)
	}
	machine.Host.Input = []byte("x")
	Interrupt()
	core.Schedule(&f)
	if core.CurSlot() != reader || machine.SysRet(&f) != 1 || string(coretest.Bytes(user, 1)) != "x" {
		t.Fatalf("CPU 0 runs %d with result %d, want the reader with its byte", core.CurSlot(), int64(machine.SysRet(&f)))
	}
}

func TestNonblockingAndEnd(t *testing.T) {
	var f machine.Frame
	user := freshConsole(t, &f)
	core.FDs.Fcntl(0, fd.F_SETFL, uintptr(fd.O_NONBLOCK))
	if ret, done := Call(&f, 0, false, user, 1); !done || ret != abi.Neg(abi.EAGAIN) {
		t.Fatalf("an empty non-blocking read: %d, want EAGAIN", int64(ret))
	}
	machine.Host.Input = []byte("ab")
	Interrupt()
	if SetEnd(2) != 0 {
		t.Fatal("SetEnd refused the count")
	}
	if ret, _ := Call(&f, 0, false, user, 8); ret != 2 {
		t.Fatalf("read %d, want both bytes before the end", int64(ret))
	}
	if ret, done := Call(&f, 0, false, user, 8); !done || ret != 0 {
		t.Fatalf("a read at the end: %d done %v, want 0 (end of file)", int64(ret), done)
	}
}
