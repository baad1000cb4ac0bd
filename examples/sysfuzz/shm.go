package main

import (
	"encoding/binary"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/unitrace/unitrace/examples/sysfuzz/fuzz"
)

// System V shared memory leaks on the host unless removed: a segment outlives the process that
// made it. So every segment the fuzzer makes is attached once and removed (IPC_RMID) at once,
// which leaves it alive while attached and gone with the process at the latest; the fuzzer's
// calls then attach, detach and query those segments, never a key another program may use.

// shmKey is a key the fuzzer never creates: shmget looks it up (ENOENT) and nothing more.
const shmKey = 0x5f2a7e11

// maxShmAttached is how many attachments the fuzzer keeps; past it the oldest is detached.
const maxShmAttached = 8

type shmAttachment struct {
	id   int
	addr uintptr
}

type shmState struct {
	mu       sync.Mutex
	attached []shmAttachment
}

// adopt attaches the new segment id and removes it, so that it dies with its last attachment.
func (s *shmState) adopt(id int) {
	r, _, e := unix.Syscall(unix.SYS_SHMAT, uintptr(id), 0, 0)
	unix.Syscall(unix.SYS_SHMCTL, uintptr(id), unix.IPC_RMID, 0)
	if e == 0 {
		s.track(id, r)
	}
}

// track records an attachment, detaching the oldest past the limit.
func (s *shmState) track(id int, addr uintptr) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.attached = append(s.attached, shmAttachment{id, addr})
	if len(s.attached) > maxShmAttached {
		unix.Syscall(unix.SYS_SHMDT, s.attached[0].addr, 0, 0)
		s.attached = s.attached[1:]
	}
}

// pick returns one attachment, if there is one.
func (s *shmState) pick(r *fuzz.Rand) (shmAttachment, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.attached) == 0 {
		return shmAttachment{}, false
	}
	return s.attached[r.Intn(len(s.attached))], true
}

// detached forgets the attachment at addr.
func (s *shmState) detached(addr uintptr) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, a := range s.attached {
		if a.addr == addr {
			s.attached = append(s.attached[:i], s.attached[i+1:]...)
			return
		}
	}
}

// reset detaches everything (the segments go) and makes one segment for the next call.
func (s *shmState) reset() {
	s.mu.Lock()
	for _, a := range s.attached {
		unix.Syscall(unix.SYS_SHMDT, a.addr, 0, 0)
	}
	s.attached = nil
	s.mu.Unlock()
	if id, _, e := unix.Syscall(unix.SYS_SHMGET, unix.IPC_PRIVATE, 2*pageSize, unix.IPC_CREAT|0o600); e == 0 {
		s.adopt(int(id))
	}
}

// shmID is an attached segment's identifier, or one that names nothing.
func (c *call) shmID() uintptr {
	if a, ok := c.e.shm.pick(c.r); ok && !c.r.Chance(1, 5) {
		return uintptr(a.id)
	}
	return uintptr(fuzz.Pick(c.r, -1, 0x7fffffff, 1<<20, 0))
}

var shmCalls = []spec{
	{"shmget", func(c *call) {
		key := uintptr(fuzz.Pick(c.r, unix.IPC_PRIVATE, unix.IPC_PRIVATE, shmKey))
		size := uintptr(fuzz.Pick(c.r, 1, 100, pageSize, 3*pageSize+5, 8*pageSize+1, 0, -1))
		flags := fuzz.Flags(c.r, unix.IPC_CREAT, unix.IPC_EXCL, 0o600, 0o444, 0o777, shmHugeTLB, shmNoReserve)
		if key == shmKey {
			flags &^= unix.IPC_CREAT // a lookup only: never a segment under a key
		}
		if flags&shmHugeTLB != 0 && key == unix.IPC_PRIVATE && flags&unix.IPC_CREAT != 0 {
			flags &^= shmHugeTLB // the host may have huge pages to give: not comparable
		}
		c.set(key, size, uintptr(flags))
		c.after = func(id uintptr) { c.e.shm.adopt(int(id)) }
	}},
	{"shmat", func(c *call) {
		// Address 0, or one shmat refuses: unaligned without SHM_RND, or over the arena without
		// SHM_REMAP. SHM_REMAP only without an address (EINVAL): never over the fuzzer's memory.
		c.mem = true
		addr := uintptr(fuzz.Pick(c.r, 0, 0, 0, int(c.e.arena), int(c.e.arena)+1))
		flags := fuzz.Flags(c.r, unix.SHM_RDONLY, shmExecFlag, unix.SHM_RND, shmRemapFlag)
		if addr != 0 {
			flags &^= shmRemapFlag
		}
		id := c.shmID()
		c.set(id, addr, uintptr(flags))
		c.after = func(r uintptr) { c.e.shm.track(int(id), r) }
	}},
	{"shmdt", func(c *call) {
		c.mem = true
		addr := uintptr(fuzz.Pick(c.r, 0, int(c.e.arena), int(c.e.arena)+1))
		if a, ok := c.e.shm.pick(c.r); ok && c.r.Chance(2, 3) {
			addr = a.addr
		}
		c.set(addr)
		c.after = func(uintptr) { c.e.shm.detached(addr) }
	}},
	{"shmctl", func(c *call) {
		// IPC_STAT and IPC_RMID (the fuzzer's segments are removed already), IPC_SET with the
		// segment's own settings (never giving it away), unknown commands. Not IPC_INFO,
		// SHM_INFO and SHM_STAT, whose answers are the machine's (other programs' segments),
		// nor SHM_LOCK, which the host's unprivileged fuzzer may not do.
		id := c.shmID()
		cmd := uintptr(fuzz.Pick(c.r, unix.IPC_STAT, unix.IPC_STAT|0x100, unix.IPC_RMID, unix.IPC_SET, 99, -1))
		buf := c.out(112)
		if cmd == unix.IPC_SET {
			var d [112]byte
			unix.Syscall(unix.SYS_SHMCTL, id, unix.IPC_STAT, uintptr(unsafe.Pointer(&d[0])))
			binary.LittleEndian.PutUint32(d[20:], binary.LittleEndian.Uint32(d[20:])&0o777)
			buf = c.inb(d[:])
		}
		c.set(id, cmd, buf)
	}},
}

// shmget and shmat flags x/sys does not name (include/uapi/linux/shm.h).
const (
	shmRemapFlag = 0o40000
	shmHugeTLB   = 0o4000
	shmNoReserve = 0o10000
	shmExecFlag  = 0o100000
)

func init() { table = append(table, shmCalls...) }
