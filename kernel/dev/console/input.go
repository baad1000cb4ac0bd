package console

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/fd"
	"github.com/unitrace/unitrace/kernel/klog"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/options"
	"github.com/unitrace/unitrace/kernel/rxring"
	"github.com/unitrace/unitrace/trace/record"
)

// Console input: the program's standard input is the serial line, as on a real kernel's serial
// console. The UART's receive interrupt (amd64: COM1 on ISA IRQ 4 through the I/O APIC; arm64:
// the PL011's SPI) drains the UART's FIFO into a ring (package rxring); read and readv on any
// console descriptor take bytes from it.
//
// There is no line discipline: bytes come as they were typed, with no echo and no line
// editing. A read returns what is there, at least one byte, as a raw tty does; with none it
// blocks unless the descriptor is O_NONBLOCK (EAGAIN), and a signal interrupts the wait as a
// pipe read's (the call restarts). Console descriptors can be polled: EPOLLIN
// while bytes wait, an event for every arrival.
//
// A serial line has no end of file, so the input has one only when the launcher says where it
// is: unitrace run, fed from a pipe or a file, counts the bytes it sends and at the host's end
// of file gives the count over the control port (the agent's stdin.end, trace.CtlConsoleEnd).
// Once the program has read that many bytes, every read returns 0 and the console polls
// readable, as a pipe whose writer has gone; before it, and without a count, reads wait for
// bytes as above.
//
// Nothing is dropped: when the ring is full the handler turns the UART's receive interrupt
// off, the UART's FIFO fills, and QEMU's serial backend stops taking the host's input until a
// reader has made room and the interrupt is on again.
//
// The handler and the readers both run under the kernel lock.
//
// With unitrace.stdin=null the console has no input, and its reads are at end of file, as
// /dev/null's: unitrace run says so when it gives QEMU none (its own standard input is a
// terminal or /dev/null, or it has no control port to carry the end), so that a program
// reading its standard input to the end finishes, as it would with stdin from /dev/null.

var (
	Input      rxring.Ring
	conInput   bool              // the UART's receive interrupt is on: the console takes input
	conScratch [64]byte          // one pass over the UART (its FIFO holds 16 bytes)
	conRead    [rxring.Size]byte // a read's bytes on their way to the program
	conFDs     [fd.MaxFDs]int32
)

// Init routes the UART's receive interrupt and turns it on. It runs at boot, after
// the interrupt controller and the descriptor table. With unitrace.stdin=null there is no
// input to take: the console reads as /dev/null, always readable, at end of file.
func Init() {
	if options.Kernel.StdinNull {
		core.FDs.SetConsoleInput(true, false)
		return
	}
	conInput = machine.ConsoleInputInit()
	if !conInput {
		klog.Log().S("console: no interrupt for the UART's input: reads of the console wait for good").NL()
	}
}

// Open serves trace.CtlConsoleOpen: whether the console takes input. The agent asks it for
// the launcher before the launcher feeds the serial line; the UART was set up at boot, so the
// bytes it sends from then on all reach the ring.
func Open() uint64 {
	if options.Kernel.StdinNull || !conInput {
		return abi.Neg(abi.ENODEV)
	}
	return 0
}

// SetEnd serves trace.CtlConsoleEnd: the console's input holds total bytes in all. If the
// program has read them all already, its readers and pollers learn now that the console is at
// end of file; otherwise the read that takes the last byte finds it.
func SetEnd(total uint64) uint64 {
	if options.Kernel.StdinNull || !conInput {
		return abi.Neg(abi.ENODEV)
	}
	if !Input.SetEnd(total) {
		return abi.Neg(abi.EINVAL)
	}
	if Input.AtEnd() {
		consoleArrived()
	}
	return 0
}

// Interrupt handles the UART's interrupt: it takes what the UART holds and wakes the
// console's readers and pollers.
func Interrupt() {
	core.SetWaker(record.WakerConsole)
	if consoleTake() {
		consoleArrived()
	}
	core.SetWaker(record.WakerThread)
}

// consoleTake moves the bytes the UART holds into the ring, as far as it has room, and turns the
// receive interrupt off when the ring is full (a level-triggered interrupt that nobody drains
// would fire forever). It reports whether any bytes came.
func consoleTake() bool {
	arrived := false
	for {
		room := min(Input.Free(), len(conScratch))
		if room == 0 {
			break
		}
		n := machine.ConsoleReceive(conScratch[:room])
		for i := 0; i < n; i++ {
			Input.Put(conScratch[i])
		}
		arrived = arrived || n > 0
		if n < room {
			break // the UART is empty
		}
	}
	if Input.StopReceiver() {
		machine.ConsoleReceiveInterrupt(false)
	}
	return arrived
}

// consoleArrived tells the descriptor table that bytes came, or that the input's end was
// reached (an edge for epoll either way), and wakes the threads blocked on console descriptors
// and in the epoll instances watching them.
func consoleArrived() {
	core.FDs.SetConsoleInput(true, true)
	k := core.FDs.ConsoleDescriptors(conFDs[:])
	for i := 0; i < k; i++ {
		core.WakeFDWaiters(int(conFDs[i]))
	}
}

// Call is read (vec false: buf and count are its buffer) or readv (vec: an iovec array
// and its length) of console descriptor n from the system call; it blocks the thread when
// there is nothing to read yet.
func Call(f *machine.Frame, n int, vec bool, buf, count uintptr) (uint64, bool) {
	ret, done := consoleRead(n, vec, buf, count)
	if !done {
		t := core.Cur()
		t.WaitFD, t.WaitAddr, t.WaitCount, t.Deadline = int32(n), buf, count, 0
		t.WaitVec = vec
		core.Waiters.Enqueue(core.FDKey(n), core.CurSlot())
		core.Block(f, core.WaitConsole)
	}
	return ret, done
}

// CompleteWait retries the console read of the thread in slot after a wake-up.
func CompleteWait(f *machine.Frame, slot int32) {
	t := &core.Threads[slot]
	ret, done := consoleRead(int(t.WaitFD), t.WaitVec, t.WaitAddr, t.WaitCount)
	if done {
		machine.SetSysRet(f, ret)
		return
	}
	t.Wait = core.WaitConsole
	core.Rearm(slot, core.FDKey(int(t.WaitFD)))
}

// consoleRead moves waiting bytes into the caller's buffer or iovec array: whatever is there up
// to the size asked, 0 at the input's end, or done=false when the ring is empty and the
// descriptor blocks. The bytes leave the ring only once they are in the program's memory: a bad
// buffer (EFAULT) loses none.
func consoleRead(n int, vec bool, buf, count uintptr) (ret uint64, done bool) {
	if core.FDs.Kind(n) != fd.KindConsole {
		return abi.Neg(abi.EBADF), true // closed while the thread waited
	}
	if options.Kernel.StdinNull {
		return 0, true
	}
	total, errno := core.UserIOLen(buf, count, vec)
	switch {
	case errno != 0:
		return abi.Neg(errno), true
	case total == 0, Input.AtEnd():
		return 0, true
	case Input.Len() == 0 && core.FDs.Nonblocking(n):
		return abi.Neg(abi.EAGAIN), true
	case Input.Len() == 0:
		return 0, false
	}
	k := Input.Peek(conRead[:min(total, uint64(len(conRead)))])
	if !core.ScatterUser(conRead[:k], buf, count, vec) {
		return abi.Neg(abi.EFAULT), true
	}
	if Input.Discard(k) {
		Resume()
	}
	core.FDs.SetConsoleInput(Input.Readable(), false)
	return uint64(k), true
}

// Resume turns the receive interrupt on again once a reader has made room: first it
// takes what the UART holds (its FIFO filled while the interrupt was off), so that the bytes
// keep their order and the waiters hear of them.
func Resume() {
	arrived := consoleTake()
	if !Input.Stopped() {
		machine.ConsoleReceiveInterrupt(true)
	}
	if arrived {
		consoleArrived()
	}
}
