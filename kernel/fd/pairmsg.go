package fd

import "github.com/unitrace/unitrace/kernel/abi"

// Socket pairs' messages: ancillary data (SCM_CREDENTIALS, SCM_RIGHTS) and datagrams. A
// direction of a pair keeps, next to its bytes, a queue of messages: each the stream offsets
// [At, End) of its bytes and the control data sent with them. A stream pair queues only
// messages that carry control data; a datagram pair queues every send, so that a receive takes
// one message (its bytes, even none, and what does not fit the buffer discarded). A receive
// never crosses from one message into another, nor from plain bytes into a message, so control
// data comes back with the bytes it was sent with, as Linux's unix sockets keep it with its skb.
//
// The descriptors SCM_RIGHTS passes are in flight: the caller holds each on a descriptor of its
// own (at InFlightBase or above) from the send until the receive moves it to the lowest free
// descriptor (MoveFD). The messages of a direction that goes away unread leave their in-flight
// descriptors to the caller to close (TakeOrphan).

// MaxPairMsgs is how many messages a pair's direction queues; a send beyond it waits (EAGAIN).
const MaxPairMsgs = 32

// MaxRights is how many descriptors one message passes: more is ETOOMANYREFS.
const MaxRights = 16

// InFlightBase is the lowest descriptor an in-flight one takes.
const InFlightBase = MaxFDs / 2

// Ctl is a message's control data.
type Ctl struct {
	Creds   bool // SCM_CREDENTIALS sent
	Pid     int32
	Uid     uint32
	Gid     uint32
	NRights uint8
	Rights  [MaxRights]int32 // in-flight descriptors
}

// PairMsg is one queued message.
type PairMsg struct {
	At, End   uint64 // its bytes' offsets in the direction's stream
	Ctl       Ctl
	Delivered bool // its control data went with an earlier receive of its bytes
}

// pairRead returns the pipe pair end fd reads, or -1.
func (t *Table) pairRead(fd int) int {
	if t.Kind(fd) != KindPair {
		return -1
	}
	r, _ := t.pairPipes(&t.files[fd])
	return r
}

func (t *Table) pairWrite(fd int) int {
	if t.Kind(fd) != KindPair {
		return -1
	}
	_, w := t.pairPipes(&t.files[fd])
	return w
}

func (t *Table) pairOf(fd int) (pr *pair, end int) {
	f := &t.files[fd]
	if f.writeEnd {
		end = 1
	}
	return &t.pairs[int(f.desc)%MaxPairs], end
}

// PairDgram reports whether fd is an end of a datagram pair.
func (t *Table) PairDgram(fd int) bool {
	if t.Kind(fd) != KindPair {
		return false
	}
	pr, _ := t.pairOf(fd)
	return pr.dgram
}

// PairPasscred reports SO_PASSCRED of pair end fd.
func (t *Table) PairPasscred(fd int) bool {
	if t.Kind(fd) != KindPair {
		return false
	}
	pr, end := t.pairOf(fd)
	return pr.passcred[end]
}

// SetPairPasscred sets SO_PASSCRED of pair end fd.
func (t *Table) SetPairPasscred(fd int, on bool) {
	if t.Kind(fd) == KindPair {
		pr, end := t.pairOf(fd)
		pr.passcred[end] = on
	}
}

// PairWriteState is what a send on pair end fd needs to know: the bytes written so far to the
// direction it writes, the room left and whether a message can be queued; ok is false if fd is
// not a pair end.
func (t *Table) PairWriteState(fd int) (wtotal uint64, room int, msgRoom, ok bool) {
	w := t.pairWrite(fd)
	if w < 0 {
		return 0, 0, false, false
	}
	p := &t.pipes[w]
	return p.wtotal, PipeSize - int(p.n), p.nmsgs < MaxPairMsgs, true
}

// PairPushMsg queues m on the direction pair end fd writes; EAGAIN if its queue is full. A
// message of no bytes is an event for the other end's readers, as bytes are.
func (t *Table) PairPushMsg(fd int, m PairMsg) int {
	w := t.pairWrite(fd)
	if w < 0 {
		return abi.EINVAL
	}
	p := &t.pipes[w]
	if p.nmsgs >= MaxPairMsgs {
		return abi.EAGAIN
	}
	p.msgs[(int(p.msgHead)+int(p.nmsgs))%MaxPairMsgs] = m
	p.nmsgs++
	t.notifyPipe(w, false, EPOLLIN)
	return 0
}

// PairReadUnit says what a receive on pair end fd may take next: limit bytes at most (to the end
// of the message being read, or to the start of the next message), and the message whose start
// it reads (msg, inMsg), if it does. pending says there is something to receive: bytes, or a
// message of none.
func (t *Table) PairReadUnit(fd int) (limit uint64, msg PairMsg, inMsg, pending bool) {
	r := t.pairRead(fd)
	if r < 0 {
		return 0, PairMsg{}, false, false
	}
	p := &t.pipes[r]
	limit = ^uint64(0)
	for p.nmsgs > 0 {
		if m := &p.msgs[p.msgHead]; m.End > p.rtotal || m.At == p.rtotal {
			break // ahead of the reader, being read, or a message of no bytes here
		}
		t.dropHead(p) // read past (cannot happen: reads of a pair with messages take them)
	}
	if p.nmsgs > 0 {
		m := p.msgs[p.msgHead]
		if m.At <= p.rtotal {
			return m.End - min(p.rtotal, m.End), m, true, true
		}
		limit = m.At - p.rtotal
	}
	return limit, PairMsg{}, false, p.n > 0
}

// PairEndRead ends a receive on pair end fd that read the message at the head of its queue
// (inMsg from PairReadUnit): its control data is delivered, and a datagram's unread bytes, or a
// stream message read to its end, leave it.
func (t *Table) PairEndRead(fd int, dgram bool) {
	r := t.pairRead(fd)
	if r < 0 || t.pipes[r].nmsgs == 0 {
		return
	}
	p := &t.pipes[r]
	m := &p.msgs[p.msgHead]
	m.Delivered = true
	if dgram && p.rtotal < m.End {
		k := min(m.End-p.rtotal, uint64(p.n))
		p.head = uint32((uint64(p.head) + k) % PipeSize)
		p.n -= uint32(k)
		if p.n == 0 {
			p.head = 0
		}
		p.rtotal += k
		t.notifyPipe(r, true, EPOLLOUT)
	}
	if p.rtotal >= m.End {
		*m = PairMsg{}
		p.msgHead = (p.msgHead + 1) % MaxPairMsgs
		p.nmsgs--
	}
}

// dropHead drops the message at the head of p's queue, its in-flight descriptors to TakeOrphan.
func (t *Table) dropHead(p *pipe) {
	m := &p.msgs[p.msgHead]
	for j := 0; j < int(m.Ctl.NRights); j++ {
		if t.norphans < len(t.orphans) {
			t.orphans[t.norphans] = m.Ctl.Rights[j]
			t.norphans++
		}
	}
	*m = PairMsg{}
	p.msgHead = (p.msgHead + 1) % MaxPairMsgs
	p.nmsgs--
}

// PairPeerGone reports whether nothing pair end fd writes can be read any more: the other end
// is closed or the direction shut down.
func (t *Table) PairPeerGone(fd int) bool {
	w := t.pairWrite(fd)
	return w >= 0 && (t.pipes[w].readers == 0 || t.pipes[w].shut)
}

// PairReadDone reports whether pair end fd reads at the end of its direction: nothing queued
// and no writer left, or the direction shut down.
func (t *Table) PairReadDone(fd int) bool {
	r := t.pairRead(fd)
	if r < 0 {
		return true
	}
	p := &t.pipes[r]
	return p.n == 0 && p.nmsgs == 0 && (p.writers == 0 || p.shut)
}

// orphanMsgs hands the in-flight descriptors of pipe p's messages, which no one will receive,
// to TakeOrphan, and empties the queue.
func (t *Table) orphanMsgs(p *pipe) {
	for p.nmsgs > 0 {
		t.dropHead(p)
	}
	p.msgHead = 0
}

// TakeOrphan returns an in-flight descriptor whose message went away unread, for the caller to
// close; ok is false when there is none.
func (t *Table) TakeOrphan() (fd int, ok bool) {
	if t.norphans == 0 {
		return -1, false
	}
	t.norphans--
	return int(t.orphans[t.norphans]), true
}

// MoveFD moves descriptor from to the lowest free descriptor, with FD_CLOEXEC if cloexec: an
// in-flight descriptor received. The object behind it sees no close. EMFILE if none is free
// below from; EBADF if from is not open. With closeFrom, from is still open (a watch names it)
// and fd is another descriptor of its object: the caller closes from.
func (t *Table) MoveFD(from int, cloexec bool) (fd int, closeFrom bool, errno int) {
	if !t.isOpen(from) {
		return -1, false, abi.EBADF
	}
	for fd = 0; fd < from; fd++ {
		if t.files[fd].kind == KindNone {
			break
		}
	}
	if fd == from {
		return -1, false, abi.EMFILE
	}
	if t.files[from].watchers.head != none || t.files[from].members.head != none {
		// Watches name descriptors: keep from's, and give fd a dup (rare: a program cannot
		// know an in-flight descriptor's number to watch it).
		if !dupable(t.files[from].kind) {
			return -1, false, abi.EINVAL
		}
		t.install(fd, from, cloexec)
		return fd, true, 0
	}
	t.files[fd] = t.files[from]
	t.files[fd].cloexec = cloexec
	t.files[from] = file{}
	return fd, false, 0
}
