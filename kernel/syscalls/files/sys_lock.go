package files

import (
	"encoding/binary"

	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/machine"

	"github.com/unitrace/unitrace/kernel/filelock"
	"github.com/unitrace/unitrace/kernel/fs"
)

// File locks: fcntl's record locks and flock's, kept by package filelock. There is one process,
// so its POSIX locks (F_SETLK) never conflict with each other; OFD locks (F_OFD_SETLK) and flock
// locks belong to open file descriptions and conflict between descriptions, and with the
// process's POSIX locks for OFD. A lock that must wait (F_SETLKW, F_OFD_SETLKW, flock without
// LOCK_NB) sleeps on core.LockKey; every release wakes all such sleepers, which try again. A signal
// restarts the wait (ERESTARTSYS), as Linux's. Closing any descriptor of a file drops the
// process's POSIX locks on it; the last close of a description drops its OFD and flock locks.
// Locks are on files only: other descriptors are EINVAL.

// fcntl's lock commands and flock's operations (asm-generic/fcntl.h, linux/fcntl.h).
const (
	fGetlk     = 5
	fSetlk     = 6
	fSetlkw    = 7
	fOFDGetlk  = 36
	fOFDSetlk  = 37
	fOFDSetlkw = 38

	lockSH = 1
	lockEX = 2
	lockNB = 4

	lockMand = 32
	lockUN   = 8

	flockSize = 32 // struct flock on 64-bit Linux: type, whence (shorts), start, len, pid
)

var fileLocks filelock.Table

// ownerOf is the filelock owner of open file description d.
func ownerOf(d int) uint32 { return uint32(d) + 1 }

// doFcntlLock serves fcntl's six lock commands on descriptor n with the struct flock at
// arg. done is false while the thread waits.
func doFcntlLock(f *machine.Frame, n, cmd int, arg uintptr) (uint64, bool) {
	file, errno := fileOf(n, abi.EINVAL)
	if errno != 0 {
		return abi.Neg(errno), true
	}
	b, ok := core.UserBytes(arg, flockSize, cmd == fGetlk || cmd == fOFDGetlk)
	if !ok {
		return abi.Neg(abi.EFAULT), true
	}
	ltype, whence := binary.LittleEndian.Uint16(b[0:]), int16(binary.LittleEndian.Uint16(b[2:]))
	start, length := int64(core.LE64(b[8:])), int64(core.LE64(b[16:]))
	pid := int32(binary.LittleEndian.Uint32(b[24:]))
	ofd := cmd >= fOFDGetlk
	if ofd && pid != 0 {
		return abi.Neg(abi.EINVAL), true
	}
	if ltype > uint16(filelock.Unlock) {
		return abi.Neg(abi.EINVAL), true
	}
	switch whence {
	case seekSet:
	case seekCur:
		start = addPos(file.Pos, start)
	case seekEnd:
		st, errno := core.RootNS.Stat(file.Node)
		if errno != 0 {
			return abi.Neg(errno), true
		}
		start = addPos(st.Size, start)
	default:
		return abi.Neg(abi.EINVAL), true
	}
	// flock_to_posix_lock: the range [start, end], a negative length counting back.
	end := int64(filelock.OffsetMax)
	switch {
	case start < 0:
		return abi.Neg(abi.EINVAL), true
	case length > 0:
		if length-1 > filelock.OffsetMax-start {
			return abi.Neg(abi.EOVERFLOW), true
		}
		end = start + length - 1
	case length < 0:
		end = start - 1
		if start += length; start < 0 {
			return abi.Neg(abi.EINVAL), true
		}
	}
	d, _ := core.FDs.Description(n)
	l := filelock.Lock{File: fileKey(file.Node), Start: start, End: end, Owner: filelock.ProcessOwner, Type: filelock.Type(ltype)}
	if ofd {
		l.Owner = ownerOf(d)
	}
	if cmd == fGetlk || cmd == fOFDGetlk {
		if l.Type == filelock.Unlock {
			return abi.Neg(abi.EINVAL), true
		}
		h, busy := fileLocks.Conflict(l)
		if !busy {
			binary.LittleEndian.PutUint16(b[0:], uint16(filelock.Unlock))
			return 0, true
		}
		hpid := int32(-1)
		if h.Owner == filelock.ProcessOwner {
			hpid = core.ProcessID
		}
		hlen := int64(0)
		if h.End != filelock.OffsetMax {
			hlen = h.End - h.Start + 1
		}
		binary.LittleEndian.PutUint16(b[0:], uint16(h.Type))
		binary.LittleEndian.PutUint16(b[2:], seekSet)
		binary.LittleEndian.PutUint64(b[8:], uint64(h.Start))
		binary.LittleEndian.PutUint64(b[16:], uint64(hlen))
		binary.LittleEndian.PutUint32(b[24:], uint32(hpid))
		return 0, true
	}
	acc := file.Flags & fs.O_ACCMODE
	if l.Type == filelock.Read && acc == fs.O_WRONLY || l.Type == filelock.Write && acc == fs.O_RDONLY {
		return abi.Neg(abi.EBADF), true
	}
	return setLock(f, l, cmd == fSetlkw || cmd == fOFDSetlkw)
}

// Flock is flock(n, op).
func Flock(f *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	n := int(a[0])
	op := int(int32(a[1]))
	// As Linux: LOCK_MAND (32) is ignored with success, and the operation is checked before
	// the descriptor.
	if op&lockMand != 0 {
		return 0, true
	}
	switch op &^ lockNB {
	case lockSH, lockEX, lockUN:
	default:
		return abi.Neg(abi.EINVAL), true
	}
	file, errno := fileOf(n, abi.EINVAL)
	if errno != 0 {
		return abi.Neg(errno), true
	}
	l := filelock.Lock{File: fileKey(file.Node), Class: filelock.Flock}
	switch op &^ lockNB {
	case lockSH:
		l.Type = filelock.Read
	case lockEX:
		l.Type = filelock.Write
	case lockUN:
		l.Type = filelock.Unlock
	default:
		return abi.Neg(abi.EINVAL), true
	}
	d, _ := core.FDs.Description(n)
	l.Owner = ownerOf(d)
	return setLock(f, l, op&lockNB == 0)
}

// setLock takes lock l, waiting for it if wait.
func setLock(f *machine.Frame, l filelock.Lock, wait bool) (uint64, bool) {
	errno := fileLocks.Set(l)
	if errno == abi.EAGAIN && wait {
		t := core.Cur()
		t.LockWait, t.Deadline = l, 0
		core.Waiters.Enqueue(core.LockKey, core.CurSlot())
		core.Block(f, core.WaitLock)
		return 0, false
	}
	if l.Type == filelock.Unlock || l.Class == filelock.Flock {
		core.FutexWake(core.LockKey, core.MaxThreads) // an unlock, or a flock conversion that dropped a lock
	}
	return abi.ErrnoOr(errno, 0), true
}

// CompleteLockWait tries the lock of the thread in slot again after a release.
func CompleteLockWait(f *machine.Frame, slot int32) {
	t := &core.Threads[slot]
	errno := fileLocks.Set(t.LockWait)
	if errno == abi.EAGAIN {
		t.Wait = core.WaitLock
		core.Rearm(slot, core.LockKey)
		return
	}
	machine.SetSysRet(f, abi.ErrnoOr(errno, 0))
}

// fileKey names a file among all file systems for the lock table.
func fileKey(n fs.Node) uint64 { return uint64(n.FS)<<32 | uint64(n.Ino) }

// locksBeforeClose notes what closing descriptor n concerns of the lock table: its file and
// description, if it is a file's.
func locksBeforeClose(n int) (key uint64, d int, ok bool) {
	file, isFile := core.FDs.File(n)
	if !isFile {
		return 0, 0, false
	}
	d, _ = core.FDs.Description(n)
	return fileKey(file.Node), d, true
}

// locksAfterClose drops the locks a close released: the process's POSIX locks on the file, and
// the description's OFD and flock locks if the close was its last (lastClose).
func locksAfterClose(key uint64, d int, lastClose bool) {
	dropped := fileLocks.Release(key, false, filelock.ProcessOwner, filelock.Record)
	if lastClose {
		dropped = fileLocks.Release(0, true, ownerOf(d), filelock.Record) || dropped
		dropped = fileLocks.Release(0, true, ownerOf(d), filelock.Flock) || dropped
	}
	if dropped {
		core.FutexWake(core.LockKey, core.MaxThreads)
	}
}
