// Package sockwire is the wire format between the kernel's socket descriptors and the
// launcher's host sockets, carried over the virtio-serial port org.unitrace.net. The kernel
// asks (a request per socket call), the launcher answers (a reply per request that carries an
// id) and tells of readiness changes (events), so Go's netpoller in the guest sees host sockets
// through the guest's own epoll.
//
// Every frame is a fixed header and up to MaxData bytes of data. Both sides check every field
// of every frame they take (Parse); a frame that fails is refused, and with it the stream,
// since nothing after a bad header can be trusted to start a frame.
//
// The package is kernel-mode Go: it never allocates and never panics on any input, and it is
// fuzzed on the host.
package sockwire

import "encoding/binary"

// PortName is the virtio-serial port's name.
const PortName = "org.unitrace.net"

// Magic and Version open every header; a peer that speaks another version is refused.
const (
	Magic   = 0x4e55 // "UN", little-endian
	Version = 1
)

// HeaderSize is the fixed part of every frame; MaxData bounds its data, MaxFrame the whole.
const (
	HeaderSize = 48
	MaxData    = 60 << 10
	MaxFrame   = HeaderSize + MaxData
)

// MaxAddr is the largest socket address carried (sizeof(struct sockaddr_storage)).
const MaxAddr = 128

// Kind says who sent a frame and why.
type Kind uint8

const (
	KindRequest Kind = 1 // kernel to launcher: a socket call
	KindReply   Kind = 2 // launcher to kernel: a call's result, for a request with an id
	KindEvent   Kind = 3 // launcher to kernel: a socket's readiness changed
)

// Op is the socket call a request makes (and its reply answers). The arguments, in A[0..2]
// and Data, are given with each op; a reply's A[0] is the call's result: a count or 0, or a
// negative Linux errno.
type Op uint8

const (
	OpSocket     Op = 1  // Handle: the new socket's; A: domain, type (no SOCK_NONBLOCK or SOCK_CLOEXEC), protocol
	OpBind       Op = 2  // Data: the address
	OpListen     Op = 3  // A[0]: backlog
	OpAccept     Op = 4  // A[0]: the accepted socket's handle. Reply Data: the peer's address
	OpConnect    Op = 5  // Data: the address. The host socket never blocks: a TCP connect answers EINPROGRESS
	OpSockName   Op = 6  // Reply Data: the socket's address (getsockname)
	OpPeerName   Op = 7  // Reply Data: the peer's address (getpeername)
	OpSetSockOpt Op = 8  // A: level, name. Data: the value
	OpGetSockOpt Op = 9  // A: level, name, the value's room. Reply Data: the value
	OpSend       Op = 10 // A: flags, the address's length. Data: the address, then the bytes
	OpRecv       Op = 11 // A: flags, the most bytes wanted. Reply A[1]: the address's length; Data: the address, then the bytes
	OpShutdown   Op = 12 // A[0]: how
	OpClose      Op = 13 // sent with id 0: no reply
	OpIoctl      Op = 14 // A[0]: the request (FIONREAD only). Reply Data: the int it returns
	opEnd        Op = 15
)

var opNames = [opEnd]string{"", "socket", "bind", "listen", "accept", "connect", "getsockname",
	"getpeername", "setsockopt", "getsockopt", "send", "recv", "shutdown", "close", "ioctl"}

// String names the call.
func (o Op) String() string {
	if o > 0 && o < opEnd {
		return opNames[o]
	}
	return "invalid"
}

// Header is a frame's fixed part. An event has Op 0, ID 0 and no data, and carries the socket's readiness (EPOLLIN, EPOLLOUT,
// EPOLLRDHUP, EPOLLHUP, EPOLLERR as the host's epoll reports them) in A[0].
type Header struct {
	Kind    Kind
	Op      Op
	ID      uint32 // a request's id, echoed by its reply; 0: no reply wanted (and always for events)
	Handle  uint32 // the socket: the kernel names its sockets, so no reply is needed to learn one
	DataLen uint32
	A       [3]int64
}

// Err is why a frame was refused; OK when it was not.
type Err uint8

const (
	OK Err = iota
	ErrShort
	ErrMagic
	ErrVersion
	ErrKind
	ErrOp
	ErrReserved
	ErrTooLong
	ErrNoID
)

var errNames = [...]string{"ok", "short frame", "bad magic", "unknown version", "unknown kind",
	"unknown op", "reserved bytes set", "data longer than MaxData", "reply without an id"}

func (e Err) String() string {
	if int(e) < len(errNames) {
		return errNames[e]
	}
	return "invalid error"
}

// Put writes h and data into b as one frame and returns its length, or 0 if b is too short
// or data too long. h.DataLen is set from data.
func Put(b []byte, h Header, data []byte) int {
	n := HeaderSize + len(data)
	if len(data) > MaxData || len(b) < n {
		return 0
	}
	PutHeader(b, h, len(data))
	copy(b[HeaderSize:], data)
	return n
}

// PutHeader writes h, with dataLen bytes of data to follow, into b[:HeaderSize]; the caller
// writes the data itself (the kernel copies it from user memory straight into place). It
// reports false if b is too short or dataLen too long.
func PutHeader(b []byte, h Header, dataLen int) bool {
	if len(b) < HeaderSize || dataLen < 0 || dataLen > MaxData {
		return false
	}
	binary.LittleEndian.PutUint16(b[0:], Magic)
	b[2] = Version
	b[3] = byte(h.Kind)
	b[4] = byte(h.Op)
	b[5], b[6], b[7] = 0, 0, 0
	binary.LittleEndian.PutUint32(b[8:], h.ID)
	binary.LittleEndian.PutUint32(b[12:], h.Handle)
	binary.LittleEndian.PutUint32(b[16:], uint32(dataLen))
	binary.LittleEndian.PutUint32(b[20:], 0)
	for i, a := range h.A {
		binary.LittleEndian.PutUint64(b[24+8*i:], uint64(a))
	}
	return true
}

// Parse reads the frame at the start of b. It returns the header, the frame's data (aliasing
// b) and the frame's length; n == 0 with OK means b holds only part of a frame (read more and
// call again). Any other Err refuses the stream: the header is wrong, whatever follows.
func Parse(b []byte) (h Header, data []byte, n int, err Err) {
	if len(b) < HeaderSize {
		return Header{}, nil, 0, OK
	}
	if binary.LittleEndian.Uint16(b[0:]) != Magic {
		return Header{}, nil, 0, ErrMagic
	}
	if b[2] != Version {
		return Header{}, nil, 0, ErrVersion
	}
	h.Kind, h.Op = Kind(b[3]), Op(b[4])
	if b[5] != 0 || b[6] != 0 || b[7] != 0 || binary.LittleEndian.Uint32(b[20:]) != 0 {
		return Header{}, nil, 0, ErrReserved
	}
	h.ID = binary.LittleEndian.Uint32(b[8:])
	h.Handle = binary.LittleEndian.Uint32(b[12:])
	h.DataLen = binary.LittleEndian.Uint32(b[16:])
	for i := range h.A {
		h.A[i] = int64(binary.LittleEndian.Uint64(b[24+8*i:]))
	}
	switch h.Kind {
	case KindRequest:
		if h.Op == 0 || h.Op >= opEnd {
			return Header{}, nil, 0, ErrOp
		}
	case KindReply:
		if h.Op == 0 || h.Op >= opEnd {
			return Header{}, nil, 0, ErrOp
		}
		if h.ID == 0 {
			return Header{}, nil, 0, ErrNoID
		}
	case KindEvent:
		if h.Op != 0 || h.ID != 0 || h.DataLen != 0 {
			return Header{}, nil, 0, ErrOp
		}
	default:
		return Header{}, nil, 0, ErrKind
	}
	if h.DataLen > MaxData {
		return Header{}, nil, 0, ErrTooLong
	}
	end := HeaderSize + int(h.DataLen)
	if len(b) < end {
		return Header{}, nil, 0, OK
	}
	return h, b[HeaderSize:end], end, OK
}
