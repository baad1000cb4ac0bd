//go:build unitrace_host && amd64

package core_test

import (
	"testing"

	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/core/coretest"
	"github.com/unitrace/unitrace/kernel/mm"
)

func TestUserMemory(t *testing.T) {
	const P = core.PageSize
	user := coretest.UserMemory(t, 16)
	if core.Space.Protect(user+8*P, P, mm.ProtRead) != 0 || core.Space.Protect(user+12*P, P, mm.ProtNone) != 0 ||
		core.Space.Unmap(user+5*P, P) != 0 {
		t.Fatal("setting the map up failed")
	}

	// Across a page boundary: both pages fault in, the bytes are the program's own.
	b, ok := core.UserBytes(user+P-2, 4, true)
	if !ok {
		t.Fatal("UserBytes refused a writable mapping")
	}
	copy(b, "abcd")
	if got := string(coretest.Bytes(user+P-2, 4)); got != "abcd" {
		t.Fatalf("the program reads %q, want what the kernel wrote", got)
	}
	if core.UserPages == 0 {
		t.Fatal("no page counted as mapped")
	}
	if !core.WriteUser64(user+16, 0x1122334455667788) {
		t.Fatal("WriteUser64 failed")
	}
	if v, ok := core.ReadUser64(user + 16); !ok || v != 0x1122334455667788 {
		t.Fatalf("ReadUser64: %#x %v", v, ok)
	}

	// What the map forbids, the kernel does not touch.
	if _, ok := core.UserBytes(user+8*P, 8, false); !ok {
		t.Error("a read of a read-only mapping failed")
	}
	if _, ok := core.UserBytes(user+8*P, 8, true); ok {
		t.Error("a write to a read-only mapping was allowed")
	}
	if _, ok := core.UserBytes(user+12*P, 1, false); ok {
		t.Error("a PROT_NONE mapping was readable")
	}
	if _, ok := core.UserBytes(user+5*P, 1, false); ok {
		t.Error("an unmapped page was readable")
	}
	if _, ok := core.UserBytes(user+5*P-4, 8, false); ok {
		t.Error("a range running off its mapping was readable")
	}

	// Unmapping gives the frames back.
	before := core.Frames.Stats().Allocated
	if n := core.ArchUnmapRange(user, user+4*P); n == 0 || core.Frames.Stats().Allocated >= before {
		t.Fatalf("unmapped %d pages, frames allocated %d -> %d", n, before, core.Frames.Stats().Allocated)
	}
}

func TestImportIovec(t *testing.T) {
	const P = core.PageSize
	user := coretest.UserMemory(t, 4)
	vec, _ := core.UserBytes(user, 2*core.IovecSize, true)
	put := func(i int, base, n uint64) {
		for k := 0; k < 8; k++ {
			vec[i*core.IovecSize+k] = byte(base >> (8 * k))
			vec[i*core.IovecSize+8+k] = byte(n >> (8 * k))
		}
	}
	put(0, uint64(user+P), 3)
	put(1, uint64(user+2*P), 5)
	if _, total, errno := core.ImportIovec(user, 2); errno != 0 || total != 8 {
		t.Fatalf("ImportIovec: total %d errno %d", total, errno)
	}
	if !core.ScatterUser([]byte("abcdefgh"), user, 2, true) {
		t.Fatal("ScatterUser failed")
	}
	if got := string(coretest.Bytes(user+P, 3)) + string(coretest.Bytes(user+2*P, 5)); got != "abcdefgh" {
		t.Fatalf("scattered %q", got)
	}
	put(1, uint64(user+2*P), 1<<63) // negative as an ssize_t
	if _, _, errno := core.ImportIovec(user, 2); errno != abi.EINVAL {
		t.Fatalf("a negative length: errno %d, want EINVAL", errno)
	}
	if _, _, errno := core.ImportIovec(user, core.UIOMaxIOV+1); errno != abi.EINVAL {
		t.Fatalf("more than UIO_MAXIOV: errno %d, want EINVAL", errno)
	}
}
