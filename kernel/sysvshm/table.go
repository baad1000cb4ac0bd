// Package sysvshm is the kernel's table of System V shared memory segments (shmget(2),
// shmctl(2)): keys, identifiers, permissions, sizes and the frames behind each segment, with
// Linux's rules (ipc/shm.c, ipc/util.c). Mapping a segment (shmat, shmdt) is the caller's: it
// asks Frame for the frame behind an offset and reports, with SetAttached, how many mappings of
// a segment exist, which is when a removed segment's frames go back.
//
// It is kernel-mode Go: no pointers kept, no allocation, no panic; frames come from and go back
// to the caller's functions. None of it locks; the caller serialises access.
package sysvshm

import "github.com/unitrace/unitrace/kernel/abi"

// Linux's values (include/uapi/linux/ipc.h, include/uapi/linux/shm.h, asm-generic/errno-base.h).
const (
	IPCPrivate = 0
	IPCCreat   = 0o1000
	IPCExcl    = 0o2000

	// Mode bits the kernel sets in shm_perm.mode.
	ModeDest   = 0o1000 // SHM_DEST: removed, freed with its last mapping
	ModeLocked = 0o2000 // SHM_LOCKED
)

const (
	// MaxSegments is how many segments exist at once (Linux's SHMMNI is 4096): more is ENOSPC.
	MaxSegments = 64
	// MaxPages is how many pages all segments hold together (Linux's SHMALL): more is ENOSPC.
	MaxPages = 8192
	// PageSize is the size of a frame.
	PageSize = 4096

	// idMultiplier is Linux's IPCMNI: an identifier is seq*idMultiplier + index, so a stale
	// identifier of a reused slot is refused.
	idMultiplier = 32768
	seqMax       = (1<<31 - 1) / idMultiplier
)

// Cred is who makes a call: root (uid 0) passes every permission check, as with CAP_IPC_OWNER
// and CAP_SYS_ADMIN.
type Cred struct {
	UID, GID uint32
	PID      int32
}

// Segment is what IPC_STAT reports of a segment.
type Segment struct {
	Key                  int32
	UID, GID, CUID, CGID uint32
	Mode                 uint32 // permission bits, ModeDest, ModeLocked
	Seq                  uint16
	Size                 uintptr // the size asked for, in bytes
	Atime, Dtime, Ctime  int64   // seconds: last attach, last detach, creation or last change
	CPID, LPID           int32
	Attached             uint64 // shm_nattch: the mappings of it
	first, pages         int    // its frames: pool[first : first+pages]
	used                 bool
}

// Table is the set of segments. The zero value is empty and ready.
type Table struct {
	segs [MaxSegments]Segment
	seq  uint32 // the next segment's sequence number
	pool [MaxPages]uintptr

	// owned holds every segment's frames sorted, for Owns.
	owned  [MaxPages]uintptr
	nowned int
}

// Get is shmget(key, size, flags): the identifier of key's segment, or of a new one (key
// IPCPrivate, or IPCCreat and no segment has key), whose frames alloc gives, zeroed. now is the
// wall clock's seconds. Errors follow Linux: a new segment of size 0 or larger than the table
// can ever hold EINVAL, no slot or pages left ENOSPC, no frames ENOMEM; an existing one with
// IPCCreat|IPCExcl EEXIST, smaller than size EINVAL, without the access flags ask EACCES; no
// segment and no IPCCreat ENOENT.
func (t *Table) Get(key int32, size uintptr, flags int, c Cred, now int64, alloc func() (uintptr, bool), free func(uintptr)) (id int32, errno int) {
	if key != IPCPrivate {
		if i := t.byKey(key); i >= 0 {
			s := &t.segs[i]
			switch {
			case flags&IPCCreat != 0 && flags&IPCExcl != 0:
				return 0, abi.EEXIST
			case s.Size < size:
				return 0, abi.EINVAL
			case !allowed(s, c, uint32(flags)&0o777):
				return 0, abi.EACCES
			}
			return t.id(i), 0
		}
		if flags&IPCCreat == 0 {
			return 0, abi.ENOENT
		}
	}
	if size == 0 || size > MaxPages*PageSize {
		return 0, abi.EINVAL // SHMMIN is 1; SHMMAX is what the table can hold
	}
	pages := int((size + PageSize - 1) / PageSize)
	i := t.freeSlot()
	if i < 0 || t.nowned+pages > MaxPages {
		return 0, abi.ENOSPC
	}
	first, ok := t.poolRun(pages)
	if !ok {
		return 0, abi.ENOSPC // the pool is fragmented: as good as full
	}
	for k := 0; k < pages; k++ {
		pa, ok := alloc()
		if !ok {
			for k--; k >= 0; k-- {
				free(t.pool[first+k])
			}
			return 0, abi.ENOMEM
		}
		t.pool[first+k] = pa
	}
	for k := 0; k < pages; k++ {
		t.own(t.pool[first+k])
	}
	t.segs[i] = Segment{Key: key, UID: c.UID, GID: c.GID, CUID: c.UID, CGID: c.GID,
		Mode: uint32(flags) & 0o777, Seq: uint16(t.seq), Size: size, Ctime: now, CPID: c.PID,
		first: first, pages: pages, used: true}
	t.seq++
	if t.seq > seqMax {
		t.seq = 0
	}
	return t.id(i), 0
}

// Lookup returns the slot of identifier id, or EINVAL for one that names no segment (negative,
// never given, or removed).
func (t *Table) Lookup(id int32) (slot int, errno int) {
	if id < 0 {
		return 0, abi.EINVAL
	}
	i := int(id % idMultiplier)
	if i >= MaxSegments || !t.segs[i].used || uint32(t.segs[i].Seq) != uint32(id/idMultiplier) {
		return 0, abi.EINVAL
	}
	return i, 0
}

// Stat returns the segment in slot (from Lookup).
func (t *Table) Stat(slot int) Segment { return t.segs[slot] }

// ID returns the identifier of the segment in slot.
func (t *Table) ID(slot int) int32 { return t.id(slot) }

// Used reports whether slot holds a segment (SHM_STAT takes slots).
func (t *Table) Used(slot int) bool { return slot >= 0 && slot < MaxSegments && t.segs[slot].used }

// Access reports whether c may attach slot's segment for acc (4 read, 2 write, 1 exec:
// the permission bits asked of owner, group or others).
func (t *Table) Access(slot int, c Cred, acc uint32) bool {
	s := &t.segs[slot]
	return allowed(s, c, acc<<6|acc<<3|acc)
}

// Attach records an attach of slot's segment by c at now (shm_atime, shm_lpid).
func (t *Table) Attach(slot int, c Cred, now int64) {
	t.segs[slot].Atime, t.segs[slot].LPID = now, c.PID
}

// Detach records a detach (shm_dtime, shm_lpid).
func (t *Table) Detach(slot int, c Cred, now int64) {
	t.segs[slot].Dtime, t.segs[slot].LPID = now, c.PID
}

// Frame returns the frame behind byte offset off of slot's segment, false past its last page.
func (t *Table) Frame(slot int, off uintptr) (uintptr, bool) {
	s := &t.segs[slot]
	if !s.used || off/PageSize >= uintptr(s.pages) {
		return 0, false
	}
	return t.pool[s.first+int(off/PageSize)], true
}

// Set is IPC_SET: the owner, group and permission bits, by the owner, the creator or root
// (else EPERM).
func (t *Table) Set(slot int, c Cred, uid, gid, mode uint32, now int64) int {
	s := &t.segs[slot]
	if !owner(s, c) {
		return abi.EPERM
	}
	s.UID, s.GID = uid, gid
	s.Mode = s.Mode&^0o777 | mode&0o777
	s.Ctime = now
	return 0
}

// Lock is SHM_LOCK (lock) or SHM_UNLOCK: only a mark here, every frame being resident; by the
// owner, the creator or root (else EPERM).
func (t *Table) Lock(slot int, c Cred, lock bool) int {
	s := &t.segs[slot]
	if !owner(s, c) {
		return abi.EPERM
	}
	if lock {
		s.Mode |= ModeLocked
	} else {
		s.Mode &^= ModeLocked
	}
	return 0
}

// Remove is IPC_RMID, by the owner, the creator or root (else EPERM): the key is forgotten at
// once (the segment becomes private) and the segment goes with its last mapping, now if it has
// none.
func (t *Table) Remove(slot int, c Cred, free func(uintptr)) int {
	s := &t.segs[slot]
	if !owner(s, c) {
		return abi.EPERM
	}
	s.Mode |= ModeDest
	s.Key = IPCPrivate
	if s.Attached == 0 {
		t.destroy(slot, free)
	}
	return 0
}

// SetAttached records how many mappings slot's segment has; a removed segment with none is
// destroyed, its frames given to free.
func (t *Table) SetAttached(slot int, n uint64, free func(uintptr)) {
	s := &t.segs[slot]
	if !s.used {
		return
	}
	s.Attached = n
	if n == 0 && s.Mode&ModeDest != 0 {
		t.destroy(slot, free)
	}
}

// Owns reports whether pa is one of a segment's frames, which unmapping a page must not free.
func (t *Table) Owns(pa uintptr) bool {
	lo, hi := 0, t.nowned
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if t.owned[mid] < pa {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo < t.nowned && t.owned[lo] == pa
}

// Live returns how many segments exist.
func (t *Table) Live() int {
	n := 0
	for i := range t.segs {
		if t.segs[i].used {
			n++
		}
	}
	return n
}

// Usage is SHM_INFO's: segments, pages held (all resident: shm_tot and shm_rss alike) and the
// highest slot in use (-1 when none).
func (t *Table) Usage() (segments int, pages uint64, maxSlot int) {
	maxSlot = -1
	for i := range t.segs {
		if t.segs[i].used {
			segments++
			pages += uint64(t.segs[i].pages)
			maxSlot = i
		}
	}
	return segments, pages, maxSlot
}

func (t *Table) id(slot int) int32 { return int32(t.segs[slot].Seq)*idMultiplier + int32(slot) }

func (t *Table) byKey(key int32) int {
	for i := range t.segs {
		if t.segs[i].used && t.segs[i].Key == key {
			return i
		}
	}
	return -1
}

func (t *Table) freeSlot() int {
	for i := range t.segs {
		if !t.segs[i].used {
			return i
		}
	}
	return -1
}

// poolRun finds pages free entries in a row in the pool: the lowest start that no segment's
// run overlaps. Each clash moves start past a run, so it takes at most one pass per segment.
func (t *Table) poolRun(pages int) (int, bool) {
	start := 0
	for pass := 0; pass <= MaxSegments; pass++ {
		clash := false
		for i := range t.segs {
			s := &t.segs[i]
			if s.used && s.first < start+pages && start < s.first+s.pages {
				start, clash = s.first+s.pages, true
			}
		}
		if !clash {
			return start, start+pages <= MaxPages
		}
	}
	return 0, false
}

func (t *Table) destroy(slot int, free func(uintptr)) {
	s := &t.segs[slot]
	for k := 0; k < s.pages; k++ {
		pa := t.pool[s.first+k]
		t.disown(pa)
		free(pa)
		t.pool[s.first+k] = 0
	}
	t.segs[slot] = Segment{}
}

func (t *Table) own(pa uintptr) {
	i := t.nowned
	for i > 0 && t.owned[i-1] > pa {
		t.owned[i] = t.owned[i-1]
		i--
	}
	t.owned[i] = pa
	t.nowned++
}

func (t *Table) disown(pa uintptr) {
	for i := 0; i < t.nowned; i++ {
		if t.owned[i] == pa {
			copy(t.owned[i:t.nowned-1], t.owned[i+1:t.nowned])
			t.nowned--
			return
		}
	}
}

// allowed is Linux's ipcperms: the bits of want (in the owner's, group's and others' places)
// that apply to c must all be granted; root is always allowed.
func allowed(s *Segment, c Cred, want uint32) bool {
	if c.UID == 0 {
		return true
	}
	granted := s.Mode & 0o777
	switch {
	case c.UID == s.UID || c.UID == s.CUID:
		granted >>= 6
	case c.GID == s.GID || c.GID == s.CGID:
		granted >>= 3
	}
	// want holds the same three bits in all three places; the lowest place is what is asked.
	req := (want>>6 | want>>3 | want) & 7
	return req&^granted&7 == 0
}

// owner reports whether c may change or remove s: its owner, its creator or root.
func owner(s *Segment, c Cred) bool { return c.UID == 0 || c.UID == s.UID || c.UID == s.CUID }
