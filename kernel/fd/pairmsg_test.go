package fd

import "testing"

func TestPairMessages(t *testing.T) {
	var tb Table
	tb.Init()
	a, b, errno := tb.SocketpairOf(0, true)
	if errno != 0 || !tb.PairDgram(a) || !tb.PairDgram(b) {
		t.Fatalf("SocketpairOf dgram = %d, %d, %d", a, b, errno)
	}
	if _, _, _, pending := tb.PairReadUnit(b); pending {
		t.Fatal("an empty pair has something to receive")
	}
	// A datagram of no bytes, then one of five.
	wtotal, _, _, _ := tb.PairWriteState(a)
	must(t, tb.PairPushMsg(a, PairMsg{At: wtotal, End: wtotal, Ctl: Ctl{Creds: true, Pid: 7}}))
	if n, errno := tb.PipeWrite(a, []byte("hello")); n != 5 || errno != 0 {
		t.Fatalf("write = %d, %d", n, errno)
	}
	must(t, tb.PairPushMsg(a, PairMsg{At: 0, End: 5}))
	if ev := tb.pairPoll(&tb.files[b]); ev&EPOLLIN == 0 {
		t.Fatalf("poll = %#x, want readable", ev)
	}
	limit, m, inMsg, pending := tb.PairReadUnit(b)
	if limit != 0 || !inMsg || !pending || !m.Ctl.Creds || m.Ctl.Pid != 7 {
		t.Fatalf("first unit = %d, %+v, %v, %v", limit, m, inMsg, pending)
	}
	tb.PairEndRead(b, true)
	limit, m, inMsg, _ = tb.PairReadUnit(b)
	if limit != 5 || !inMsg || m.Ctl.Creds {
		t.Fatalf("second unit = %d, %+v, %v", limit, m, inMsg)
	}
	buf := make([]byte, 2)
	if n, _ := tb.PipeRead(b, buf); n != 2 {
		t.Fatalf("read %d", n)
	}
	tb.PairEndRead(b, true) // the rest of the datagram is discarded
	if _, _, _, pending := tb.PairReadUnit(b); pending || tb.pipes[tb.pairRead(b)].n != 0 {
		t.Fatal("a truncated datagram's rest is still there")
	}
	// Passed descriptors of messages no one reads are handed back when the pair goes.
	must(t, tb.PairPushMsg(a, PairMsg{At: 5, End: 5, Ctl: Ctl{NRights: 2, Rights: [MaxRights]int32{600, 601}}}))
	tb.Close(a)
	tb.Close(b)
	got := map[int]bool{}
	for {
		d, ok := tb.TakeOrphan()
		if !ok {
			break
		}
		got[d] = true
	}
	if len(got) != 2 || !got[600] || !got[601] {
		t.Fatalf("orphans %v, want 600 and 601", got)
	}
	// SO_PASSCRED is per end.
	a, b, _ = tb.Socketpair(0)
	tb.SetPairPasscred(a, true)
	if !tb.PairPasscred(a) || tb.PairPasscred(b) || tb.PairDgram(a) {
		t.Fatal("SO_PASSCRED or the type leaks between ends")
	}
	// MoveFD keeps the object: no close is seen.
	d, _ := tb.Dup(b, InFlightBase, false)
	nfd, closeFrom, errno := tb.MoveFD(d, true)
	if errno != 0 || closeFrom || nfd >= InFlightBase || tb.Kind(d) != KindNone || tb.Kind(nfd) != KindPair {
		t.Fatalf("MoveFD = %d, %v, %d", nfd, closeFrom, errno)
	}
	if got, _ := tb.Fcntl(nfd, F_GETFD, 0); got != FD_CLOEXEC {
		t.Fatal("MoveFD lost FD_CLOEXEC")
	}
	checkInvariants(t, &tb)
}

func must(t *testing.T, errno int) {
	t.Helper()
	if errno != 0 {
		t.Fatalf("errno %d", errno)
	}
}
