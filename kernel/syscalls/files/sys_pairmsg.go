package files

import (
	"encoding/binary"

	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/machine"

	"github.com/unitrace/unitrace/kernel/fd"
	"github.com/unitrace/unitrace/kernel/signal"
)

// Socket pairs' messages (package fd's pairmsg.go): sendmsg's ancillary data on a pair
// (SCM_CREDENTIALS, SCM_RIGHTS) and datagram pairs. A send that carries control data, and every
// send on a datagram pair, is a message: its bytes go into the direction's pipe whole (it waits
// for room), and the message is queued beside them. A receive takes bytes up to the end of the
// message it reads or the start of the next, and with recvmsg the message's control data: the
// receiver's SO_PASSCRED credentials (the sender's, or the process's when none were sent), then
// the passed descriptors, moved to the lowest free descriptors (MSG_CMSG_CLOEXEC sets their
// FD_CLOEXEC). A descriptor in flight holds a descriptor of its own from the send to the
// receive, at fd.InFlightBase or above (a program listing /proc/self/fd sees it, unlike Linux's).
// A receive or a message send that must wait runs again whole when woken (waitRerun).

const (
	solSocketLevel = 1 // SOL_SOCKET
	scmRights      = 1
	scmCredentials = 2
	soPasscred     = 16
	cmsgHdr        = 16 // struct cmsghdr: len (8), level, type
	msgCtrunc      = 0x8
	msgCmsgCloexec = 0x40000000
	eTOOMANYREFS   = 109
)

func cmsgAlign(n uintptr) uintptr { return (n + 7) &^ 7 }

// pairMessages reports whether a read (write false) or write of pair end n takes the message
// path: always on a datagram pair; on a stream pair for a read with messages queued.
func pairMessages(n int, write bool) bool {
	if core.FDs.PairDgram(n) {
		return true
	}
	if write {
		return false
	}
	return pairQueued(n)
}

// pairQueued reports whether the direction pair end n reads has messages queued.
func pairQueued(n int) bool {
	limit, _, inMsg, _ := core.FDs.PairReadUnit(n)
	return inMsg || limit != ^uint64(0)
}

// blockRerun blocks the running thread on descriptor n until it changes; the call then runs
// again from the start.
func blockRerun(f *machine.Frame, n int) {
	t := core.Cur()
	t.WaitFD, t.Deadline = int32(n), 0
	core.Waiters.Enqueue(core.FDKey(n), core.CurSlot())
	core.Block(f, core.WaitRerun)
}

// CompleteRerun puts the thread's pc back on its system-call instruction: the call runs again.
func CompleteRerun(f *machine.Frame, slot int32) { machine.RewindSyscall(f) }

// parseCtl checks sendmsg's control data at addr (ctlLen bytes) as Linux's __scm_send does and
// returns what it sends; the descriptors are not yet in flight (takeRights).
func parseCtl(addr, ctlLen uintptr, c *fd.Ctl) int {
	if ctlLen < cmsgHdr {
		return 0
	}
	b, ok := core.UserBytes(addr, ctlLen, false)
	if !ok {
		return abi.EFAULT
	}
	for off := uintptr(0); off+cmsgHdr <= ctlLen; {
		l := uintptr(core.LE64(b[off:]))
		if l < cmsgHdr || l > ctlLen-off {
			return abi.EINVAL
		}
		level, typ := int32(binary.LittleEndian.Uint32(b[off+8:])), int32(binary.LittleEndian.Uint32(b[off+12:]))
		data := b[off+cmsgHdr : off+l]
		if level == solSocketLevel {
			switch typ {
			case scmRights:
				k := len(data) / 4
				if int(c.NRights)+k > fd.MaxRights {
					return eTOOMANYREFS
				}
				for i := 0; i < k; i++ {
					d := int32(binary.LittleEndian.Uint32(data[4*i:]))
					if core.FDs.Kind(int(d)) == fd.KindNone {
						return abi.EBADF
					}
					c.Rights[c.NRights] = d
					c.NRights++
				}
			case scmCredentials:
				if len(data) != 12 {
					return abi.EINVAL
				}
				pid := int32(binary.LittleEndian.Uint32(data[0:]))
				if pid != core.ProcessID && core.SlotOfTID(pid) < 0 {
					return abi.ESRCH // root may name any process, but it must exist
				}
				c.Creds, c.Pid = true, pid
				c.Uid, c.Gid = binary.LittleEndian.Uint32(data[4:]), binary.LittleEndian.Uint32(data[8:])
			default:
				return abi.EINVAL
			}
		}
		off += cmsgAlign(l)
	}
	return 0
}

// takeRights puts c's descriptors in flight: each becomes a descriptor of its own.
func takeRights(c *fd.Ctl) int {
	for i := 0; i < int(c.NRights); i++ {
		d, errno := core.FDs.Dup(int(c.Rights[i]), fd.InFlightBase, false)
		if errno != 0 {
			for j := 0; j < i; j++ {
				CloseFD(int(c.Rights[j]))
			}
			if errno == abi.EINVAL {
				errno = abi.EOPNOTSUPP // an eventfd, an epoll instance or a trace port cannot be passed here
			}
			return errno
		}
		c.Rights[i] = int32(d)
	}
	return 0
}

// pairSend sends the bytes at buf (an iovec array if vec) on pair end n as one message with the
// control data at ctl (ctlLen bytes).
func pairSend(f *machine.Frame, n int, vec bool, buf, count uintptr, flags int64, ctl, ctlLen uintptr) (uint64, bool) {
	total, errno := core.UserIOLen(buf, count, vec)
	if errno != 0 {
		return abi.Neg(errno), true
	}
	var c fd.Ctl
	if errno := parseCtl(ctl, ctlLen, &c); errno != 0 {
		return abi.Neg(errno), true
	}
	dgram := core.FDs.PairDgram(n)
	if !dgram && total == 0 {
		return 0, true // a stream sends no message of no bytes: the control data goes nowhere
	}
	if !dgram && !c.Creds && c.NRights == 0 {
		core.Cur().NoSigpipe = flags&abi.MSG_NOSIGNAL != 0
		return PipeCall(f, n, true, vec, buf, count)
	}
	if dgram && total > fd.PipeSize {
		return abi.Neg(abi.EMSGSIZE), true
	}
	if core.FDs.PairPeerGone(n) {
		if dgram {
			return abi.Neg(abi.ECONNREFUSED), true
		}
		if flags&abi.MSG_NOSIGNAL == 0 {
			core.SendSignal(core.CurSlot(), sigPIPE, signal.Info{Signo: sigPIPE, Code: signal.SI_USER, Pid: core.ProcessID})
		}
		return abi.Neg(abi.EPIPE), true
	}
	need := min(total, fd.PipeSize)
	wtotal, room, msgRoom, _ := core.FDs.PairWriteState(n)
	if uint64(room) < need || !msgRoom {
		if core.FDs.Nonblocking(n) || flags&abi.MSG_DONTWAIT != 0 {
			return abi.Neg(abi.EAGAIN), true
		}
		blockRerun(f, n)
		return 0, false
	}
	if errno := takeRights(&c); errno != 0 {
		return abi.Neg(errno), true
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
	var moved uint64
	errno = pipeSegments(n, true, cnt, seg, &moved, need)
	core.FDs.PairPushMsg(n, fd.PairMsg{At: wtotal, End: wtotal + moved, Ctl: c}) // room was checked
	if wp, ok := core.FDs.PipeFor(n, true); ok {
		wakePipe(wp)
	}
	if errno != 0 && moved == 0 {
		return abi.Neg(errno), true
	}
	return moved, true
}

// pairRecv receives on pair end n into buf (an iovec array if vec): the bytes of one message or
// of the plain bytes before the next, and with ctl (recvmsg's control buffer, ctlLen bytes;
// msg the msghdr) the message's control data. flags are recv's.
func pairRecv(f *machine.Frame, n int, vec bool, buf, count uintptr, flags int64, ctl, ctlLen, msg uintptr) (uint64, bool) {
	total, errno := core.UserIOLen(buf, count, vec)
	if errno != 0 {
		return abi.Neg(errno), true
	}
	limit, m, inMsg, pending := core.FDs.PairReadUnit(n)
	if !pending {
		if core.FDs.PairReadDone(n) {
			return pairRecvDone(msg, 0, 0, 0)
		}
		if core.FDs.Nonblocking(n) || flags&abi.MSG_DONTWAIT != 0 {
			return abi.Neg(abi.EAGAIN), true
		}
		blockRerun(f, n)
		return 0, false
	}
	var segs []byte
	cnt := 1
	if vec {
		segs, _ = core.UserBytes(buf, count*core.IovecSize, false)
		cnt = int(count)
	}
	seg := func(i int) (uintptr, uint64) {
		if !vec {
			return buf, uint64(count)
		}
		return uintptr(core.LE64(segs[i*core.IovecSize:])), core.LE64(segs[i*core.IovecSize+8:])
	}
	var moved uint64
	if want := min(total, limit); want > 0 {
		if errno := pipeSegments(n, false, cnt, seg, &moved, want); errno != 0 && moved == 0 {
			return abi.Neg(errno), true
		}
	}
	var msgFlags uint32
	var ctlUsed uintptr
	dgram := core.FDs.PairDgram(n)
	if inMsg {
		if dgram && m.End-m.At > moved {
			msgFlags |= abi.MSG_TRUNC
		}
		var trunc bool
		ctlUsed, trunc = putCtl(n, ctl, ctlLen, m, flags&msgCmsgCloexec != 0)
		if trunc {
			msgFlags |= msgCtrunc
		}
		core.FDs.PairEndRead(n, dgram)
	} else if core.FDs.PairPasscred(n) {
		var trunc bool
		ctlUsed, trunc = putCtl(n, ctl, ctlLen, fd.PairMsg{Delivered: true}, false)
		if trunc {
			msgFlags |= msgCtrunc
		}
	}
	if rp, ok := core.FDs.PipeFor(n, false); ok {
		wakePipe(rp)
	}
	ret := moved
	if dgram && inMsg && flags&abi.MSG_TRUNC != 0 {
		ret = m.End - m.At // MSG_TRUNC asks a datagram's whole length
	}
	return pairRecvDone(msg, ctlUsed, msgFlags, ret)
}

// pairRecvDone stores recvmsg's msg_controllen and msg_flags (msg 0: not recvmsg) and returns
// ret.
func pairRecvDone(msg, ctlUsed uintptr, msgFlags uint32, ret uint64) (uint64, bool) {
	if msg != 0 {
		m, ok := core.UserBytes(msg, abi.SizeofMsghdr, true)
		if !ok {
			return abi.Neg(abi.EFAULT), true
		}
		binary.LittleEndian.PutUint64(m[msgControlLen:], uint64(ctlUsed))
		binary.LittleEndian.PutUint32(m[msgFlagsOff:], msgFlags)
	}
	return ret, true
}

// putCtl writes message m's control data for pair end n into the control buffer at ctl (ctlLen
// bytes): the credentials if n has SO_PASSCRED, then the descriptors if they were not delivered
// before. It returns the bytes used and whether something did not fit (MSG_CTRUNC); passed
// descriptors that do not fit are closed, as Linux's.
func putCtl(n int, ctl, ctlLen uintptr, m fd.PairMsg, cloexec bool) (used uintptr, trunc bool) {
	var b []byte
	if ctl != 0 && ctlLen > 0 {
		var ok bool
		if b, ok = core.UserBytes(ctl, ctlLen, true); !ok {
			b = nil
		}
	}
	put := func(typ int32, dataLen uintptr) []byte {
		l := cmsgHdr + dataLen
		if uintptr(len(b))-used < l {
			trunc = true
			return nil
		}
		h := b[used:]
		binary.LittleEndian.PutUint64(h[0:], uint64(l))
		binary.LittleEndian.PutUint32(h[8:], solSocketLevel)
		binary.LittleEndian.PutUint32(h[12:], uint32(typ))
		data := h[cmsgHdr:l]
		used += min(cmsgAlign(l), uintptr(len(b))-used)
		return data
	}
	if core.FDs.PairPasscred(n) {
		pid, uid, gid := int32(core.ProcessID), uint32(0), uint32(0)
		if m.Ctl.Creds {
			pid, uid, gid = m.Ctl.Pid, m.Ctl.Uid, m.Ctl.Gid
		}
		if d := put(scmCredentials, 12); d != nil {
			binary.LittleEndian.PutUint32(d[0:], uint32(pid))
			binary.LittleEndian.PutUint32(d[4:], uid)
			binary.LittleEndian.PutUint32(d[8:], gid)
		}
	}
	if m.Delivered || m.Ctl.NRights == 0 {
		return used, trunc
	}
	k := int(m.Ctl.NRights)
	if room := (uintptr(len(b)) - min(used, uintptr(len(b)))); room < cmsgHdr+4 {
		k = 0
	} else {
		k = min(k, int((room-cmsgHdr)/4))
	}
	var d []byte
	hdrAt := used
	if k > 0 {
		d = put(scmRights, uintptr(4*k))
	}
	got := 0
	for i := 0; i < int(m.Ctl.NRights); i++ {
		inFlight := int(m.Ctl.Rights[i])
		if i < k && d != nil {
			nfd, closeFrom, errno := core.FDs.MoveFD(inFlight, cloexec)
			if errno == 0 {
				if closeFrom {
					CloseFD(inFlight)
				}
				binary.LittleEndian.PutUint32(d[4*got:], uint32(nfd))
				got++
				continue
			}
		}
		CloseFD(inFlight)
		trunc = true
	}
	if d != nil && got < k {
		binary.LittleEndian.PutUint64(b[hdrAt:], uint64(cmsgHdr+4*got))
	}
	return used, trunc
}

// closeOrphans closes the in-flight descriptors of messages that went away unread (their pair
// direction closed). Closing one may orphan more: each is taken in turn.
func closeOrphans() {
	for {
		d, ok := core.FDs.TakeOrphan()
		if !ok {
			return
		}
		CloseFD(d)
	}
}
