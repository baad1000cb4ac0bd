//go:build unitrace_host && amd64

package serial

import (
	"testing"

	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/core/coretest"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/sockwire"
)

// The net port's replies come from the launcher: untrusted bytes, which may name a request that
// does not exist or carry lengths that do not add up. A good reply puts its bytes where the call
// wants them and wakes the thread; a bad one wakes nobody, or fails the call, and never writes
// outside the call's buffers.

// finishWithResult completes a test's net wait with the reply's result.
func finishWithResult(f *machine.Frame, slot int32) {
	machine.SetSysRet(f, uint64(NetCalls[slot].Result))
}

// waitingRecv blocks the running thread in a receive of up to 16 bytes into buf, with its
// request's id, as the socket calls do; it returns the thread's slot and the id.
func waitingRecv(t *testing.T, f *machine.Frame, buf uintptr) (int32, uint32) {
	t.Helper()
	slot := core.CurSlot()
	id := uint32(7)<<16 | uint32(slot+1)
	NetCalls[slot] = NetCall{ID: id, Op: sockwire.OpRecv, Waiting: true, Buf: buf, Count: 16}
	t.Cleanup(func() { NetCalls[slot] = NetCall{} })
	core.Waiters.Enqueue(core.NetReplyKey(slot), slot)
	core.Block(f, core.WaitNet)
	return slot, id
}

func TestNetReply(t *testing.T) {
	var f machine.Frame
	coretest.Fresh(t)
	core.WaitKinds[core.WaitNet].Complete.Set(finishWithResult)
	coretest.Running(t, &f)
	buf := coretest.UserMemory(t, 2)
	slot, id := waitingRecv(t, &f, buf)

	// A reply naming no waiting request is dropped: the thread still waits.
	netFrame(sockwire.Header{Kind: sockwire.KindReply, Op: sockwire.OpRecv, ID: id + 1<<16, A: [3]int64{5}}, []byte("xxxxx"))
	netFrame(sockwire.Header{Kind: sockwire.KindReply, Op: sockwire.OpRecv, ID: 0xffff, A: [3]int64{5}}, []byte("xxxxx"))
	netFrame(sockwire.Header{Kind: sockwire.KindReply, Op: sockwire.OpSend, ID: id, A: [3]int64{5}}, []byte("xxxxx"))
	core.Schedule(&f)
	if !core.OnIdle() || string(coretest.Bytes(buf, 5)) == "xxxxx" {
		t.Fatalf("a stray reply woke the thread or wrote its buffer: CPU 0 runs %d", core.CurSlot())
	}

	// Its own reply: the bytes, then the thread runs with the result.
	netFrame(sockwire.Header{Kind: sockwire.KindReply, Op: sockwire.OpRecv, ID: id, A: [3]int64{5, 0}}, []byte("hello"))
	core.Schedule(&f)
	if core.CurSlot() != slot || machine.SysRet(&f) != 5 || string(coretest.Bytes(buf, 5)) != "hello" {
		t.Fatalf("CPU 0 runs %d with %d, buffer %q; want the receiver with 5 bytes", core.CurSlot(), int64(machine.SysRet(&f)), coretest.Bytes(buf, 5))
	}
}

func TestNetReplyBadLengths(t *testing.T) {
	var f machine.Frame
	coretest.Fresh(t)
	core.WaitKinds[core.WaitNet].Complete.Set(finishWithResult)
	coretest.Running(t, &f)
	buf := coretest.UserMemory(t, 2)
	for _, alen := range []int64{-1, 6, sockwire.MaxAddr + 1} {
		slot, id := waitingRecv(t, &f, buf)
		netFrame(sockwire.Header{Kind: sockwire.KindReply, Op: sockwire.OpRecv, ID: id, A: [3]int64{5, alen}}, []byte("hello"))
		core.Schedule(&f)
		if core.CurSlot() != slot || int64(machine.SysRet(&f)) != -abi.EIO {
			t.Fatalf("address length %d: the call ended with %d, want EIO", alen, int64(machine.SysRet(&f)))
		}
	}
}
