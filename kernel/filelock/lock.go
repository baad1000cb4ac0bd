// Package filelock is the table of file locks: fcntl's record locks (a process's POSIX locks and
// open file descriptions' OFD locks, which share one space and conflict with each other) and
// flock's whole-file locks (a space of their own), with Linux's rules (fs/locks.c). It decides
// and records; waiting, user memory and errno reporting are the caller's.
//
// Like the rest of the kernel it is pointer-free and allocation-free: a fixed array of locks,
// and a second one to build an edit in, so that every edit is atomic.
package filelock

import "github.com/unitrace/unitrace/kernel/abi"

// MaxLocks is how many locks the table holds; a lock that needs more is ENOLCK.
const MaxLocks = 128

// OffsetMax is the last byte a lock can cover: Linux's OFFSET_MAX. A lock to the end of the
// file (l_len 0) ends there.
const OffsetMax = 1<<63 - 1

// Class says which kind of lock a Lock is: fcntl record locks (POSIX and OFD) or flock's.
type Class uint8

const (
	Record Class = iota // fcntl's F_SETLK and F_OFD_SETLK: byte ranges, conflicting across owners
	Flock               // flock(2): the whole file
)

// Type is a lock's type, with the values of F_RDLCK, F_WRLCK and F_UNLCK.
type Type uint8

const (
	Read   Type = 0
	Write  Type = 1
	Unlock Type = 2
)

// ProcessOwner is the owner of the process's POSIX locks. Other owners are open file
// descriptions (OFD locks and flock locks), numbered by the caller from 1.
const ProcessOwner = 0

// Lock is one lock: bytes [Start, End] (inclusive, End at most OffsetMax) of the file with key
// File, held by Owner.
type Lock struct {
	File       uint64
	Start, End int64
	Owner      uint32
	Class      Class
	Type       Type
}

// Table is the lock table. The zero value is empty and ready.
type Table struct {
	locks   [MaxLocks]Lock
	n       int
	scratch [MaxLocks]Lock
}

// Len returns how many locks the table holds.
func (t *Table) Len() int { return t.n }

// At returns lock i (in no particular order), or the zero Lock out of range.
func (t *Table) At(i int) Lock {
	if i < 0 || i >= t.n {
		return Lock{}
	}
	return t.locks[i]
}

func overlaps(a, b *Lock) bool { return a.Start <= b.End && b.Start <= a.End }

// conflicts reports whether held lock h keeps l from being taken.
func conflicts(h, l *Lock) bool {
	return h.File == l.File && h.Class == l.Class && h.Owner != l.Owner &&
		(h.Type == Write || l.Type == Write) && overlaps(h, l)
}

// Conflict returns the first lock that keeps l (Read or Write) from being taken: F_GETLK's and
// F_OFD_GETLK's answer. An owner's own locks never conflict with it.
func (t *Table) Conflict(l Lock) (Lock, bool) {
	for i := 0; i < t.n; i++ {
		if conflicts(&t.locks[i], &l) {
			return t.locks[i], true
		}
	}
	return Lock{}, false
}

// Set takes, changes or drops (Type Unlock) l's owner's lock over l's bytes, as F_SETLK and
// flock do. A record lock replaces what its owner held of its range (splitting locks that
// straddle it, merging with adjacent ones of the same type), or fails with EAGAIN, changing
// nothing, while another owner's lock conflicts. A flock lock is the whole file: the owner's
// earlier lock of another type is dropped first, and stays dropped when the new one then
// conflicts (EAGAIN), as Linux's flock conversion. A table that cannot hold the result is
// ENOLCK, changing nothing.
func (t *Table) Set(l Lock) (errno int) {
	if l.Class == Flock {
		return t.setFlock(l)
	}
	if l.Type != Unlock {
		if _, busy := t.Conflict(l); busy {
			return abi.EAGAIN
		}
	}
	// Merge with the owner's adjacent or overlapping locks of the same type.
	if l.Type != Unlock {
		for i := 0; i < t.n; i++ {
			h := &t.locks[i]
			if h.File == l.File && h.Class == l.Class && h.Owner == l.Owner && h.Type == l.Type &&
				(h.End == OffsetMax || h.End+1 >= l.Start) && (l.End == OffsetMax || h.Start <= l.End+1) {
				l.Start, l.End = min(l.Start, h.Start), max(l.End, h.End)
			}
		}
	}
	n := 0
	for i := 0; i < t.n; i++ {
		h := t.locks[i]
		mine := h.File == l.File && h.Class == l.Class && h.Owner == l.Owner
		if !mine || !overlaps(&h, &l) {
			if n == MaxLocks {
				return abi.ENOLCK
			}
			t.scratch[n] = h
			n++
			continue
		}
		if h.Start < l.Start {
			if n == MaxLocks {
				return abi.ENOLCK
			}
			t.scratch[n] = h
			t.scratch[n].End = l.Start - 1
			n++
		}
		if h.End > l.End {
			if n == MaxLocks {
				return abi.ENOLCK
			}
			t.scratch[n] = h
			t.scratch[n].Start = l.End + 1
			n++
		}
	}
	if l.Type != Unlock {
		if n == MaxLocks {
			return abi.ENOLCK
		}
		t.scratch[n] = l
		n++
	}
	copy(t.locks[:n], t.scratch[:n])
	t.n = n
	return 0
}

func (t *Table) setFlock(l Lock) int {
	l.Start, l.End = 0, OffsetMax
	for i := 0; i < t.n; i++ {
		h := &t.locks[i]
		if h.File == l.File && h.Class == Flock && h.Owner == l.Owner {
			if h.Type == l.Type {
				return 0
			}
			t.remove(i)
			break
		}
	}
	if l.Type == Unlock {
		return 0
	}
	if _, busy := t.Conflict(l); busy {
		return abi.EAGAIN
	}
	if t.n == MaxLocks {
		return abi.ENOLCK
	}
	t.locks[t.n] = l
	t.n++
	return 0
}

func (t *Table) remove(i int) {
	t.n--
	t.locks[i] = t.locks[t.n]
	t.locks[t.n] = Lock{}
}

// Release drops every lock of class c that owner holds on file (on every file if all) and
// reports whether it dropped any: a close of a descriptor of
// the file drops the process's POSIX locks on it; the last close of an open file description
// drops its OFD and flock locks.
func (t *Table) Release(file uint64, all bool, owner uint32, c Class) bool {
	dropped := false
	for i := 0; i < t.n; {
		h := &t.locks[i]
		if (all || h.File == file) && h.Owner == owner && h.Class == c {
			t.remove(i)
			dropped = true
			continue
		}
		i++
	}
	return dropped
}
