//go:build unitrace_host && amd64

package coretest

import (
	"testing"

	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/machine"
)

func TestFreshAndUserMemory(t *testing.T) {
	var f machine.Frame
	t.Run("set up", func(t *testing.T) {
		Fresh(t)
		slot := Running(t, &f)
		user := UserMemory(t, 2)
		b, ok := core.UserBytes(user+core.PageSize-1, 2, true)
		if !ok {
			t.Fatal("the user memory is not writable across its pages")
		}
		copy(b, "ok")
		if string(Bytes(user+core.PageSize-1, 2)) != "ok" || core.CurSlot() != slot {
			t.Fatalf("read back %q, CPU 0 runs %d", Bytes(user+core.PageSize-1, 2), core.CurSlot())
		}
	})
	// Each test starts afresh: the last one's thread and mappings are gone.
	Fresh(t)
	if core.CurSlot() != 0 || core.Space.Len() != 0 || core.UserPages != 0 {
		t.Fatalf("left over: CPU 0 runs %d, %d regions, %d pages", core.CurSlot(), core.Space.Len(), core.UserPages)
	}
}
