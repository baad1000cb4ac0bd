package core

import (
	"testing"

	"github.com/unitrace/unitrace/kernel/fd"
)

// TestWaitKeysApart checks that no two wait keys of different waits are equal: a wake-up of one
// kind must never reach another's waiters. Every kernel key lies above the user range, where
// futex words are.
func TestWaitKeysApart(t *testing.T) {
	owner := map[uintptr]string{}
	add := func(k uintptr, what string) {
		t.Helper()
		if k < UserHi {
			t.Errorf("%s's key %#x lies in the user range", what, k)
		}
		if o, ok := owner[k]; ok {
			t.Errorf("%s's key %#x is %s's too", what, k, o)
		}
		owner[k] = what
	}
	for n := 0; n < fd.MaxFDs; n++ {
		add(FDKey(n), "a descriptor")
	}
	add(PollKey, "poll")
	add(NetTxKey, "the net port's room")
	for s := int32(0); s < MaxThreads; s++ {
		add(NetReplyKey(s), "a socket reply")
	}
	add(LockKey, "a file lock")
	for dev := uint32(0); dev < 256; dev++ {
		add(PortKey(dev), "a trace port")
	}
}
