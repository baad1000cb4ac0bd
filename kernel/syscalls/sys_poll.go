package syscalls

import (
	"encoding/binary"

	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/syscalls/files"

	"github.com/unitrace/unitrace/kernel/fd"
	"github.com/unitrace/unitrace/kernel/pollset"
	"github.com/unitrace/unitrace/kernel/rlimit"
)

// poll, ppoll, select and pselect6: each scans its descriptors' readiness (fd.Table.Poll, which
// reports files and the trace ports always ready, as Linux's DEFAULT_POLLMASK) and returns at
// once if one is ready, or the timeout is zero. Otherwise the thread waits on core.PollKey, which
// every change of any descriptor's readiness wakes (core.WakeFDWaiters), scans again on each wake-up,
// and returns 0 at its deadline or EINTR when a signal comes (Linux's ERESTARTNOHAND: EINTR
// once a handler ran). ppoll and pselect6 wait with their signal mask in place of the thread's,
// which comes back when the call returns, or when the handler of the signal that ended the wait
// returns (its frame keeps the thread's own mask), as Linux's saved_sigmask; the remaining time
// goes back to a timeout that was given and not zero.

// pollCall is a poll or select in progress: what to scan again when the thread wakes.
type pollCall struct {
	sel     bool    // select or pselect6 (else poll or ppoll)
	nfds    int     // poll: the pollfds; select: the descriptors below nfds
	fds     uintptr // poll: the pollfd array; select: the read set
	out, ex uintptr // select: the write and except sets
	timeout uintptr // the timeout to update with the time left, 0 for none
	timeval bool    // the timeout is a struct timeval (select), else a timespec
}

// pollCalls are the polls in progress, by thread slot.
var pollCalls [core.MaxThreads]pollCall

// pollForever is the timeout that waits for good.
const pollForever = -1

// doPoll serves poll (timeoutMs, sigmask 0) and ppoll (tsp, sigmask and its size).
// As Linux's do_sys_ppoll, ppoll reads its timeout and its mask before do_sys_poll checks nfds.
func doPoll(f *machine.Frame, fdsAddr uintptr, nfds uint64, timeoutMs int32, tsp, sigmask, sigsize uintptr, isPpoll bool) (uint64, bool) {
	timeout := int64(pollForever)
	switch {
	case isPpoll && tsp != 0:
		ns, ok := core.ReadTimespec(tsp)
		if !ok {
			return abi.Neg(abi.EFAULT), true
		}
		if ns < 0 {
			return abi.Neg(abi.EINVAL), true
		}
		timeout = ns
	case !isPpoll && timeoutMs >= 0:
		timeout = int64(timeoutMs) * 1e6
	}
	var mask uint64
	setMask := false
	if isPpoll {
		var errno int
		if mask, setMask, errno = files.ReadWaitMask(sigmask, sigsize); errno != 0 {
			return abi.Neg(errno), true
		}
	}
	if lim, _ := limits().Get(rlimit.NOFILE); nfds > lim.Cur {
		return abi.Neg(abi.EINVAL), true
	}
	if setMask {
		files.ApplyWaitMask(mask)
	}
	c := pollCall{nfds: int(nfds), fds: fdsAddr}
	if isPpoll && timeout > 0 {
		c.timeout = tsp
	}
	return pollWait(f, c, timeout)
}

// doSelect serves select (a timeval) and pselect6 (a timespec, and a pointer to the signal
// mask and its size).
// selectTimeval is select's timeout in nanoseconds. Linux's kern_select carries whole seconds
// out of tv_usec before it checks the sum (poll_select_set_timeout): 1500000 µs is 1.5 s, and
// only a negative result is EINVAL.
func selectTimeval(b []byte) (int64, bool) {
	sec, usec := int64(binary.LittleEndian.Uint64(b[0:8])), int64(binary.LittleEndian.Uint64(b[8:16]))
	sec, nsec := sec+usec/1e6, usec%1e6*1e3
	if sec < 0 || nsec < 0 {
		return 0, false
	}
	return min(sec, int64(1<<62)/1e9)*1e9 + nsec, true
}

func doSelect(f *machine.Frame, nfds int, in, out, ex, tmo, sig6 uintptr, isPselect bool) (uint64, bool) {
	if nfds < 0 {
		return abi.Neg(abi.EINVAL), true
	}
	nfds = min(nfds, fd.MaxFDs) // Linux caps it at the descriptor table's size
	timeout := int64(pollForever)
	if tmo != 0 {
		b, ok := core.UserBytes(tmo, 16, false)
		if !ok {
			return abi.Neg(abi.EFAULT), true
		}
		var ns int64
		if isPselect {
			ns, ok = files.TimespecNanos(b)
		} else {
			ns, ok = selectTimeval(b)
		}
		if !ok {
			return abi.Neg(abi.EINVAL), true
		}
		timeout = ns
	}
	if isPselect && sig6 != 0 {
		b, ok := core.UserBytes(sig6, 16, false)
		if !ok {
			return abi.Neg(abi.EFAULT), true
		}
		if errno := files.SetWaitMask(uintptr(binary.LittleEndian.Uint64(b[0:])), uintptr(binary.LittleEndian.Uint64(b[8:]))); errno != 0 {
			return abi.Neg(errno), true
		}
	}
	c := pollCall{sel: true, nfds: nfds, fds: in, out: out, ex: ex}
	if timeout > 0 {
		c.timeout, c.timeval = tmo, !isPselect
	}
	return pollWait(f, c, timeout)
}

// pollWait scans once, and returns or blocks as the timeout (ns, or pollForever) says.
func pollWait(f *machine.Frame, c pollCall, timeout int64) (uint64, bool) {
	var deadline int64
	if timeout > 0 {
		deadline = machine.Nanotime() + timeout
	}
	n, errno := pollScan(&c, timeout == 0)
	switch {
	case errno != 0:
		return abi.Neg(errno), true
	case n > 0 || timeout == 0:
		pollFinish(&c, deadline)
		return uint64(n), true
	case core.Cur().Sig.Next() != 0:
		// A signal the call's mask lets through is pending already: it ends the call at once.
		pollFinish(&c, deadline)
		return abi.Neg(abi.EINTR), true
	}
	pollCalls[core.CurSlot()] = c
	core.Cur().Deadline = deadline
	if deadline != 0 {
		core.SleepUntil(deadline, 0)
	}
	core.Waiters.Enqueue(core.PollKey, core.CurSlot())
	core.PollWaiters++
	core.Block(f, core.WaitPoll)
	return 0, false
}

// CompletePollWait runs when a polling thread wakes: it scans again and returns, or waits again.
func CompletePollWait(f *machine.Frame, slot int32) {
	t := &core.Threads[slot]
	core.PollWaiters--
	n, errno := pollScan(&pollCalls[slot], t.TimedOut)
	switch {
	case errno != 0:
		machine.SetSysRet(f, abi.Neg(errno))
	case n > 0 || t.TimedOut:
		pollFinish(&pollCalls[slot], t.Deadline)
		machine.SetSysRet(f, uint64(n))
	default:
		t.Wait = core.WaitPoll
		core.PollWaiters++
		core.Rearm(slot, core.PollKey)
	}
}

// PollInterrupted ends the wait of a polling thread that a signal woke: EINTR, and the time left.
func PollInterrupted(f *machine.Frame, slot int32) (uint64, bool) {
	core.PollWaiters--
	pollFinish(&pollCalls[slot], core.Threads[slot].Deadline)
	return abi.Neg(abi.EINTR), false
}

// pollFinish writes the time left to deadline (0 when there was no wait) back to the call's
// timeout, if it had one that was not zero; a timeout in read-only memory is left as it is, as
// Linux leaves it.
func pollFinish(c *pollCall, deadline int64) {
	if c.timeout == 0 {
		return
	}
	left := int64(0)
	if deadline != 0 {
		left = max(deadline-machine.Nanotime(), 0)
	}
	b, ok := core.UserBytes(c.timeout, 16, true)
	if !ok {
		return
	}
	if c.timeval {
		core.PutTimeval(b, left)
	} else {
		core.PutTimespec(b, left)
	}
}

// pollScan computes the call's results and returns how many descriptors are ready (poll: the
// pollfds with revents; select: the bits set across the three sets). poll writes every revents
// at each scan; select writes its sets only when it returns: with a count, or at its last scan
// (final: the timeout is over).
func pollScan(c *pollCall, final bool) (int, int) {
	if c.sel {
		return selectScan(c, final)
	}
	b, ok := core.UserBytes(c.fds, uintptr(c.nfds)*pollset.PollfdSize, true)
	if !ok {
		return 0, abi.EFAULT
	}
	n := 0
	for i := 0; i < c.nfds; i++ {
		e := b[i*pollset.PollfdSize:]
		n32 := int32(binary.LittleEndian.Uint32(e[0:]))
		events := binary.LittleEndian.Uint16(e[4:])
		var revents uint16
		if n32 >= 0 {
			ready, errno := core.FDs.Poll(int(n32))
			if errno != 0 {
				revents = pollset.POLLNVAL
			} else {
				revents = pollset.Revents(ready, events)
			}
		}
		binary.LittleEndian.PutUint16(e[6:], revents)
		if revents != 0 {
			n++
		}
	}
	return n, 0
}

// selectScan is pollScan for select: EBADF if a set names a descriptor that is not open.
func selectScan(c *pollCall, final bool) (int, int) {
	size := pollset.SetBytes(c.nfds)
	var sets [3][]byte
	for i, addr := range [3]uintptr{c.fds, c.out, c.ex} {
		if addr == 0 {
			continue
		}
		b, ok := core.UserBytes(addr, size, true)
		if !ok {
			return 0, abi.EFAULT
		}
		sets[i] = b
	}
	n := 0
	// A first pass counts (and checks every descriptor); a second writes the sets, only when
	// the call returns them.
	for pass := 0; pass < 2; pass++ {
		for d := 0; d < c.nfds; d++ {
			var want uint8
			for i := range sets {
				if pollset.Has(sets[i], d) {
					want |= 1 << uint(i)
				}
			}
			if want == 0 {
				continue
			}
			ready, errno := core.FDs.Poll(d)
			if errno != 0 {
				return 0, abi.EBADF
			}
			got := pollset.Select(ready, want)
			if pass == 0 {
				for ; got != 0; got &= got - 1 {
					n++
				}
				continue
			}
			for i := range sets {
				pollset.Put(sets[i], d, got&(1<<uint(i)) != 0)
			}
		}
		if pass == 0 && n == 0 && !final {
			return 0, 0
		}
	}
	// Bits past nfds in the sets' last words come back clear, as Linux writes whole words of
	// its results.
	for i := range sets {
		for d := c.nfds; d < int(size)*8; d++ {
			pollset.Put(sets[i], d, false)
		}
	}
	return n, 0
}
