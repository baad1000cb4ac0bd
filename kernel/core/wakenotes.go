package core

import (
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/trace/record"
)

// What the scheduler notes for the wake-up records (the kernel's wakers.go writes them, through
// WakeHook): whether they are on, what wakes threads on each CPU, when a thread began its wait.

// WakersOn says the wake-up records are on (boot option unitrace.wakers=1).
var WakersOn bool

// SetWaker says what wakes threads on this CPU from now on, until it is set back to
// WakerThread: the interrupt path being handled.
//
//go:nosplit
func SetWaker(k record.WakerKind) { Here().Waker = k }

// NoteBlocked notes when thread t begins a wait (block, or a wait re-armed after a wake-up that
// did not satisfy it), for the wake-up record that ends it.
func NoteBlocked(t *Thread) {
	if WakersOn {
		t.BlockedAt = machine.Nanotime()
	}
}
