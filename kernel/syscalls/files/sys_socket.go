package files

import (
	"encoding/binary"

	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/dev/serial"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/tp"

	"github.com/unitrace/unitrace/kernel/fd"
	"github.com/unitrace/unitrace/kernel/signal"
	"github.com/unitrace/unitrace/kernel/sockwire"
	"github.com/unitrace/unitrace/trace/record"
)

// Sockets: TCP and UDP over IPv4 and IPv6, each a host socket in the launcher (netport.go,
// internal/hostnet). Every call is one request to the launcher and its reply; the host
// socket never blocks, so a blocking call here is a non-blocking one there, retried when the
// launcher's event says the socket is ready: a read that found nothing waits for EPOLLIN, a
// write that found no room for EPOLLOUT, a blocking connect for its end, after which
// SO_ERROR says how it went. Go's own sockets are non-blocking, and wait in epoll.
//
// A thread waits in three phases: for room in the port's fill buffer (core.NetTxKey), for its
// reply (core.NetReplyKey; not interruptible: the call is with the host), and for readiness (its
// descriptor's key; a signal interrupts that wait as it does a pipe's).

// Phases of a socket call.
const (
	phaseQueue uint8 = iota // the request is to be queued
	phaseReply              // the request is with the host
	phaseReady              // EAGAIN: waiting for the readiness in sockCall.want
)

// Which system call a sockCall serves.
const (
	callSimple  uint8 = iota // one request, its result returned
	callSocket               // socket: the reply makes the descriptor
	callAccept               // accept4: likewise, and waits for EPOLLIN while blocking
	callConnect              // connect: a blocking one waits for the end, then reads SO_ERROR
	callSend                 // write, writev, sendto, sendmsg
	callRecv                 // read, readv, recvfrom, recvmsg
)

// SockCall is the system call a thread makes on a socket.
type SockCall struct {
	phase      uint8
	call       uint8
	fd         int32
	sock       int32
	newSock    int32
	newFlags   int32 // SOCK_CLOEXEC and SOCK_NONBLOCK of the descriptor the call makes
	flags      int64 // send and recv flags
	h          sockwire.Header
	addr       uintptr // the address sent (bind, connect, sendto), or setsockopt's value
	addrLen    uintptr
	src        uintptr // the bytes sent: a buffer, or an iovec array
	srcLen     uintptr
	srcVec     bool
	total      uint64 // bytes to send or the most to receive
	moved      uint64
	want       uint32
	connecting bool
	traced     bool           // syscall_addr fired for the address sent
	Out        serial.NetCall // where the reply's bytes go (netCall's buf, count, vec, addr, addrLen, optLen, msgFlags)
	// A splice or sendfile with the socket (sys_splice.go): what becomes of the bytes when the
	// call ends (sockSpliceEnd).
	splice     uint8   // spliceNone, spliceRecv, spliceSend, spliceSendfile
	splicePipe int32   // spliceRecv, spliceSend: the pipe held (fd.PipeHold)
	spliceFD   int32   // spliceSendfile: the file the bytes come from
	splicePos  int64   // spliceSendfile: where in it
	spliceOff  uintptr // spliceSendfile: the offset pointer, or 0 (the file's position)
}

// sockThread is what a thread's socket call keeps across its waits: the call, and the count that
// makes each request's id new (its request with the host is the net port's: netCalls). Each
// call sets it up afresh.
type sockThread struct {
	sock   SockCall
	netSeq uint16
}

// sockThreads are the threads' socket calls, by thread slot.
var sockThreads [core.MaxThreads]sockThread

// sockStart starts a socket call for the running thread from c and runs it as far as it goes.
func sockStart(f *machine.Frame, c SockCall) (uint64, bool) {
	sockThreads[core.CurSlot()].sock = c
	ret, done := sockStep(core.CurSlot())
	if !done {
		sockBlock(f, core.CurSlot())
	} else {
		ret = sockSpliceEnd(core.CurSlot(), ret)
	}
	return ret, done
}

// sockBlock parks the thread on the key of its call's phase.
func sockBlock(f *machine.Frame, slot int32) {
	core.Waiters.Enqueue(sockKey(slot), slot)
	core.Block(f, core.WaitNet)
}

func sockKey(slot int32) uintptr {
	c := &sockThreads[slot].sock
	switch c.phase {
	case phaseQueue:
		return core.NetTxKey
	case phaseReply:
		return core.NetReplyKey(slot)
	}
	return core.FDKey(int(c.fd))
}

// CompleteNetWait runs the call of the thread in slot on after a wake-up.
func CompleteNetWait(f *machine.Frame, slot int32) {
	ret, done := sockStep(slot)
	if done {
		machine.SetSysRet(f, sockSpliceEnd(slot, ret))
		return
	}
	core.Threads[slot].Wait = core.WaitNet
	core.Rearm(slot, sockKey(slot))
}

// sockStep moves the call of the thread in slot through its phases as far as it can.
func sockStep(slot int32) (uint64, bool) {
	st := &sockThreads[slot]
	c := &st.sock
	for {
		switch c.phase {
		case phaseQueue:
			if !serial.NetAvailable() {
				return abi.Neg(abi.EIO), true
			}
			ok, ret, done := sockQueue(slot)
			if done {
				return ret, true
			}
			if !ok {
				return 0, false // no room: wait for the port
			}
			c.phase = phaseReply
		case phaseReply:
			if !serial.NetCalls[slot].Replied {
				return 0, false
			}
			serial.NetCalls[slot].Replied = false
			if ret, done := sockReplied(slot); done {
				return ret, true
			}
		case phaseReady:
			if n, _, ok := core.FDs.Socket(int(c.fd)); !ok || n != int(c.sock) {
				return abi.Neg(abi.EBADF), true // closed while the thread waited
			}
			if core.FDs.SocketReady(int(c.sock))&c.want == 0 {
				return 0, false
			}
			c.phase = phaseQueue
		}
	}
}

// sockQueue puts the call's request in the fill buffer: ok=false when it does not fit yet;
// done when the request cannot be made (bad user memory), with its error.
func sockQueue(slot int32) (ok bool, ret uint64, done bool) {
	t := &core.Threads[slot]
	st := &sockThreads[slot]
	c := &st.sock
	h := c.h
	var addr []byte
	if c.addrLen > 0 {
		var okAddr bool
		if addr, okAddr = core.UserBytes(c.addr, c.addrLen, false); !okAddr {
			return false, abi.Neg(abi.EFAULT), true
		}
	}
	dataLen := len(addr)
	sending := c.call == callSend && h.Op == sockwire.OpSend
	if sending {
		chunk := min(c.total-c.moved, uint64(sockwire.MaxData-len(addr)))
		dataLen += int(chunk)
		h.A[1] = int64(len(addr))
	}
	if !serial.NetRoom(dataLen) {
		return false, 0, false
	}
	st.netSeq++
	h.ID = uint32(st.netSeq)<<16 | uint32(slot+1)
	n := &serial.NetCalls[slot]
	*n = c.Out
	n.ID, n.Op, n.Sock = h.ID, h.Op, c.sock
	switch {
	case c.call == callRecv, c.call == callAccept:
		n.AgainClears = fd.EPOLLIN
	case sending:
		n.AgainClears = fd.EPOLLOUT
	}
	if h.Op == sockwire.OpConnect {
		n.ReplyClears = fd.EPOLLOUT | fd.EPOLLHUP | fd.EPOLLERR
	}
	if sending {
		// Checked before the request goes in: a fault must leave nothing half queued.
		if c.splice == spliceSendfile {
			if !sendfileGather(c, netScratch[:dataLen-len(addr)]) { // the file shrank, or went
				if c.moved > 0 {
					return false, c.moved, true
				}
				return false, abi.Neg(abi.EIO), true
			}
		} else if !core.GatherUser(netScratch[:dataLen-len(addr)], c.src, c.srcLen, c.srcVec, c.moved) {
			return false, abi.Neg(abi.EFAULT), true
		}
	}
	if len(addr) > 0 && !c.traced && h.Op != sockwire.OpSetSockOpt { // setsockopt's value is no address
		c.traced = true
		traceSockAddr(t.SysNr, addr)
	}
	data, _ := serial.NetQueue(h, dataLen)
	k := copy(data, addr)
	if sending {
		copy(data[k:], netScratch[:dataLen-len(addr)])
	}
	n.Waiting, n.Sent = true, machine.Nanotime()
	serial.NetFlush()
	return true, 0, false
}

// netScratch gathers a send's bytes before they are queued.
var netScratch [sockwire.MaxData]byte

// sockReplied takes the call's reply: the call's result (done), or the next phase.
func sockReplied(slot int32) (uint64, bool) {
	t := &core.Threads[slot]
	st := &sockThreads[slot]
	c := &st.sock
	r := serial.NetCalls[slot].Result
	if serial.NetCalls[slot].LearnedLen > 0 && tp.SyscallAddr.On() {
		w := strWords(serial.NetCalls[slot].Learned[:serial.NetCalls[slot].LearnedLen])
		tp.SyscallAddr.Emit4(t.SysNr, w[0], w[1], w[2])
	}
	blocking := !core.FDs.Nonblocking(int(c.fd)) && c.flags&abi.MSG_DONTWAIT == 0
	switch {
	case c.connecting:
		// The SO_ERROR read after a blocking connect finished.
		if r < 0 {
			return uint64(r), true
		}
		return uint64(-serial.NetCalls[slot].OptVal), true
	case c.call == callSocket, c.call == callAccept && !(r == -abi.EAGAIN && blocking):
		if r < 0 {
			core.FDs.SocketRelease(int(c.newSock)) // the host made none: the reservation goes
			return uint64(r), true
		}
		n, errno := core.FDs.SocketInstall(int(c.newSock), c.newFlags&abi.SOCK_CLOEXEC != 0, c.newFlags&abi.SOCK_NONBLOCK != 0)
		if errno != 0 {
			sockCloseHost(int(c.newSock))
			core.FDs.SocketRelease(int(c.newSock))
			return abi.Neg(errno), true
		}
		return uint64(n), true
	case r == -abi.EAGAIN && blocking && (c.call == callAccept || c.call == callRecv || c.call == callSend):
		c.want = fd.EPOLLIN | fd.EPOLLERR | fd.EPOLLHUP | fd.EPOLLRDHUP
		if c.call == callSend {
			c.want = fd.EPOLLOUT | fd.EPOLLERR | fd.EPOLLHUP
		}
		c.phase = phaseReady
		return 0, false
	case c.call == callConnect && r == -abi.EINPROGRESS && blocking:
		c.want = fd.EPOLLOUT | fd.EPOLLERR | fd.EPOLLHUP
		c.connecting = true
		c.h = sockwire.Header{Op: sockwire.OpGetSockOpt, Handle: c.h.Handle, A: [3]int64{abi.SOL_SOCKET, abi.SO_ERROR, 4}}
		c.addrLen, c.Out = 0, serial.NetCall{} // the value comes back in netCall.optVal
		c.phase = phaseReady
		return 0, false
	case c.call == callSend:
		if r == -abi.EPIPE && c.flags&abi.MSG_NOSIGNAL == 0 {
			core.SendSignal(slot, sigPIPE, signal.Info{Signo: sigPIPE, Code: signal.SI_USER, Pid: core.ProcessID})
		}
		if r < 0 {
			if c.moved > 0 {
				return c.moved, true
			}
			return uint64(r), true
		}
		c.moved += uint64(r)
		if blocking && c.moved < c.total {
			c.phase = phaseQueue
			return 0, false
		}
		return c.moved, true
	}
	return uint64(r), true
}

// traceSockAddr fires syscall_addr with the system call's number and the address sa as text.
func traceSockAddr(nr uint64, sa []byte) {
	if !tp.SyscallAddr.On() {
		return
	}
	var s [record.StrBytes]byte
	w := strWords(s[:sockwire.FormatAddr(s[:], sa)])
	tp.SyscallAddr.Emit4(nr, w[0], w[1], w[2])
}

// sockAbandon gives back what a socket call interrupted in its wait had reserved: accept's
// socket, which the call made again will reserve afresh.
func sockAbandon(slot int32) {
	if c := &sockThreads[slot].sock; c.call == callAccept {
		core.FDs.SocketRelease(int(c.newSock))
	}
	sockSpliceEnd(slot, 0) // a splice's pipe is free again, nothing moved
}

// sockCloseHost tells the host socket i is gone (no reply is awaited).
func sockCloseHost(i int) {
	if !serial.NetAvailable() {
		return
	}
	serial.NetClose(core.FDs.SocketHandleOf(i))
}

// putOptInt writes a getsockopt answer, an int, cut to the room *lenp says, and its length.
func putOptInt(v uint32, val, lenp uintptr) uint64 {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], v)
	room, ok := core.ReadUser32(lenp)
	if !ok {
		return abi.Neg(abi.EFAULT)
	}
	k := min(uintptr(room), 4)
	dst, ok := core.UserBytes(val, k, true)
	if !ok {
		return abi.Neg(abi.EFAULT)
	}
	copy(dst, b[:])
	if !core.WriteUser32(lenp, uint32(k)) {
		return abi.Neg(abi.EFAULT)
	}
	return 0
}

// SockWaitInterruptible: a signal ends a socket call's wait for readiness, never one whose
// request is with the host, or about to be: its reply must be taken.
func SockWaitInterruptible(slot int32) bool { return sockThreads[slot].sock.phase == phaseReady }

// SockInterrupted ends a socket call a signal woke: with the bytes a blocking send moved, or,
// having given back what it reserved, restarted.
func SockInterrupted(f *machine.Frame, slot int32) (uint64, bool) {
	if moved := sockThreads[slot].sock.moved; moved > 0 {
		return sockSpliceEnd(slot, moved), false
	}
	sockAbandon(slot)
	return 0, true
}
