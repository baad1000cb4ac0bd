package fd

import (
	"testing"

	"github.com/unitrace/unitrace/kernel/abi"
)

// TestNetlinkSocket delivers datagrams to a netlink socket and receives them as a datagram
// pair's, checks its ports, a dup, an overrun and that closing frees its pipe and pair.
func TestNetlinkSocket(t *testing.T) {
	var tb Table
	tb.Init()
	s, errno := tb.NetlinkSocket(O_NONBLOCK, true, 0)
	if errno != 0 || !tb.IsNetlink(s) || !tb.PairDgram(s) || !tb.Nonblocking(s) || tb.IsNetlink(0) {
		t.Fatalf("NetlinkSocket = %d, %d", s, errno)
	}
	if _, _, _, pending := tb.PairReadUnit(s); pending || tb.PairReadDone(s) || tb.PairPeerGone(s) {
		t.Fatal("a new netlink socket has something to receive, or is at its end")
	}
	if ev := tb.pairPoll(&tb.files[s]); ev&EPOLLIN != 0 || ev&EPOLLOUT == 0 || ev&(EPOLLHUP|EPOLLRDHUP) != 0 {
		t.Fatalf("poll of an empty netlink socket = %#x", ev)
	}
	if !tb.NetlinkDeliver(s, []byte("first")) || !tb.NetlinkDeliver(s, []byte("second!")) {
		t.Fatal("deliveries refused")
	}
	if ev := tb.pairPoll(&tb.files[s]); ev&EPOLLIN == 0 {
		t.Fatalf("poll after a delivery = %#x, want readable", ev)
	}
	for _, want := range []string{"first", "second!"} {
		limit, _, inMsg, pending := tb.PairReadUnit(s)
		if !pending || !inMsg || limit != uint64(len(want)) {
			t.Fatalf("unit = %d, %v, %v; want a datagram of %d", limit, inMsg, pending, len(want))
		}
		buf := make([]byte, 16)
		n, _ := tb.PipeRead(s, buf[:limit])
		tb.PairEndRead(s, true)
		if string(buf[:n]) != want {
			t.Fatalf("received %q, want %q", buf[:n], want)
		}
	}
	// Ports: the pid for the first, then from -4096 down; a taken port is EADDRINUSE.
	s2, _ := tb.NetlinkSocket(0, false, 0)
	must(t, tb.NetlinkBind(s, 0, 0, 7))
	if _, _, port, _, bound := tb.NetlinkInfo(s); !bound || port != 7 {
		t.Fatalf("autobound port %d, %v; want 7", port, bound)
	}
	if errno := tb.NetlinkBind(s2, 7, 0, 7); errno != abi.EADDRINUSE {
		t.Fatalf("bind to a taken port = %d, want EADDRINUSE", errno)
	}
	tb.NetlinkAutobind(s2, 7)
	if raw, _, port, _, _ := tb.NetlinkInfo(s2); raw || int32(port) != -4096 {
		t.Fatalf("second autobound port %d (raw %v), want -4096", int32(port), raw)
	}
	if errno := tb.NetlinkBind(s, 9, 0, 7); errno != abi.EINVAL {
		t.Fatalf("rebinding to another port = %d, want EINVAL", errno)
	}
	must(t, tb.NetlinkBind(s, 7, 1, 7))
	if _, _, _, groups, _ := tb.NetlinkInfo(s); groups != 1 {
		t.Fatalf("groups %d, want 1", groups)
	}
	// Options.
	tb.NetlinkSetOpt(s, 11, true)
	if !tb.NetlinkOpt(s, 11) || tb.NetlinkOpt(s, 10) || tb.NetlinkOpt(s2, 11) {
		t.Fatal("options are wrong")
	}
	// Overrun: deliveries past the queue are dropped and reported once.
	for i := 0; i <= MaxPairMsgs; i++ {
		tb.NetlinkDeliver(s, []byte("x"))
	}
	if !tb.NetlinkTakeOverrun(s) || tb.NetlinkTakeOverrun(s) {
		t.Fatal("the overrun is not reported once")
	}
	// A dup shares the socket; closing both frees its pipe and pair.
	d, errno := tb.Dup(s, 0, false)
	if errno != 0 || !tb.IsNetlink(d) {
		t.Fatalf("dup = %d, %d", d, errno)
	}
	p, _ := tb.PipeFor(s, false)
	pr := tb.files[s].desc
	tb.Close(s)
	if !tb.pipes[p].inUse() || tb.PairPeerGone(d) {
		t.Fatal("closing one of two descriptors ended the socket")
	}
	tb.Close(d)
	if tb.pipes[p].inUse() || tb.pairs[pr].inUse {
		t.Fatal("closing the last descriptor left the pipe or the pair in use")
	}
	if _, errno := tb.NetlinkSocket(0x4000000, false, 0); errno != abi.EINVAL {
		t.Fatalf("bad flags = %d, want EINVAL", errno)
	}
}
