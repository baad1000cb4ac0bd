package files

import (
	"encoding/binary"

	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/dev/console"
	"github.com/unitrace/unitrace/kernel/dev/serial"
	"github.com/unitrace/unitrace/kernel/machine"

	"github.com/unitrace/unitrace/kernel/fd"
)

// File descriptors: the console (0, 1, 2; its input in console_input.go), eventfds, epoll instances, the trace ports, pipes
// (sys_pipe.go) and the files of the file system (sys_file.go). The Go runtime's netpoller is one
// epoll instance watching one eventfd, and os.Pipe's ends; time.Sleep and timers block in
// epoll_pwait.

const maxEpollBatch = 64

var epollBuf [maxEpollBatch]fd.Event

func WriteFD(n int, buf, count uintptr) uint64 {
	switch core.FDs.Kind(n) {
	case fd.KindConsole:
		b, ok := core.UserBytes(buf, count, false)
		if !ok {
			return abi.Neg(abi.EFAULT)
		}
		machine.ConsoleWrite(b)
		return uint64(count)
	case fd.KindEventfd:
		if count != 8 { // Linux 6.18 takes exactly 8 bytes (a read, 8 or more)
			return abi.Neg(abi.EINVAL)
		}
		v, ok := core.ReadUser64(buf)
		if !ok {
			return abi.Neg(abi.EFAULT)
		}
		if errno := core.FDs.EventfdWrite(n, v); errno != 0 {
			return abi.Neg(errno)
		}
		core.WakeFDWaiters(n)
		return 8
	case fd.KindFile:
		return writeFile(n, buf, count)
	case fd.KindNone:
		return abi.Neg(abi.EBADF)
	}
	return abi.Neg(abi.EINVAL)
}

// WriteDevice writes to a trace port, blocking until the device has the bytes.
func WriteDevice(f *machine.Frame, n int, buf, count uintptr) (uint64, bool) {
	ret, done := serial.PortIO(core.CurSlot(), serial.OpWrite, n, 0, buf, count)
	if !done {
		serial.BlockOnPort(f, serial.PortOpDevice(serial.OpWrite, n))
	}
	return ret, done
}

// eventfdRead reads eventfd n's counter into the 8 bytes at buf, or reports that a blocking
// reader must wait (done=false). The system call and the wait completion both use it.
func eventfdRead(n int, buf uintptr) (ret uint64, done bool) {
	b, ok := core.UserBytes(buf, 8, true) // checked before the counter is consumed
	if !ok {
		return abi.Neg(abi.EFAULT), true
	}
	v, errno := core.FDs.EventfdRead(n)
	switch {
	case errno == abi.EAGAIN && !core.FDs.Nonblocking(n):
		return 0, false
	case errno != 0:
		return abi.Neg(errno), true
	}
	binary.LittleEndian.PutUint64(b, v)
	core.WakeFDWaiters(n) // writability (EPOLLOUT) may have changed
	return 8, true
}

func ReadFD(f *machine.Frame, n int, buf, count uintptr) (uint64, bool) {
	switch core.FDs.Kind(n) {
	case fd.KindConsole:
		return console.Call(f, n, false, buf, count)
	case fd.KindEventfd, fd.KindTimerfd:
		if count < 8 {
			return abi.Neg(abi.EINVAL), true
		}
		ret, done := counterRead(n, buf)
		if !done {
			t := core.Cur()
			t.WaitFD, t.WaitAddr, t.Deadline = int32(n), buf, 0
			core.Waiters.Enqueue(core.FDKey(n), core.CurSlot())
			core.Block(f, core.WaitEventfd)
		}
		return ret, done
	case fd.KindDevice:
		ret, done := serial.PortIO(core.CurSlot(), serial.OpRead, n, 0, buf, count)
		if !done {
			serial.BlockOnPort(f, serial.PortOpDevice(serial.OpRead, n))
		}
		return ret, done
	case fd.KindFile:
		return readFile(n, buf, count), true
	case fd.KindPipe, fd.KindPair:
		return PipeCall(f, n, false, false, buf, count)
	case fd.KindSocket:
		return SockRead(f, n, buf, count, false)
	case fd.KindNone:
		return abi.Neg(abi.EBADF), true
	}
	return abi.Neg(abi.EINVAL), true
}

func EpollCtl(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	epfd := int(a[0])
	op := int(a[1])
	target := int(a[2])
	evAddr := uintptr(a[3])
	var ev fd.Event
	if op != epollCtlDel {
		b, ok := core.UserBytes(evAddr, machine.EpollEventSize, false)
		if !ok {
			return abi.Neg(abi.EFAULT), true
		}
		ev, _ = fd.GetEvent(b, machine.EpollPacked)
	}
	if errno := core.FDs.EpollCtl(epfd, op, target, ev); errno != 0 {
		return abi.Neg(errno), true
	}
	core.WakeFDWaiters(epfd) // the new watch may be ready already
	return 0, true
}

const epollCtlDel = 2

// DoEpollPwait returns ready events at once, or blocks until an eventfd it watches is
// written or the timeout (in ms; -1 forever) passes. The signal mask, if given, stands for the
// thread's until the call returns, as ppoll's (sys_poll.go). pwait2: epoll_pwait2, whose timeout
// is a struct timespec.
func DoEpollPwait(f *machine.Frame, pwait2 bool, epfd int, events uintptr, maxEvents int, timeout uint64, sigmask, sigsize uintptr) (uint64, bool) {
	// Linux's order: epoll_pwait2's timeout, the signal mask, maxevents, the events array's
	// range (access_ok: its pages are only touched when there are events to copy), the epoll
	// descriptor.
	var timeoutNs int64
	if pwait2 && timeout != 0 {
		ns, ok := core.ReadTimespec(uintptr(timeout))
		if !ok {
			return abi.Neg(abi.EFAULT), true
		}
		if ns < 0 {
			return abi.Neg(abi.EINVAL), true
		}
		timeoutNs = ns
	}
	if errno := SetWaitMask(sigmask, sigsize); errno != 0 {
		return abi.Neg(errno), true
	}
	if maxEvents <= 0 || maxEvents > (1<<31-1)/machine.EpollEventSize {
		return abi.Neg(abi.EINVAL), true
	}
	if end := events + uintptr(maxEvents)*machine.EpollEventSize; end < events || end > core.UserHi {
		return abi.Neg(abi.EFAULT), true
	}
	n, errno := epollCollect(epfd, events, maxEvents)
	if errno != 0 {
		return abi.Neg(errno), true
	}
	var deadline int64
	switch {
	case n > 0:
		return uint64(n), true
	case pwait2:
		if timeout != 0 {
			if timeoutNs == 0 {
				return 0, true
			}
			deadline = machine.Nanotime() + timeoutNs
		}
	case int32(timeout) == 0:
		return 0, true
	case int32(timeout) > 0:
		deadline = machine.Nanotime() + int64(int32(timeout))*1_000_000
	}
	t := core.Cur()
	if t.Sig.Next() != 0 {
		return abi.Neg(abi.EINTR), true // a signal the call's mask lets through is pending already
	}
	t.WaitFD, t.WaitAddr, t.WaitCount, t.Deadline = int32(epfd), events, uintptr(maxEvents), deadline
	core.Waiters.Enqueue(core.FDKey(epfd), core.CurSlot())
	if deadline != 0 {
		core.SleepUntil(deadline, 0)
	}
	core.Block(f, core.WaitEpoll)
	return 0, false
}

// epollCollect copies up to max ready events of epfd to user memory at events.
func epollCollect(epfd int, events uintptr, max int) (int, int) {
	if max > maxEpollBatch {
		max = maxEpollBatch
	}
	n, errno := core.FDs.EpollReady(epfd, epollBuf[:max])
	if errno != 0 || n == 0 {
		return 0, errno
	}
	size := uintptr(n) * machine.EpollEventSize
	b, ok := core.UserBytes(events, size, true)
	if !ok {
		return 0, abi.EFAULT
	}
	fd.PutEvents(b, epollBuf[:n], machine.EpollPacked)
	return n, 0
}

// getrandom's flags (GRND_NONBLOCK, GRND_RANDOM, GRND_INSECURE).
const (
	grndNonblock = 1
	grndRandom   = 2
	grndInsecure = 4
)

// Getrandom fills the buffer from RDRAND when the CPU has it, else from a generator
// seeded at boot. As Linux: unknown flags, or GRND_RANDOM with GRND_INSECURE, are EINVAL; a
// buffer that runs into unmapped memory gets what fits, and EFAULT only when nothing does.
func Getrandom(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	buf := uintptr(a[0])
	count := uintptr(a[1])
	flags := uint32(a[2])
	if flags&^(grndNonblock|grndRandom|grndInsecure) != 0 || flags&(grndRandom|grndInsecure) == grndRandom|grndInsecure {
		return abi.Neg(abi.EINVAL), true
	}
	if count > 1<<20 {
		count = 1 << 20
	}
	if count == 0 {
		return 0, true
	}
	n := core.UserPrefix(buf, count, true)
	if n == 0 {
		return abi.Neg(abi.EFAULT), true
	}
	fillRandom(machine.BytesAt(buf, n))
	return uint64(n), true
}

// fillRandom fills b from random64 (getrandom, /dev/random and /dev/urandom).
func fillRandom(b []byte) {
	for i := 0; i < len(b); i += 8 {
		v := Random64()
		for j := 0; j < 8 && i+j < len(b); j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
}

var rngState uint64

// Random64 returns RDRAND output or, without it, splitmix64 over a state seeded from the TSC.
func Random64() uint64 {
	if v, ok := machine.HWRandom(); ok {
		return v
	}
	if rngState == 0 {
		rngState = machine.Ticks() | 1
	}
	rngState += 0x9e3779b97f4a7c15
	z := rngState
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// Uname fills struct utsname (6 fields of 65 bytes).
func Uname(_ *machine.Frame, a machine.SyscallArgs) (uint64, bool) {
	addr := uintptr(a[0])
	b, ok := core.UserBytes(addr, 6*65, true)
	if !ok {
		return abi.Neg(abi.EFAULT), true
	}
	for i := range b {
		b[i] = 0
	}
	fields := [6]string{"Linux", "unitrace", "6.1.0-unitrace", "#1", machine.Platform, "(none)"} // the machine is AT_PLATFORM: x86_64, aarch64
	for i, s := range fields {
		copy(b[i*65:i*65+64], s)
	}
	return 0, true
}

// CompleteEpollWait collects the events of the epoll_pwait the thread in slot waits in, woken:
// its result, or a new wait when none is ready and it has not timed out.
func CompleteEpollWait(f *machine.Frame, slot int32) {
	t := &core.Threads[slot]
	n, errno := epollCollect(int(t.WaitFD), t.WaitAddr, int(t.WaitCount))
	switch {
	case errno != 0:
		machine.SetSysRet(f, abi.Neg(errno))
	case n > 0 || t.TimedOut:
		machine.SetSysRet(f, uint64(n))
	default:
		t.Wait = core.WaitEpoll
		core.Rearm(slot, core.FDKey(int(t.WaitFD)))
	}
}
