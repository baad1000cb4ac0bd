package files

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/fs/vfs"
	"github.com/unitrace/unitrace/kernel/machine"
)

// Named FIFOs: an open of a FIFO's inode is an end of the pipe package fd keeps for it
// (fd.Table.OpenFIFO). A blocking O_RDONLY waits for a writer to open, a blocking O_WRONLY for a
// reader, as Linux's fifo_open: the thread holds its new descriptor while it waits (Linux holds
// the file, not yet a descriptor; here another thread could see the number) and sleeps on it,
// which wakePipe reaches when the other end opens. A signal restarts the open, its descriptor
// closed first.

// errFIFO is openable's answer for a FIFO: not an errno, the caller opens it as a pipe.
const errFIFO = -1

// errTTY is openable's answer for /dev/tty: the caller opens the console.
const errTTY = -2

// openFIFO opens FIFO n with open's flags; done is false while the thread waits for the other
// end.
func openFIFO(f *machine.Frame, n vfs.Node, flags int) (uint64, bool) {
	fd, p, partner, wait, errno := core.FDs.OpenFIFO(fileKey(n), flags)
	if errno != 0 {
		return abi.Neg(errno), true
	}
	wakePipe(p) // an opener of the other end waiting for this one
	if !wait {
		return uint64(fd), true
	}
	t := core.Cur()
	t.WaitFD, t.WaitArg, t.Deadline = int32(fd), uint64(partner), 0
	core.Waiters.Enqueue(core.FDKey(fd), core.CurSlot())
	core.Block(f, core.WaitFIFO)
	return 0, false
}

// CompleteFIFOWait ends the open of the thread in slot once the other end has been opened
// since it started waiting, or waits again.
func CompleteFIFOWait(f *machine.Frame, slot int32) {
	t := &core.Threads[slot]
	opens, ok := core.FDs.FIFOPartnerOpens(int(t.WaitFD))
	if !ok {
		machine.SetSysRet(f, abi.Neg(abi.EBADF)) // another thread closed the descriptor under the open
		return
	}
	if opens != uint32(t.WaitArg) {
		machine.SetSysRet(f, uint64(t.WaitFD))
		return
	}
	t.Wait = core.WaitFIFO
	core.Rearm(slot, core.FDKey(int(t.WaitFD)))
}

// abandonFIFOOpen closes the descriptor of an open a signal interrupted.
func abandonFIFOOpen(slot int32) {
	if _, ok := core.FDs.FIFOPartnerOpens(int(core.Threads[slot].WaitFD)); ok {
		CloseFD(int(core.Threads[slot].WaitFD))
	}
}

// fifoInterrupted restarts a FIFO's open a signal woke, its descriptor closed.
func FIFOInterrupted(f *machine.Frame, slot int32) (uint64, bool) {
	abandonFIFOOpen(slot)
	return 0, true
}
