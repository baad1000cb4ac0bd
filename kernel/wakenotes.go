package kernel

import (
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/trace/record"
)

// What the scheduler notes for the wake-up records (the kernel's wakers.go writes them, through
// wakeHook): whether they are on, what wakes threads on each CPU, when a thread began its wait.

// wakersOn says the wake-up records are on (boot option unitrace.wakers=1).
var wakersOn bool

// setWaker says what wakes threads on this CPU from now on, until it is set back to
// WakerThread: the interrupt path being handled.
//
//go:nosplit
func setWaker(k record.WakerKind) { here().waker = k }

// noteBlocked notes when thread t begins a wait (block, or a wait re-armed after a wake-up that
// did not satisfy it), for the wake-up record that ends it.
func noteBlocked(t *thread) {
	if wakersOn {
		t.blockedAt = machine.Nanotime()
	}
}
