package serial

import (
	"encoding/binary"

	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/fd"
	"github.com/unitrace/unitrace/kernel/klog"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/sockwire"
	"github.com/unitrace/unitrace/kernel/tp"
	"github.com/unitrace/unitrace/kernel/virtio"
	"github.com/unitrace/unitrace/trace/record"
)

// The net port: the trace device's third port, org.unitrace.net, over which socket calls go to
// the launcher (kernel/sockwire frames; internal/hostnet serves them on host sockets). Requests
// of any number of threads are packed, one after another, into a fill buffer while the flight
// buffer is with the device; when the device is done with it the two swap, so one send carries
// every request made meanwhile. Replies and events are taken in the device's interrupt, which
// parses the received bytes into frames and gives each reply to the thread that waits for it.
//
// A frame from the host that does not parse breaks the port for good (the stream cannot be
// trusted to start a frame after it): every call in flight and every later one fails with EIO,
// and the console says why, once.

// netBufSize is the size of each transmit buffer: one frame of the largest size fits.
const netBufSize = sockwire.MaxFrame

var netPort struct {
	port         int // -1 when the launcher gave no net port (no networking)
	fill, flight uintptr
	fillN        int
	busy         bool
	token        virtio.Token
	broken       bool
	rx           [2 * sockwire.MaxFrame]byte
	rxN          int
	// closes waits for room: the handles of sockets closed while the fill buffer was full. A
	// close is queued at the next flush; each socket is closed once, so it cannot overflow.
	closes  [fd.MaxSockets]uint32
	nCloses int
}

// NetClose tells the host a socket is gone; no reply is awaited.
func NetClose(handle uint32) {
	if netPort.nCloses < len(netPort.closes) {
		netPort.closes[netPort.nCloses] = handle
		netPort.nCloses++
	}
	NetFlush()
}

var warnedStrayReply bool

// netMemory is the contiguous memory the port's transmit buffers need.
func netMemory() uintptr { return 2 * core.PageUp(netBufSize) }

// initNetPort finds the net port on the trace device and opens it; mem holds its buffers.
func initNetPort(mem uintptr) {
	netPort.port = -1
	if !DeviceReady {
		return
	}
	p := Device.FindPort(sockwire.PortName)
	if p < 0 {
		return
	}
	netPort.port = p
	netPort.fill, netPort.flight = mem, mem+core.PageUp(netBufSize)
	Device.Open(&machine.Bus, p)
}

// NetAvailable reports whether socket calls can reach the host.
//
// A machine without the trace device never runs initNetPort (netPort.port stays 0 then): it has
// no buffers, and so no net port.
func NetAvailable() bool { return netPort.fill != 0 && netPort.port >= 0 && !netPort.broken }

// NetRoom reports whether a request with dataLen bytes of data fits the fill buffer now.
func NetRoom(dataLen int) bool {
	return netPort.fillN+sockwire.HeaderSize+dataLen <= netBufSize
}

// NetQueue appends a request whose data the caller writes into the returned slice (dataLen
// bytes), or returns ok=false when it does not fit (netRoom).
func NetQueue(h sockwire.Header, dataLen int) (data []byte, ok bool) {
	if !NetRoom(dataLen) {
		return nil, false
	}
	b := machine.BytesAt(netPort.fill+uintptr(netPort.fillN), uintptr(sockwire.HeaderSize+dataLen))
	h.Kind = sockwire.KindRequest
	if !sockwire.PutHeader(b, h, dataLen) {
		return nil, false
	}
	netPort.fillN += sockwire.HeaderSize + dataLen
	return b[sockwire.HeaderSize:], true
}

// NetFlush hands the fill buffer to the device if the flight buffer is free; the requests
// queued since the last flush go in one send.
func NetFlush() {
	if netPort.port < 0 {
		return
	}
	if netPort.busy && Device.Done(netPort.port, netPort.token) {
		netPort.busy = false
		core.FutexWake(core.NetTxKey, core.MaxThreads)
	}
	for netPort.nCloses > 0 && NetRoom(0) {
		netPort.nCloses--
		NetQueue(sockwire.Header{Op: sockwire.OpClose, Handle: netPort.closes[netPort.nCloses]}, 0)
	}
	if netPort.busy || netPort.fillN == 0 {
		return
	}
	tok, err := Device.Send(&machine.Bus, netPort.port, netPort.fill, uint32(netPort.fillN))
	if err != virtio.OK {
		return // the queue is full or the host not there yet: the next interrupt tries again
	}
	tp.VirtioNotify.Emit2(uint64(netPort.port), uint64(netPort.fillN))
	netPort.fill, netPort.flight = netPort.flight, netPort.fill
	netPort.fillN, netPort.busy, netPort.token = 0, true, tok
}

// netInterrupt takes what the device did on the net port: a finished send (the next one goes)
// and received bytes (replies and events).
func netInterrupt(ev virtio.Events) {
	if netPort.port < 0 {
		return
	}
	bit := uint32(1) << uint(netPort.port)
	if ev.TxDone&bit != 0 || netPort.busy {
		NetFlush()
	}
	if ev.RxData&bit != 0 || Device.Buffered(netPort.port) > 0 {
		netReceive()
	}
}

// netReceive parses every whole frame received and keeps the rest for the next interrupt.
func netReceive() {
	for {
		n, err := Device.Receive(&machine.Bus, netPort.port, netPort.rx[netPort.rxN:])
		if err != virtio.OK && err != virtio.ErrHostClosed {
			return
		}
		netPort.rxN += n
		for !netPort.broken {
			h, data, used, perr := sockwire.Parse(netPort.rx[:netPort.rxN])
			if perr == sockwire.OK && used > 0 && h.Kind == sockwire.KindRequest {
				perr = sockwire.ErrKind // the host makes no calls
			}
			if perr != sockwire.OK {
				netBreak(perr)
				break
			}
			if used == 0 {
				break
			}
			netFrame(h, data)
			netPort.rxN = copy(netPort.rx[:], netPort.rx[used:netPort.rxN])
		}
		if netPort.broken {
			netPort.rxN = 0 // drain and drop: the stream means nothing any more
		}
		if n == 0 {
			return
		}
	}
}

// netBreak refuses the host's stream: every waiting caller fails with EIO.
func netBreak(why sockwire.Err) {
	netPort.broken = true
	klog.Log().S("net: a frame from the launcher refused (").S(why.String()).S("): sockets fail with EIO from now on").NL()
	for slot := range core.Threads {
		if NetCalls[slot].Waiting {
			netFinish(int32(slot), -abi.EIO)
		}
	}
	core.FutexWake(core.NetTxKey, core.MaxThreads)
}

// netFrame takes one reply or event.
func netFrame(h sockwire.Header, data []byte) {
	if h.Kind == sockwire.KindEvent {
		netEvent(h.Handle, uint32(h.A[0]))
		return
	}
	slot := int32(h.ID&0xffff) - 1
	if slot < 0 || int(slot) >= len(core.Threads) || !NetCalls[slot].Waiting || NetCalls[slot].ID != h.ID ||
		NetCalls[slot].Op != h.Op {
		// No call waits for it: a reply is never interrupted, so the launcher answered twice or
		// named a request it never had. Dropped, and said once.
		klog.Once(&warnedStrayReply, "net: a reply that no socket call waited for was dropped")
		return
	}
	r := netReplyData(slot, h, data)
	tp.NetRPC.Emit4(uint64(h.Op), uint64(h.Handle), uint64(machine.Nanotime()-NetCalls[slot].Sent), uint64(r))
	netFinish(slot, r)
}

// netFinish records a call's result and wakes its thread.
func netFinish(slot int32, result int64) {
	n := &NetCalls[slot]
	n.Waiting, n.Replied, n.Result = false, true, result
	core.FutexWake(core.NetReplyKey(slot), 1)
}

// netEvent takes a socket's readiness from the host and wakes who it concerns.
func netEvent(handle uint32, ready uint32) {
	i, ok := core.FDs.SocketByHandle(handle)
	if !ok {
		return // closed since
	}
	tp.NetEvent.Emit2(uint64(handle), uint64(ready))
	if core.FDs.SocketSetReady(i, ready) {
		wakeSocket(i)
	}
}

var socketFDs [64]int32

// wakeSocket wakes the threads waiting on socket i's descriptors and in the epoll instances
// watching them.
func wakeSocket(i int) {
	n := core.FDs.SocketDescriptors(i, socketFDs[:])
	for k := 0; k < n; k++ {
		core.WakeFDWaiters(int(socketFDs[k]))
	}
}

// NetCall is a request with the host, and where its reply's bytes go in user memory: they are
// put there as the reply comes in (netReplyData), while the thread still waits.
type NetCall struct {
	ID          uint32
	Op          sockwire.Op
	Waiting     bool
	Replied     bool
	Result      int64
	Sent        int64 // nanotime at queueing
	Sock        int32
	AgainClears uint32 // readiness bits a reply of EAGAIN clears
	ReplyClears uint32 // readiness bits any reply clears (a connect's)
	Buf, Count  uintptr
	Vec         bool
	Addr        uintptr // a received address goes here, as much as *addrLen (a u32) allows
	AddrLen     uintptr
	OptLen      uintptr // getsockopt's optlen; buf is optval, or 0 for the kernel's own SO_ERROR read
	OptVal      int64
	MsgFlags    uintptr               // recvmsg: &msg_flags
	Learned     [record.StrBytes]byte // the address a reply carried, as text, for syscall_addr
	LearnedLen  uint8
}

// NetCalls are the threads' requests with the host, by thread slot.
var NetCalls [core.MaxThreads]NetCall

// netReplyData puts a reply's bytes where its call wants them, as it comes in, and returns the
// call's result: the host's, or EFAULT when the user memory is not there.
func netReplyData(slot int32, h sockwire.Header, data []byte) int64 {
	n := &NetCalls[slot]
	r := h.A[0]
	if r == -abi.EAGAIN {
		core.FDs.SocketClearReady(int(n.Sock), n.AgainClears)
	}
	if n.ReplyClears != 0 {
		core.FDs.SocketClearReady(int(n.Sock), n.ReplyClears)
	}
	if r < 0 {
		return r
	}
	switch h.Op {
	case sockwire.OpRecv:
		alen := h.A[1]
		if alen < 0 || alen > int64(len(data)) || alen > sockwire.MaxAddr {
			return -abi.EIO
		}
		payload := data[alen:]
		if !core.ScatterUser(payload, n.Buf, n.Count, n.Vec) {
			return -abi.EFAULT
		}
		if n.Addr != 0 && !core.PutSockaddr(n.Addr, n.AddrLen, data[:alen]) {
			return -abi.EFAULT
		}
		if alen > 0 {
			n.LearnedLen = uint8(sockwire.FormatAddr(n.Learned[:], data[:alen]))
		}
		if n.MsgFlags != 0 {
			var fl uint32
			if r > int64(len(payload)) {
				fl = abi.MSG_TRUNC
			}
			if !core.WriteUser32(n.MsgFlags, fl) {
				return -abi.EFAULT
			}
		}
	case sockwire.OpAccept, sockwire.OpSockName, sockwire.OpPeerName:
		if n.Addr != 0 && !core.PutSockaddr(n.Addr, n.AddrLen, data) {
			return -abi.EFAULT
		}
		n.LearnedLen = uint8(sockwire.FormatAddr(n.Learned[:], data))
	case sockwire.OpIoctl:
		if len(data) < 4 {
			return -abi.EIO
		}
		if !core.WriteUser32(n.Buf, binary.LittleEndian.Uint32(data)) {
			return -abi.EFAULT
		}
	case sockwire.OpGetSockOpt:
		if n.Buf == 0 {
			if len(data) >= 4 {
				n.OptVal = int64(int32(binary.LittleEndian.Uint32(data)))
			}
			return r
		}
		room, ok := core.ReadUser32(n.OptLen)
		if !ok {
			return -abi.EFAULT
		}
		k := min(uintptr(room), uintptr(len(data)))
		dst, ok := core.UserBytes(n.Buf, k, true)
		if !ok {
			return -abi.EFAULT
		}
		copy(dst, data)
		if !core.WriteUser32(n.OptLen, uint32(k)) {
			return -abi.EFAULT
		}
	}
	return r
}
