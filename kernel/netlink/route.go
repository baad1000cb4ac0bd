package netlink

import "github.com/unitrace/unitrace/kernel/abi"

// Routing netlink: the requests a program sends on a NETLINK_ROUTE socket and the datagrams it
// receives back, as Linux's rtnetlink_rcv_msg and its dump and get handlers make them for the
// loopback interface. Served: RTM_GETLINK (a dump, or one link by index or IFLA_IFNAME) and
// RTM_GETADDR dumps, by family. Every other request type is EOPNOTSUPP: the one interface and
// its addresses are fixed, and the guest has no routing table of its own.

// ReplyBytes bounds the bytes of the datagrams one call of Serve makes, MaxDatagrams their
// number; what does not fit is dropped and Replies.Lost says so, as Linux drops what overruns
// a socket's receive buffer.
const (
	ReplyBytes   = 4096
	MaxDatagrams = 16
)

// Replies holds the datagrams Serve made, in order. The zero value is empty.
type Replies struct {
	buf  [ReplyBytes]byte
	ends [MaxDatagrams]uint16 // where each datagram ends in buf
	n    int                  // datagrams
	used int                  // bytes of buf in use
	open bool                 // the last datagram takes more messages
	// Lost says a reply did not fit and is gone: the socket's reader is told (ENOBUFS).
	Lost bool
}

// Reset empties r.
func (r *Replies) Reset() { r.n, r.used, r.open, r.Lost = 0, 0, false, false }

// Len is the number of datagrams.
func (r *Replies) Len() int { return r.n }

// Datagram returns datagram i (0 ≤ i < Len).
func (r *Replies) Datagram(i int) []byte {
	if i < 0 || i >= r.n {
		return nil
	}
	start := 0
	if i > 0 {
		start = int(r.ends[i-1])
	}
	return r.buf[start:r.ends[i]]
}

// startDatagram begins a new datagram; false if there is no room for one.
func (r *Replies) startDatagram() bool {
	r.open = false
	if r.n >= MaxDatagrams {
		r.Lost = true
		return false
	}
	start := 0
	if r.n > 0 {
		start = int(r.ends[r.n-1])
	}
	r.ends[r.n] = uint16(start)
	r.n++
	r.open = true
	return true
}

// msg is a message being written into r: its start in r.buf, or -1 once it did not fit.
type msg struct {
	r     *Replies
	start int
}

// begin starts a message of type typ in the open datagram.
func (r *Replies) begin(typ, flags uint16, seq, port uint32) msg {
	if !r.open || r.used+hdrLen > len(r.buf) {
		r.Lost = true
		return msg{r, -1}
	}
	m := msg{r, r.used}
	h := r.buf[r.used : r.used+hdrLen]
	put32(h[0:], 0)
	put16(h[4:], typ)
	put16(h[6:], flags)
	put32(h[8:], seq)
	put32(h[12:], port)
	r.used += hdrLen
	return m
}

// bytes appends b to the message, padded to 4 bytes.
func (m *msg) bytes(b []byte) {
	if m.start < 0 {
		return
	}
	r := m.r
	n := align4(len(b))
	if r.used+n > len(r.buf) {
		m.fail()
		return
	}
	copy(r.buf[r.used:], b)
	clear(r.buf[r.used+len(b) : r.used+n])
	r.used += n
}

// zeros appends n zero bytes, padded to 4.
func (m *msg) zeros(n int) []byte {
	if m.start < 0 {
		return nil
	}
	r := m.r
	k := align4(n)
	if r.used+k > len(r.buf) {
		m.fail()
		return nil
	}
	b := r.buf[r.used : r.used+k]
	clear(b)
	r.used += k
	return b[:n]
}

// attr appends an attribute of type typ whose value is b.
func (m *msg) attr(typ uint16, b []byte) {
	h := m.zeros(rtaHdrLen)
	if h == nil {
		return
	}
	put16(h[0:], uint16(rtaHdrLen+len(b)))
	put16(h[2:], typ)
	m.bytes(b)
}

func (m *msg) attr32(typ uint16, v uint32) {
	var b [4]byte
	put32(b[:], v)
	m.attr(typ, b[:])
}

func (m *msg) attr8(typ uint16, v uint8) { m.attr(typ, []byte{v}) }

// attrString appends a NUL-terminated string attribute.
func (m *msg) attrString(typ uint16, s []byte) {
	var b [IFNAMSIZ]byte
	n := copy(b[:len(b)-1], s)
	m.attr(typ, b[:n+1])
}

// fail drops the message: it did not fit.
func (m *msg) fail() {
	m.r.used = m.start
	m.r.Lost = true
	m.start = -1
}

// end closes the message: its length goes in its header and the datagram grows to hold it.
func (m *msg) end() {
	if m.start < 0 {
		return
	}
	r := m.r
	put32(r.buf[m.start:], uint32(r.used-m.start))
	r.ends[r.n-1] = uint16(r.used)
}

// header is a request's struct nlmsghdr.
type header struct {
	len        uint32
	typ, flags uint16
	seq, pid   uint32
}

func parseHeader(b []byte) header {
	return header{len: le32(b[0:]), typ: le16(b[4:]), flags: le16(b[6:]), seq: le32(b[8:]), pid: le32(b[12:])}
}

// Serve answers the messages of one datagram a program sent on a NETLINK_ROUTE socket bound to
// port, into r (which it empties first). As Linux's netlink_rcv_skb, it stops at a header that
// is too short or runs past the datagram; a message without NLM_F_REQUEST, and a control
// message, gets nothing but the acknowledgement NLM_F_ACK asks for. A request that fails gets an
// NLMSG_ERROR with the negated errno and the request (its header alone, NLM_F_CAPPED, if the
// whole does not fit); one that succeeds, an NLMSG_ERROR of 0 with its header if it asked with
// NLM_F_ACK. A dump's messages come in one datagram (NLM_F_MULTI) and its NLMSG_DONE in the
// next, as Linux's netlink_dump sends them.
func Serve(req []byte, port uint32, r *Replies) {
	r.Reset()
	for len(req) >= hdrLen {
		h := parseHeader(req)
		if h.len < hdrLen || int64(h.len) > int64(len(req)) {
			return
		}
		m := req[:h.len]
		errno := 0
		if h.flags&NLM_F_REQUEST != 0 && h.typ >= NLMSG_MIN_TYPE {
			errno = serveOne(h, m[hdrLen:], port, r)
		}
		if errno != 0 || h.flags&NLM_F_ACK != 0 && !(h.flags&NLM_F_REQUEST != 0 && isDump(h)) {
			ack(h, m, errno, port, r)
		}
		next := align4(int(h.len))
		if next >= len(req) {
			return
		}
		req = req[next:]
	}
}

// isDump reports whether h asks for a dump of a type that has one.
func isDump(h header) bool {
	return h.flags&NLM_F_DUMP == NLM_F_DUMP && (h.typ == RTM_GETLINK || h.typ == RTM_GETADDR)
}

// serveOne answers request h, whose payload is p, and returns its errno.
func serveOne(h header, p []byte, port uint32, r *Replies) int {
	switch h.typ {
	case RTM_GETLINK:
		if h.flags&NLM_F_DUMP == NLM_F_DUMP {
			if r.startDatagram() {
				m := r.begin(RTM_NEWLINK, NLM_F_MULTI, h.seq, port)
				linkBody(&m)
				m.end()
			}
			done(h, port, r)
			return 0
		}
		return getLink(h, p, port, r)
	case RTM_GETADDR:
		if h.flags&NLM_F_DUMP != NLM_F_DUMP {
			return abi.EOPNOTSUPP
		}
		family := uint8(AF_UNSPEC)
		if len(p) > 0 {
			family = p[0]
		}
		if r.startDatagram() {
			if family != AF_INET6 {
				m := r.begin(RTM_NEWADDR, NLM_F_MULTI, h.seq, port)
				addrV4Body(&m)
				m.end()
			}
			if family != AF_INET {
				m := r.begin(RTM_NEWADDR, NLM_F_MULTI, h.seq, port)
				addrV6Body(&m)
				m.end()
			}
		}
		done(h, port, r)
		return 0
	}
	return abi.EOPNOTSUPP
}

// getLink answers RTM_GETLINK for one link, named by its index or, with index 0, by
// IFLA_IFNAME: the link, or ENODEV; neither given is EINVAL, and so is a payload shorter than
// struct ifinfomsg.
func getLink(h header, p []byte, port uint32, r *Replies) int {
	if len(p) < ifinfomsgLen {
		return abi.EINVAL
	}
	index := int32(le32(p[4:]))
	switch {
	case index > 0:
		if index != LoopbackIndex {
			return abi.ENODEV
		}
	default:
		name, ok := findAttr(p[ifinfomsgLen:], IFLA_IFNAME)
		if !ok {
			return abi.EINVAL
		}
		if !isLoopbackName(name) {
			return abi.ENODEV
		}
	}
	if r.startDatagram() {
		m := r.begin(RTM_NEWLINK, 0, h.seq, port)
		linkBody(&m)
		m.end()
	}
	return 0
}

// findAttr returns the value of the first attribute of type typ in attrs; a malformed one ends
// the search.
func findAttr(attrs []byte, typ uint16) ([]byte, bool) {
	for len(attrs) >= rtaHdrLen {
		n := int(le16(attrs))
		if n < rtaHdrLen || n > len(attrs) {
			return nil, false
		}
		if le16(attrs[2:])&0x3fff == typ { // without NLA_F_NESTED and NLA_F_NET_BYTEORDER
			return attrs[rtaHdrLen:n], true
		}
		next := align4(n)
		if next >= len(attrs) {
			break
		}
		attrs = attrs[next:]
	}
	return nil, false
}

// done ends a dump: NLMSG_DONE, whose payload is the dump's result (0), in a datagram of its
// own.
func done(h header, port uint32, r *Replies) {
	if r.startDatagram() {
		m := r.begin(NLMSG_DONE, NLM_F_MULTI, h.seq, port)
		m.zeros(4)
		m.end()
	}
}

// ack answers request h (the whole message req) with NLMSG_ERROR: errno negated, then the
// request's header and, for an error, its payload too unless that does not fit (NLM_F_CAPPED).
func ack(h header, req []byte, errno int, port uint32, r *Replies) {
	if !r.startDatagram() {
		return
	}
	echo := req[:hdrLen]
	var flags uint16
	if errno != 0 {
		if r.used+hdrLen+4+align4(len(req)) <= len(r.buf) {
			echo = req
		} else {
			flags = NLM_F_CAPPED
		}
	}
	m := r.begin(NLMSG_ERROR, flags, h.seq, port)
	var e [4]byte
	put32(e[:], uint32(-int32(errno)))
	m.bytes(e[:])
	m.bytes(echo)
	m.end()
}

// linkBody writes the loopback interface's struct ifinfomsg and attributes.
func linkBody(m *msg) {
	b := m.zeros(ifinfomsgLen)
	if b == nil {
		return
	}
	b[0] = AF_UNSPEC
	put16(b[2:], ARPHRD_LOOPBACK)
	put32(b[4:], LoopbackIndex)
	put32(b[8:], loopbackFlags)
	m.attrString(IFLA_IFNAME, loopbackName[:])
	m.attr32(IFLA_TXQLEN, txQueueLen)
	m.attr8(IFLA_OPERSTATE, IF_OPER_UNKNOWN)
	m.attr8(IFLA_LINKMODE, 0)
	m.attr32(IFLA_MTU, loopbackMTU)
	m.attr32(IFLA_MIN_MTU, 0)
	m.attr32(IFLA_MAX_MTU, 0)
	m.attr32(IFLA_GROUP, 0)
	m.attr32(IFLA_NUM_TX_QUEUES, 1)
	m.attr32(IFLA_NUM_RX_QUEUES, 1)
	m.attr8(IFLA_CARRIER, 1)
	m.attrString(IFLA_QDISC, loopbackQdisc[:])
	var zero [6]byte // lo's hardware address and broadcast: all zeros
	m.attr(IFLA_ADDRESS, zero[:])
	m.attr(IFLA_BROADCAST, zero[:])
}

// addrHeader writes a struct ifaddrmsg of the loopback interface.
func addrHeader(m *msg, family, prefix uint8) {
	b := m.zeros(ifaddrmsgLen)
	if b == nil {
		return
	}
	b[0], b[1], b[2], b[3] = family, prefix, IFA_F_PERMANENT, RT_SCOPE_HOST
	put32(b[4:], LoopbackIndex)
}

// cacheinfo writes IFA_CACHEINFO of a permanent address: lifetimes infinite.
func cacheinfo(m *msg) {
	var c [ifaCacheinfoLen]byte
	put32(c[0:], infinityLifeTime)
	put32(c[4:], infinityLifeTime)
	m.attr(IFA_CACHEINFO, c[:])
}

// addrV4Body is 127.0.0.1/8 on lo, in inet_fill_ifaddr's order.
func addrV4Body(m *msg) {
	addrHeader(m, AF_INET, 8)
	m.attr(IFA_ADDRESS, loopbackV4[:])
	m.attr(IFA_LOCAL, loopbackV4[:])
	m.attrString(IFA_LABEL, loopbackName[:])
	m.attr32(IFA_FLAGS, IFA_F_PERMANENT)
	cacheinfo(m)
}

// addrV6Body is ::1/128 on lo, in inet6_fill_ifaddr's order.
func addrV6Body(m *msg) {
	addrHeader(m, AF_INET6, 128)
	m.attr(IFA_ADDRESS, loopbackV6[:])
	cacheinfo(m)
	m.attr32(IFA_FLAGS, IFA_F_PERMANENT)
}
