package sysvshm

import (
	"math/rand"
	"testing"

	"github.com/unitrace/unitrace/kernel/abi"
)

// frames is a fake frame allocator: it counts what is out and refuses past a limit.
type frames struct {
	next, out, limit int
	freed            map[uintptr]bool
}

func newFrames(limit int) *frames { return &frames{next: 1, limit: limit, freed: map[uintptr]bool{}} }

func (f *frames) alloc() (uintptr, bool) {
	if f.out >= f.limit {
		return 0, false
	}
	f.out++
	pa := uintptr(f.next) * PageSize
	f.next++
	return pa, true
}

func (f *frames) free(pa uintptr) {
	if f.freed[pa] {
		panic("double free")
	}
	f.freed[pa] = true
	f.out--
}

var root = Cred{PID: 1}

// TestGetRules: shmget's errors in Linux's order, and identifiers as Linux numbers them.
func TestGetRules(t *testing.T) {
	var tb Table
	f := newFrames(1 << 20)
	id0, e := tb.Get(IPCPrivate, 1024, IPCCreat|0o600, root, 100, f.alloc, f.free)
	if e != 0 || id0 != 0 {
		t.Fatalf("first segment: id %d errno %d, want id 0", id0, e)
	}
	id1, e := tb.Get(42, 3*PageSize, IPCCreat|0o640, root, 100, f.alloc, f.free)
	if e != 0 || id1 != idMultiplier+1 {
		t.Fatalf("second segment: id %d errno %d, want %d", id1, e, idMultiplier+1)
	}
	user := Cred{UID: 1000, GID: 1000, PID: 2}
	for _, tc := range []struct {
		key   int32
		size  uintptr
		flags int
		c     Cred
		id    int32
		errno int
	}{
		{42, 100, 0, root, id1, 0},
		{42, 100, IPCCreat, root, id1, 0},
		{42, 100, IPCCreat | IPCExcl, root, 0, abi.EEXIST},
		{42, 4 * PageSize, 0, root, 0, abi.EINVAL},
		{42, 0, 0o400, user, 0, abi.EACCES},
		{43, 100, 0, root, 0, abi.ENOENT},
		{43, 0, IPCCreat, root, 0, abi.EINVAL},
		{43, MaxPages*PageSize + 1, IPCCreat, root, 0, abi.EINVAL},
		{IPCPrivate, 0, IPCCreat, root, 0, abi.EINVAL},
	} {
		id, e := tb.Get(tc.key, tc.size, tc.flags, tc.c, 100, f.alloc, f.free)
		if id != tc.id || e != tc.errno {
			t.Errorf("Get(%d, %d, %#o, uid %d) = %d, %d; want %d, %d", tc.key, tc.size, tc.flags, tc.c.UID, id, e, tc.id, tc.errno)
		}
	}
	s := tb.Stat(1)
	if s.Key != 42 || s.Size != 3*PageSize || s.Mode != 0o640 || s.Ctime != 100 || s.CPID != 1 {
		t.Errorf("IPC_STAT: %+v", s)
	}
	if _, e := tb.Lookup(idMultiplier + 0); e != abi.EINVAL {
		t.Errorf("an identifier of the wrong sequence: errno %d, want EINVAL", e)
	}
	if slot, e := tb.Lookup(id1); e != 0 || slot != 1 {
		t.Errorf("Lookup(%d) = %d, %d", id1, slot, e)
	}
	if _, e := tb.Lookup(-1); e != abi.EINVAL {
		t.Errorf("Lookup(-1): errno %d", e)
	}
}

// TestLifetime: a removed segment lives while it is mapped, its key forgotten at once, its frames
// freed with the last mapping and its identifier refused afterwards.
func TestLifetime(t *testing.T) {
	var tb Table
	f := newFrames(1 << 20)
	id, _ := tb.Get(7, 2*PageSize+1, IPCCreat|0o600, root, 1, f.alloc, f.free)
	slot, _ := tb.Lookup(id)
	if f.out != 3 {
		t.Fatalf("%d frames out, want 3", f.out)
	}
	pa, ok := tb.Frame(slot, 2*PageSize+5)
	if !ok || !tb.Owns(pa) || tb.Owns(pa+1) {
		t.Fatalf("Frame/Owns: %#x %v", pa, ok)
	}
	if _, ok := tb.Frame(slot, 3*PageSize); ok {
		t.Fatal("a frame past the segment's last page")
	}
	tb.SetAttached(slot, 2, f.free)
	if e := tb.Remove(slot, Cred{UID: 5}, f.free); e != abi.EPERM {
		t.Fatalf("Remove by another user: errno %d, want EPERM", e)
	}
	if e := tb.Remove(slot, root, f.free); e != 0 {
		t.Fatal(e)
	}
	if _, e := tb.Get(7, 1, 0, root, 1, f.alloc, f.free); e != abi.ENOENT {
		t.Fatalf("the removed segment's key still answers: errno %d", e)
	}
	if s := tb.Stat(slot); s.Mode&ModeDest == 0 || s.Key != IPCPrivate || f.out != 3 {
		t.Fatalf("after IPC_RMID while mapped: %+v, %d frames out", s, f.out)
	}
	tb.SetAttached(slot, 0, f.free)
	if f.out != 0 || tb.Owns(pa) || tb.Live() != 0 {
		t.Fatalf("after the last mapping went: %d frames out, owns %v, %d live", f.out, tb.Owns(pa), tb.Live())
	}
	if _, e := tb.Lookup(id); e != abi.EINVAL {
		t.Fatalf("a destroyed segment's identifier: errno %d, want EINVAL", e)
	}
	id2, _ := tb.Get(IPCPrivate, 1, IPCCreat, root, 1, f.alloc, f.free)
	if id2 == id {
		t.Fatalf("a reused slot gave the same identifier %d", id)
	}
}

// TestNoMemory: a segment that cannot have all its frames gives back those it had.
func TestNoMemory(t *testing.T) {
	var tb Table
	f := newFrames(3)
	if _, e := tb.Get(IPCPrivate, 4*PageSize, IPCCreat, root, 1, f.alloc, f.free); e != abi.ENOMEM {
		t.Fatalf("errno %d, want ENOMEM", e)
	}
	if f.out != 0 || tb.Live() != 0 {
		t.Fatalf("%d frames kept, %d segments", f.out, tb.Live())
	}
}

// TestPoolModel creates and destroys segments at random: Owns answers for exactly the frames of
// live segments, each segment's frames stay its own, and the limits give ENOSPC.
func TestPoolModel(t *testing.T) {
	var tb Table
	f := newFrames(1 << 30)
	rng := rand.New(rand.NewSource(1))
	live := map[int32][]uintptr{}
	for step := 0; step < 3000; step++ {
		if rng.Intn(2) == 0 && len(live) > 0 {
			for id, pas := range live {
				slot, e := tb.Lookup(id)
				if e != 0 {
					t.Fatal(e)
				}
				tb.Remove(slot, root, f.free)
				for _, pa := range pas {
					if tb.Owns(pa) {
						t.Fatalf("a destroyed segment's frame %#x is still owned", pa)
					}
				}
				delete(live, id)
				break
			}
			continue
		}
		size := uintptr(1 + rng.Intn(700*PageSize))
		pages := int((size + PageSize - 1) / PageSize)
		total := 0
		for _, pas := range live {
			total += len(pas)
		}
		id, e := tb.Get(IPCPrivate, size, IPCCreat, root, 1, f.alloc, f.free)
		if len(live) == MaxSegments || total+pages > MaxPages {
			if e != abi.ENOSPC {
				t.Fatalf("over a limit: errno %d, want ENOSPC", e)
			}
			continue
		}
		if e == abi.ENOSPC {
			continue // a fragmented pool: allowed, but it must not lose frames
		}
		if e != 0 {
			t.Fatal(e)
		}
		slot, _ := tb.Lookup(id)
		var pas []uintptr
		for k := 0; k < pages; k++ {
			pa, ok := tb.Frame(slot, uintptr(k)*PageSize)
			if !ok || !tb.Owns(pa) {
				t.Fatalf("page %d of a new segment: %#x %v", k, pa, ok)
			}
			pas = append(pas, pa)
		}
		live[id] = pas
		for other, opas := range live {
			oslot, _ := tb.Lookup(other)
			for k, pa := range opas {
				if got, _ := tb.Frame(oslot, uintptr(k)*PageSize); got != pa {
					t.Fatalf("segment %d page %d moved from %#x to %#x", other, k, pa, got)
				}
			}
		}
	}
	for id := range live {
		slot, _ := tb.Lookup(id)
		tb.Remove(slot, root, f.free)
	}
	if f.out != 0 || tb.nowned != 0 {
		t.Fatalf("after removing everything: %d frames out, %d owned", f.out, tb.nowned)
	}
}

// TestPermissions: owner, group and others' bits as Linux's ipcperms reads them.
func TestPermissions(t *testing.T) {
	var tb Table
	f := newFrames(100)
	owner := Cred{UID: 10, GID: 20}
	id, _ := tb.Get(IPCPrivate, 1, IPCCreat|0o640, owner, 1, f.alloc, f.free)
	slot, _ := tb.Lookup(id)
	for _, tc := range []struct {
		c   Cred
		acc uint32
		ok  bool
	}{
		{owner, 6, true},
		{owner, 7, false},
		{Cred{UID: 11, GID: 20}, 4, true},
		{Cred{UID: 11, GID: 20}, 6, false},
		{Cred{UID: 11, GID: 21}, 4, false},
		{Cred{UID: 0, GID: 21}, 7, true},
	} {
		if got := tb.Access(slot, tc.c, tc.acc); got != tc.ok {
			t.Errorf("Access(%+v, %o) = %v", tc.c, tc.acc, got)
		}
	}
	if e := tb.Set(slot, Cred{UID: 11}, 11, 20, 0o600, 2); e != abi.EPERM {
		t.Errorf("IPC_SET by a stranger: errno %d", e)
	}
	if e := tb.Set(slot, owner, 11, 20, 0o7600, 2); e != 0 || tb.Stat(slot).Mode != 0o600 || tb.Stat(slot).UID != 11 || tb.Stat(slot).CUID != 10 {
		t.Errorf("IPC_SET: errno %d, %+v", e, tb.Stat(slot))
	}
	if e := tb.Lock(slot, owner, true); e != 0 || tb.Stat(slot).Mode&ModeLocked == 0 {
		t.Errorf("SHM_LOCK by the creator: errno %d", e)
	}
}
