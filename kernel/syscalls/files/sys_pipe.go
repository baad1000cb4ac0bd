package files

import (
	"encoding/binary"

	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/dev/serial"
	"github.com/unitrace/unitrace/kernel/machine"

	"github.com/unitrace/unitrace/kernel/fd"
	"github.com/unitrace/unitrace/kernel/signal"
)

// Pipes: pipe2 and pipe make them (package fd keeps their buffers and ends); read, write, readv
// and writev on an end block while it is empty or full unless the end is O_NONBLOCK. A blocked
// thread waits on the descriptor it used (fdKey), and whatever changes a pipe wakes the waiters
// of every descriptor of both its ends and the epoll instances watching them (wakePipe).

// sigPIPE is SIGPIPE, 13 on both architectures (asm-generic/signal.h, arch/x86 signal.h).
const sigPIPE = 13

var (
	pipeFDs     [fd.MaxFDs]int32
	pipeScratch [fd.PipeBuf]byte // gathers a small writev, which must be as atomic as a write
)

// DoPipe2 makes a pipe and stores its read and write descriptors as two ints at fds.
func DoPipe2(addr uintptr, flags int) uint64 {
	if flags&^(fd.O_CLOEXEC|fd.O_NONBLOCK) != 0 { // before the pointer, as Linux
		return abi.Neg(abi.EINVAL)
	}
	b, ok := core.UserBytes(addr, 8, true) // checked first, so a bad pointer leaves no pipe behind
	if !ok {
		return abi.Neg(abi.EFAULT)
	}
	r, w, errno := core.FDs.Pipe2(flags)
	if errno != 0 {
		return abi.Neg(errno)
	}
	binary.LittleEndian.PutUint32(b[0:4], uint32(r))
	binary.LittleEndian.PutUint32(b[4:8], uint32(w))
	return 0
}

// wakePipe wakes the threads waiting on the descriptors of pipe p's ends and in the epoll
// instances watching them, after p changed.
func wakePipe(p int) {
	n := core.FDs.PipeDescriptors(p, pipeFDs[:])
	for i := 0; i < n; i++ {
		core.WakeFDWaiters(int(pipeFDs[i]))
	}
}

// PipeCall is read, write, readv or writev of pipe end n from the system call: it moves what it
// can and, if the thread must wait, blocks it to finish the call when the pipe changes.
func PipeCall(f *machine.Frame, n int, write, vec bool, buf, count uintptr) (uint64, bool) {
	if core.FDs.IsNetlink(n) {
		return netlinkMove(f, n, write, 0, SockCall{src: buf, srcLen: count, srcVec: vec, Out: serial.NetCall{Buf: buf, Count: count, Vec: vec}}, 0)
	}
	if isPair(n) && pairMessages(n, write) {
		if write {
			return pairSend(f, n, vec, buf, count, 0, 0, 0)
		}
		return pairRecv(f, n, vec, buf, count, 0, 0, 0, 0)
	}
	ret, done, moved := pipeIO(core.CurSlot(), n, write, vec, buf, count, 0)
	if !done && !write && isPair(n) {
		// A receive waits to run again whole: what comes may be a message (sys_pairmsg.go).
		blockRerun(f, n)
		return ret, false
	}
	if done {
		core.Cur().NoSigpipe = false // a send's MSG_NOSIGNAL lasts for its own call (pairMove)
	}
	if !done {
		blockOnPipe(f, n, write, vec, buf, count, moved)
	}
	return ret, done
}

func blockOnPipe(f *machine.Frame, n int, write, vec bool, buf, count uintptr, moved uint64) {
	t := core.Cur()
	t.WaitFD, t.WaitAddr, t.WaitCount, t.WaitArg, t.Deadline = int32(n), buf, count, moved, 0
	t.WaitWrite, t.WaitVec = write, vec
	core.Waiters.Enqueue(core.FDKey(n), core.CurSlot())
	core.Block(f, core.WaitPipe)
}

// CompletePipeWait retries the pipe call of the thread in slot after a wake-up.
func CompletePipeWait(f *machine.Frame, slot int32) {
	t := &core.Threads[slot]
	ret, done, moved := pipeIO(slot, int(t.WaitFD), t.WaitWrite, t.WaitVec, t.WaitAddr, t.WaitCount, t.WaitArg)
	if done {
		t.NoSigpipe = false
		machine.SetSysRet(f, ret)
		return
	}
	t.WaitArg = moved
	t.Wait = core.WaitPipe
	core.Rearm(slot, core.FDKey(int(t.WaitFD)))
}

// pipeIO moves bytes between pipe end n and user memory for the thread in slot: buf and count
// are read's and write's buffer, or with vec readv's and writev's iovec array and its length;
// skip bytes were moved before the thread last blocked. It returns the call's result, or
// done=false with the bytes moved so far when the thread must wait: a read that found the pipe
// empty, a write that has bytes left. A read returns what it found; a write of at most PIPE_BUF
// bytes goes in whole, as package fd's PipeWrite. A write with no reader left is EPIPE, and
// SIGPIPE for the thread, as on Linux (the Go runtime ignores SIGPIPE for descriptors other
// than 1 and 2, and os.File reports EPIPE).
func pipeIO(slot int32, n int, write, vec bool, buf, count uintptr, skip uint64) (ret uint64, done bool, moved uint64) {
	total, errno := core.UserIOLen(buf, count, vec)
	if errno != 0 {
		return abi.Neg(errno), true, 0
	}
	var segs []byte
	cnt := 1
	if vec {
		segs, _ = core.UserBytes(buf, count*core.IovecSize, false) // core.UserIOLen read them
		cnt = int(count)
	}
	seg := func(i int) (uintptr, uint64) {
		if !vec {
			return buf, uint64(count)
		}
		return uintptr(core.LE64(segs[i*core.IovecSize:])), core.LE64(segs[i*core.IovecSize+8:])
	}
	p, isPipe := core.FDs.PipeFor(n, write)
	if !isPipe {
		return abi.Neg(abi.EBADF), true, 0 // closed while the thread waited
	}
	if total == 0 {
		_, errno = pipeMove(n, write, nil)
		if errno == abi.EAGAIN {
			errno = 0 // a read of nothing: 0, even from an empty pipe
		}
		return abi.ErrnoOr(errno, 0), true, 0
	}
	moved = skip
	if write && total <= fd.PipeBuf && skip == 0 && vec {
		errno = gatherWrite(n, cnt, seg, &moved)
	} else {
		errno = pipeSegments(n, write, cnt, seg, &moved, ^uint64(0))
	}
	if moved > skip {
		wakePipe(p)
	}
	switch {
	case write && errno == abi.EPIPE && !core.Threads[slot].NoSigpipe:
		core.SendSignal(slot, sigPIPE, signal.Info{Signo: sigPIPE, Code: signal.SI_USER, Pid: core.ProcessID})
	case errno == abi.EAGAIN && !core.FDs.Nonblocking(n) && (write || moved == 0):
		return 0, false, moved
	case errno == 0 && write && moved < total && !core.FDs.Nonblocking(n):
		return 0, false, moved
	}
	if moved > 0 || errno == 0 {
		return moved, true, moved
	}
	return abi.Neg(errno), true, moved
}

// pipeSegments moves the segments' bytes after the first *moved, adding what it moves to
// *moved, until a segment does not go through whole, a call fails or *moved reaches limit.
func pipeSegments(n int, write bool, cnt int, seg func(int) (uintptr, uint64), moved *uint64, limit uint64) int {
	skip := *moved
	for i := 0; i < cnt; i++ {
		base, size := seg(i)
		if skip >= size {
			skip -= size
			continue
		}
		base, size = base+uintptr(skip), size-skip
		skip = 0
		if *moved >= limit {
			return 0
		}
		size = min(size, limit-*moved)
		for size > 0 {
			chunk := min(size, fd.PipeSize)
			b, ok := core.UserBytes(base, uintptr(chunk), !write)
			if !ok {
				return abi.EFAULT
			}
			got, errno := pipeMove(n, write, b)
			if errno != 0 {
				return errno
			}
			*moved += uint64(got)
			if uint64(got) < chunk {
				return 0 // a short read ends the call; a short write waits for room
			}
			base, size = base+uintptr(got), size-uint64(got)
		}
	}
	return 0
}

// gatherWrite is a writev of at most PIPE_BUF bytes: gathered first, so that it goes in whole.
func gatherWrite(n, cnt int, seg func(int) (uintptr, uint64), moved *uint64) int {
	k := 0
	for i := 0; i < cnt; i++ {
		base, size := seg(i)
		b, ok := core.UserBytes(base, uintptr(size), false)
		if !ok {
			return abi.EFAULT
		}
		k += copy(pipeScratch[k:], b)
	}
	got, errno := pipeMove(n, true, pipeScratch[:k])
	*moved += uint64(got)
	return errno
}

func pipeMove(n int, write bool, b []byte) (int, int) {
	if write {
		return core.FDs.PipeWrite(n, b)
	}
	return core.FDs.PipeRead(n, b)
}

// afterPipeClose wakes who a closed pipe descriptor n of pipe p concerns: the threads blocked on
// n itself (their retry sees EBADF) and those of the pipe's remaining descriptors (end of file,
// a broken pipe).
func afterPipeClose(n, p int) {
	core.FutexWake(core.FDKey(n), core.MaxThreads)
	wakePipe(p)
}

// PipeInterrupted ends a pipe read or write a signal woke: with the bytes it moved, or restarted
// if it moved none.
func PipeInterrupted(f *machine.Frame, slot int32) (uint64, bool) {
	if moved := core.Threads[slot].WaitArg; moved > 0 {
		return moved, false
	}
	return 0, true
}
