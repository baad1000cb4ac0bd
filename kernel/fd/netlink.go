package fd

import "github.com/unitrace/unitrace/kernel/abi"

// Netlink sockets: socket(AF_NETLINK, ...) is served in the guest, by the kernel itself (package
// netlink answers what is sent). Such a socket is a datagram pair folded onto itself: its one
// end's two directions are the same pipe, so what the kernel delivers to it (NetlinkDeliver) is
// written as the end would write and read as it reads, and the pair's rules give the rest:
// datagrams and MSG_TRUNC, blocking and O_NONBLOCK, poll and epoll, dup and close. The caller
// intercepts the socket's sends and hands them to the kernel's netlink instead of the pipe.

type netlinkState struct {
	on      bool   // the pair is a netlink socket
	raw     bool   // SOCK_RAW (else SOCK_DGRAM): what SO_TYPE says
	bound   bool   // it has a port
	overrun bool   // a delivery did not fit: the next receive is ENOBUFS
	proto   uint8  // the netlink protocol
	opts    uint16 // the SOL_NETLINK options set, a bit each (option number less one)
	port    uint32 // its port id (nl_pid)
	groups  uint32 // the multicast groups it joined by bind (nothing is ever sent to them)
}

// NetlinkSocket opens a netlink socket of protocol proto on the lowest free descriptor: raw says
// SOCK_RAW (else SOCK_DGRAM); flags may hold O_CLOEXEC and O_NONBLOCK, else EINVAL. No free
// descriptor is EMFILE, no free pipe ENFILE.
func (t *Table) NetlinkSocket(flags int, raw bool, proto uint8) (fd int, errno int) {
	if flags&^(O_CLOEXEC|O_NONBLOCK) != 0 {
		return -1, abi.EINVAL
	}
	pr, p := -1, -1
	for i := range t.pairs {
		if !t.pairs[i].inUse {
			pr = i
			break
		}
	}
	for i := range t.pipes {
		if !t.pipes[i].inUse() {
			p = i
			break
		}
	}
	if pr < 0 || p < 0 {
		return -1, abi.ENFILE
	}
	fd = t.open(KindPair, flags&O_CLOEXEC != 0, flags&O_NONBLOCK != 0)
	if fd < 0 {
		return -1, abi.EMFILE
	}
	t.files[fd].desc = int16(pr)
	t.pairs[pr] = pair{a: int16(p), b: int16(p), inUse: true, dgram: true, nl: netlinkState{on: true, raw: raw, proto: proto}}
	t.pipes[p] = pipe{readers: 1, writers: 1}
	return fd, 0
}

// netlinkOf returns descriptor fd's netlink state, or nil if fd is no netlink socket.
func (t *Table) netlinkOf(fd int) *netlinkState {
	if t.Kind(fd) != KindPair {
		return nil
	}
	pr, _ := t.pairOf(fd)
	if !pr.nl.on {
		return nil
	}
	return &pr.nl
}

// IsNetlink reports whether fd is a netlink socket.
func (t *Table) IsNetlink(fd int) bool { return t.netlinkOf(fd) != nil }

// NetlinkInfo reports netlink socket fd's type (raw: SOCK_RAW), protocol, port and groups, and
// whether it has a port yet.
func (t *Table) NetlinkInfo(fd int) (raw bool, proto uint8, port, groups uint32, bound bool) {
	nl := t.netlinkOf(fd)
	if nl == nil {
		return false, 0, 0, 0, false
	}
	return nl.raw, nl.proto, nl.port, nl.groups, nl.bound
}

// portTaken reports whether another netlink socket of protocol proto has port.
func (t *Table) portTaken(proto uint8, port uint32, self *netlinkState) bool {
	for i := range t.pairs {
		nl := &t.pairs[i].nl
		if t.pairs[i].inUse && nl.on && nl != self && nl.bound && nl.proto == proto && nl.port == port {
			return true
		}
	}
	return false
}

// NetlinkBind implements bind of netlink socket fd to port (0: one the kernel picks,
// NetlinkAutobind's) and groups, as Linux's netlink_bind: a bound socket keeps its port (another
// is EINVAL) and takes the new groups; a port another socket of its protocol has is EADDRINUSE.
func (t *Table) NetlinkBind(fd int, port, groups uint32, pid int32) int {
	nl := t.netlinkOf(fd)
	switch {
	case nl == nil:
		return abi.ENOTSOCK
	case nl.bound && port != 0 && port != nl.port:
		return abi.EINVAL
	case !nl.bound && port != 0 && t.portTaken(nl.proto, port, nl):
		return abi.EADDRINUSE
	}
	if !nl.bound {
		if port == 0 {
			t.NetlinkAutobind(fd, pid)
		} else {
			nl.port, nl.bound = port, true
		}
	}
	nl.groups = groups
	return 0
}

// NetlinkAutobind gives netlink socket fd a port if it has none, as Linux's netlink_autobind:
// the process's id for the first, then negative numbers from -4096 down.
func (t *Table) NetlinkAutobind(fd int, pid int32) {
	nl := t.netlinkOf(fd)
	if nl == nil || nl.bound {
		return
	}
	port := uint32(pid)
	for rover := int32(-4096); t.portTaken(nl.proto, port, nl); rover-- {
		port = uint32(rover)
	}
	nl.port, nl.bound = port, true
}

// NetlinkSetOpt records SOL_NETLINK option opt (1 to 16) of netlink socket fd as on or off.
func (t *Table) NetlinkSetOpt(fd int, opt int, on bool) {
	nl := t.netlinkOf(fd)
	if nl == nil || opt < 1 || opt > 16 {
		return
	}
	bit := uint16(1) << (opt - 1)
	if on {
		nl.opts |= bit
	} else {
		nl.opts &^= bit
	}
}

// NetlinkOpt reports SOL_NETLINK option opt of netlink socket fd.
func (t *Table) NetlinkOpt(fd int, opt int) bool {
	nl := t.netlinkOf(fd)
	return nl != nil && opt >= 1 && opt <= 16 && nl.opts&(1<<(opt-1)) != 0
}

// NetlinkDeliver queues datagram b for netlink socket fd to receive, as the kernel sends it;
// false (and the next receive is ENOBUFS, NetlinkTakeOverrun) if it does not fit, as Linux's
// netlink_overrun drops what a full receive buffer cannot take.
func (t *Table) NetlinkDeliver(fd int, b []byte) bool {
	nl := t.netlinkOf(fd)
	if nl == nil {
		return false
	}
	wtotal, room, msgRoom, _ := t.PairWriteState(fd)
	if room < len(b) || !msgRoom {
		nl.overrun = true
		return false
	}
	if len(b) > 0 {
		if n, errno := t.PipeWrite(fd, b); errno != 0 || n != len(b) {
			nl.overrun = true
			return false
		}
	}
	t.PairPushMsg(fd, PairMsg{At: wtotal, End: wtotal + uint64(len(b))})
	return true
}

// NetlinkTakeOverrun reports, and forgets, that a delivery to netlink socket fd was dropped.
func (t *Table) NetlinkTakeOverrun(fd int) bool {
	nl := t.netlinkOf(fd)
	if nl == nil || !nl.overrun {
		return false
	}
	nl.overrun = false
	return true
}

// NetlinkMarkOverrun records that the kernel dropped a datagram for netlink socket fd: the next
// receive is ENOBUFS.
func (t *Table) NetlinkMarkOverrun(fd int) {
	if nl := t.netlinkOf(fd); nl != nil {
		nl.overrun = true
	}
}
