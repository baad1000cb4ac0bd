package files

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/dev/serial"
	"github.com/unitrace/unitrace/kernel/dev/shares"
	"github.com/unitrace/unitrace/kernel/fd"
	"github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/machine"
	"github.com/unitrace/unitrace/kernel/signal"
	"github.com/unitrace/unitrace/kernel/splice"
)

// splice, sendfile and copy_file_range: bytes moved between descriptors without passing through
// the program, with Linux's checks (package splice) and through the kernel's own read and write
// paths: a file's bytes through fileRead and fileWrite, read into a pipe's free room or written
// from its bytes in place (fd's PipeRoom and PipeData), a copy between files through one
// scratch buffer. A call waits as Linux's does: a splice or sendfile whose pipe is empty or full
// blocks, unless it must not (splice.Nonblocking; sendfile: the output's O_NONBLOCK), in
// waitSplice on that pipe's descriptor, and runs again from the start when the pipe changes;
// nothing has moved when it waits, so a signal restarts it. A shared directory's file may make
// the call wait for its reply and run again too (shares.go): each run repeats the same steps, so
// a call that touches a share moves one chunk.
//
// A socket (a host socket, sys_socket.go) is read or written by the socket calls' own request
// to the host, with the bytes in the pipe's buffer: a splice from a socket receives into the
// pipe's free room, one to a socket sends the pipe's bytes from where they are, and the pipe is
// held (fd.PipeHold) until the reply says how many moved, as Linux holds a pipe's lock through a
// splice; a sendfile to a socket sends the file's bytes, read as each request is queued. The
// socket's O_NONBLOCK says whether its side waits; the pipe's side waits as above. A file of a
// shared directory or of /proc, whose reads may wait for the host themselves, is not sent to a
// socket (EINVAL, on which Go's io.Copy falls back to read and write); nor is a socket pair
// spliced. The console takes a splice's or a sendfile's bytes as a write.

// spliceChunk is the scratch buffer of a copy between two files (sendfile to a file or the
// console, copy_file_range); the kernel lock serialises its users.
const spliceChunk = 64 << 10

var spliceScratch [spliceChunk]byte

// spliceMaxCall bounds the bytes one sendfile or copy_file_range moves between two files, so a
// call holds the kernel lock for a bounded time; the program calls again for the rest, as
// Linux allows (both may move fewer bytes than asked).
const spliceMaxCall = 1 << 20

// spliceEnd describes descriptor n for package splice, with offset saying whether the call gave
// an offset pointer for it: EBADF if n is not open (or only a path, O_PATH).
func spliceEnd(n int, offset bool) (splice.End, int) {
	e := splice.End{Offset: offset, Nonblock: core.FDs.Nonblocking(n), CanRead: true, CanWrite: true}
	switch core.FDs.Kind(n) {
	case fd.KindNone:
		return e, abi.EBADF
	case fd.KindPipe:
		_, writeEnd, _ := core.FDs.Pipe(n)
		e.Kind, e.CanRead, e.CanWrite = splice.Pipe, !writeEnd, writeEnd
	case fd.KindFile:
		f, errno := fileOf(n, abi.EBADF)
		if errno != 0 {
			return e, errno
		}
		e.CanRead, e.CanWrite, e.Append = canRead(f), canWrite(f), f.Flags&fs.O_APPEND != 0
		if core.RootNS.Mode(f.Node)&fs.S_IFMT != fs.S_IFDIR { // a directory has no splice (EINVAL)
			e.Kind = splice.File
		}
	case fd.KindConsole:
		e.Kind = splice.Console
	case fd.KindSocket:
		if _, typ := core.FDs.SocketType(sockIndex(n)); typ == abi.SOCK_STREAM {
			e.Kind = splice.Socket
		}
	}
	return e, 0
}

// sockIndex is descriptor n's socket (n is one).
func sockIndex(n int) int {
	i, _, _ := core.FDs.Socket(n)
	return i
}

// spliceOffset reads the offset at addr (0: none, the file's position), or returns EFAULT, or
// EINVAL for a negative one (rw_verify_area's answer).
func spliceOffset(addr uintptr, pos int64) (int64, int) {
	if addr == 0 {
		return pos, 0
	}
	v, ok := core.ReadUser64(addr)
	switch {
	case !ok:
		return 0, abi.EFAULT
	case int64(v) < 0:
		return 0, abi.EINVAL
	}
	return int64(v), 0
}

// splicePos is the position a splice or sendfile starts at in file n: the offset at addr, or
// the file's position. A descriptor that is not a file starts nowhere (0).
func splicePos(n int, addr uintptr) (int64, int) {
	f, ok := core.FDs.File(n)
	if !ok {
		return 0, 0
	}
	return spliceOffset(addr, f.Pos)
}

// spliceMoved ends a call that moved bytes to or from file n, which now stands at pos: the
// offset at addr is updated, or the file's position moves. seekable is false for a device,
// whose position stays.
func spliceMoved(n int, addr uintptr, pos int64, seekable bool, moved int) uint64 {
	switch {
	case addr != 0:
		if !core.WriteUser64(addr, uint64(pos)) {
			return abi.Neg(abi.EFAULT)
		}
	case seekable:
		if f, ok := core.FDs.File(n); ok {
			f.Pos = pos
		}
	}
	return uint64(moved)
}

// A splice call's outcome: its result, or a pipe descriptor to wait on (wait >= 0), or with
// sock a socket call to make (spliceSocket), from the system call only.
type spliceOutcome struct {
	ret  uint64
	wait int
	sock uint8 // spliceRecv, spliceSend, spliceSendfile
	// The socket call: its socket's descriptor, the pipe's or the file's, how many bytes,
	// and sendfile's position and offset pointer.
	sockFD, otherFD int32
	length          int
	pos             int64
	offAddr         uintptr
}

// The kinds of socket call a splice or sendfile makes (sockCall.splice).
const (
	spliceNone     uint8 = iota
	spliceRecv           // a socket into a pipe
	spliceSend           // a pipe into a socket
	spliceSendfile       // a file into a socket
)

func spliceDone(ret uint64) spliceOutcome { return spliceOutcome{ret: ret, wait: -1} }
func spliceErr(errno int) spliceOutcome   { return spliceDone(abi.Neg(errno)) }

// spliceBlocked is a pipe's EAGAIN: the call's EAGAIN if it must not wait, else a wait on n.
func spliceBlocked(n int, nonblock bool) spliceOutcome {
	if nonblock {
		return spliceErr(abi.EAGAIN)
	}
	return spliceOutcome{wait: n}
}

// spliceEPIPE is a pipe with no reader left: EPIPE and SIGPIPE, as a write's.
func spliceEPIPE() spliceOutcome {
	core.SendSignal(core.CurSlot(), sigPIPE, signal.Info{Signo: sigPIPE, Code: signal.SI_USER, Pid: core.ProcessID})
	return spliceErr(abi.EPIPE)
}

// spliceKind says which of the calls that move bytes between descriptors a thread makes.
type spliceKind uint8

const (
	KindSplice spliceKind = iota
	KindTee
	KindSendfile
	KindCopyFileRange
)

// spliceKinds are the calls the threads make, by thread slot: what a splice wait runs again.
var spliceKinds [core.MaxThreads]spliceKind

// spliceRun runs splice, tee, sendfile or copy_file_range (kind) with arguments a.
func spliceRun(kind spliceKind, a machine.SyscallArgs) spliceOutcome {
	switch kind {
	case KindSplice:
		return doSplice(int(int32(a[0])), uintptr(a[1]), int(int32(a[2])), uintptr(a[3]), uintptr(a[4]), uint32(a[5]))
	case KindTee:
		return doTee(int(int32(a[0])), int(int32(a[1])), uintptr(a[2]), uint32(a[3]))
	case KindSendfile:
		return doSendfile(int(int32(a[0])), int(int32(a[1])), uintptr(a[2]), uintptr(a[3]))
	}
	return spliceDone(doCopyFileRange(int(int32(a[0])), uintptr(a[1]), int(int32(a[2])), uintptr(a[3]), uintptr(a[4]), uint32(a[5])))
}

// SpliceCall is the system call: its result, or the thread blocks on the pipe it waits for.
func SpliceCall(f *machine.Frame, kind spliceKind, a machine.SyscallArgs) (uint64, bool) {
	spliceKinds[core.CurSlot()] = kind
	o := spliceRun(kind, a)
	if o.sock != spliceNone {
		return spliceSocket(f, o)
	}
	if o.wait < 0 {
		return o.ret, true
	}
	t := core.Cur()
	t.WaitFD, t.Deadline = int32(o.wait), 0
	core.Waiters.Enqueue(core.FDKey(o.wait), core.CurSlot())
	core.Block(f, core.WaitSplice)
	return 0, false
}

// CompleteSpliceWait runs the call of the thread in slot again after its pipe changed.
func CompleteSpliceWait(f *machine.Frame, slot int32) {
	t := &core.Threads[slot]
	var a machine.SyscallArgs
	machine.SysArgs(f, &a)
	shares.BeginFiles(slot)
	o := spliceRun(spliceKinds[slot], a)
	if o.sock != spliceNone {
		// A socket call starts from the system call itself: the thread makes it again, with
		// its arguments untouched.
		machine.RewindSyscall(f)
		return
	}
	if o.wait >= 0 {
		t.WaitFD = int32(o.wait)
		t.Wait = core.WaitSplice
		core.Rearm(slot, core.FDKey(o.wait))
		return
	}
	if shares.EndFiles(f, slot, o.ret, true, true) {
		machine.SetSysRet(f, o.ret)
	}
}

// doSplice is splice(fdIn, offIn, fdOut, offOut, length, flags).
func doSplice(fdIn int, offIn uintptr, fdOut int, offOut uintptr, length uintptr, flags uint32) spliceOutcome {
	if length == 0 {
		return spliceDone(0)
	}
	if flags&^splice.FAll != 0 {
		return spliceErr(abi.EINVAL)
	}
	in, errno := spliceEnd(fdIn, offIn != 0)
	if errno != 0 {
		return spliceErr(errno)
	}
	out, errno := spliceEnd(fdOut, offOut != 0)
	if errno != 0 {
		return spliceErr(errno)
	}
	// As Linux's __do_splice: an offset for a pipe is ESPIPE (splice.Splice's first check), then
	// both offsets are read (EFAULT) before the ends' modes and kinds are looked at.
	if !(in.Kind == splice.Pipe && in.Offset || out.Kind == splice.Pipe && out.Offset) {
		if offOut != 0 && !core.UserRange(offOut, 8, false) || offIn != 0 && !core.UserRange(offIn, 8, false) {
			return spliceErr(abi.EFAULT)
		}
	}
	pin, _, _ := core.FDs.Pipe(fdIn)
	pout, _, _ := core.FDs.Pipe(fdOut)
	way, errno := splice.Splice(in, out, in.Kind == splice.Pipe && out.Kind == splice.Pipe && pin == pout)
	if errno != 0 {
		return spliceErr(errno)
	}
	length = min(length, core.MaxRW)
	nonblock := splice.Nonblocking(way, in, out, flags)
	switch way {
	case splice.PipeToPipe:
		return pipeToPipe(fdIn, fdOut, int(length), nonblock, true)
	case splice.PipeToSocket:
		if data, errno := core.FDs.PipeData(fdIn); errno != 0 || len(data) == 0 {
			return pipeToFile(fdIn, fdOut, 0, 0, int(length), nonblock) // its wait, error or end of file
		}
		return spliceOutcome{sock: spliceSend, wait: -1, sockFD: int32(fdOut), otherFD: int32(fdIn), length: int(length)}
	case splice.SocketToPipe:
		if _, errno := core.FDs.PipeRoom(fdOut); errno != 0 {
			return fileToPipe(fdIn, 0, 0, fdOut, int(length), nonblock) // its wait or error
		}
		return spliceOutcome{sock: spliceRecv, wait: -1, sockFD: int32(fdIn), otherFD: int32(fdOut), length: int(length)}
	case splice.PipeToFile:
		pos, errno := splicePos(fdOut, offOut)
		if errno != 0 {
			return spliceErr(errno)
		}
		return pipeToFile(fdIn, fdOut, offOut, pos, int(length), nonblock)
	}
	pos, errno := splicePos(fdIn, offIn)
	if errno != 0 {
		return spliceErr(errno)
	}
	return fileToPipe(fdIn, offIn, pos, fdOut, int(length), nonblock)
}

// pipeToPipe moves up to length bytes from pipe end in to pipe end out (with consume false,
// tee: copies them, leaving them in the first), waiting (unless nonblock)
// for bytes in the first, then for room in the second; an empty input with no writer is end of
// file (0).
func pipeToPipe(in, out int, length int, nonblock, consume bool) spliceOutcome {
	data, errno := core.FDs.PipeData(in)
	switch {
	case errno == abi.EAGAIN:
		return spliceBlocked(in, nonblock)
	case errno != 0:
		return spliceErr(errno)
	case len(data) == 0:
		return spliceDone(0)
	}
	room, errno := core.FDs.PipeRoom(out)
	switch {
	case errno == abi.EPIPE:
		return spliceEPIPE()
	case errno == abi.EAGAIN:
		return spliceBlocked(out, nonblock)
	case errno != 0:
		return spliceErr(errno)
	}
	moved := 0
	for moved < length && len(data) > 0 {
		k := copy(room[:min(len(room), length-moved)], data)
		core.FDs.PipeCommit(out, k)
		moved += k
		skip := moved
		if consume {
			core.FDs.PipeConsume(in, k)
			skip = 0
		}
		if data, errno = core.FDs.PipeDataAt(in, skip); errno != 0 {
			break
		}
		if room, errno = core.FDs.PipeRoom(out); errno != 0 {
			break
		}
	}
	pipeChanged(in)
	pipeChanged(out)
	return spliceDone(uint64(moved))
}

// pipeChanged wakes who waits on the pipe of end n, after a splice moved its bytes.
func pipeChanged(n int) {
	if p, _, ok := core.FDs.Pipe(n); ok {
		wakePipe(p)
	}
}

// onShare says whether descriptor n is a file of a shared directory or of /proc, whose calls
// a rerun repeats: a splice that touches one moves a chunk per call.
func onShare(n int) bool {
	f, ok := core.FDs.File(n)
	return ok && (core.RootNS.Remote(f.Node) || core.RootNS.Proc(f.Node))
}

// pipeToFile writes up to length bytes of pipe end in to file out at pos (the console: as a
// write), taking from the pipe what the file took; offAddr is the call's offset pointer for
// out. An empty pipe waits unless nonblock, or is end of file (0) with no writer.
func pipeToFile(in, out int, offAddr uintptr, pos int64, length int, nonblock bool) spliceOutcome {
	data, errno := core.FDs.PipeData(in)
	switch {
	case errno == abi.EAGAIN:
		return spliceBlocked(in, nonblock)
	case errno != 0:
		return spliceErr(errno)
	case len(data) == 0:
		return spliceDone(0)
	}
	f, isFile := core.FDs.File(out)
	one := onShare(out)
	moved, seekable := 0, false
	for moved < length && len(data) > 0 {
		k := min(len(data), length-moved)
		got := k
		if isFile {
			var end int64
			got, end, seekable, errno = fileWrite(f, pos, machine.AddrOf(data), uintptr(k))
			if errno != 0 {
				break
			}
			pos = end
		} else {
			machine.ConsoleWrite(data[:k])
		}
		core.FDs.PipeConsume(in, got)
		moved += got
		if got < k || one {
			break
		}
		if data, errno = core.FDs.PipeData(in); errno != 0 {
			errno = 0
			break
		}
	}
	if moved > 0 {
		pipeChanged(in)
	} else if errno != 0 {
		return spliceErr(errno)
	}
	return spliceDone(spliceMoved(out, offAddr, pos, seekable, moved))
}

// fileToPipe reads up to length bytes of file in at pos into pipe end out; offAddr is the
// call's offset pointer for in. A full pipe waits unless nonblock; one without a reader is EPIPE
// and SIGPIPE. The end of the file is 0.
func fileToPipe(in int, offAddr uintptr, pos int64, out int, length int, nonblock bool) spliceOutcome {
	room, errno := core.FDs.PipeRoom(out)
	switch {
	case errno == abi.EPIPE:
		return spliceEPIPE()
	case errno == abi.EAGAIN:
		return spliceBlocked(out, nonblock)
	case errno != 0:
		return spliceErr(errno)
	}
	f, _ := core.FDs.File(in)
	one := onShare(in)
	moved, seekable := 0, false
	for moved < length {
		k := min(len(room), length-moved)
		var got int
		got, seekable, errno = fileRead(f, pos, machine.AddrOf(room), uintptr(k))
		if errno != 0 {
			break
		}
		core.FDs.PipeCommit(out, got)
		moved += got
		if seekable {
			pos += int64(got)
		}
		if got < k || one {
			break
		}
		if room, errno = core.FDs.PipeRoom(out); errno != 0 {
			errno = 0
			break
		}
	}
	if moved > 0 {
		pipeChanged(out)
	} else if errno != 0 {
		return spliceErr(errno)
	}
	return spliceDone(spliceMoved(in, offAddr, pos, seekable, moved))
}

// doTee is tee(in, out, length, flags): a splice between two pipes that leaves the bytes
// in the first (fs/splice.c's do_tee: EINVAL unless both are pipes, and different ones).
func doTee(in, out int, length uintptr, flags uint32) spliceOutcome {
	if flags&^splice.FAll != 0 {
		return spliceErr(abi.EINVAL)
	}
	if length == 0 {
		return spliceDone(0)
	}
	ie, errno := spliceEnd(in, false)
	if errno != 0 {
		return spliceErr(errno)
	}
	oe, errno := spliceEnd(out, false)
	switch {
	case errno != 0:
		return spliceErr(errno)
	case !ie.CanRead || !oe.CanWrite:
		return spliceErr(abi.EBADF)
	}
	pin, _, _ := core.FDs.Pipe(in)
	pout, _, _ := core.FDs.Pipe(out)
	if ie.Kind != splice.Pipe || oe.Kind != splice.Pipe || pin == pout {
		return spliceErr(abi.EINVAL)
	}
	return pipeToPipe(in, out, int(min(length, core.MaxRW)), flags&splice.FNonblock != 0 || ie.Nonblock || oe.Nonblock, false)
}

// doSendfile is sendfile(out, in, offAddr, count), as Linux's do_sendfile: in must be a
// file open for reading (an offset with a descriptor that cannot seek ESPIPE, another kind
// EINVAL); out is a pipe (filled as a splice from in; O_NONBLOCK says whether a full one
// waits), a file (not O_APPEND: EINVAL) or the console; a socket or any other kind EINVAL. The
// offset at offAddr is read and updated, or in's position moves.
func doSendfile(out, in int, offAddr uintptr, count uintptr) spliceOutcome {
	ie, errno := spliceEnd(in, offAddr != 0)
	switch {
	case errno != 0:
		return spliceErr(errno)
	case !ie.CanRead:
		return spliceErr(abi.EBADF)
	case offAddr != 0 && ie.Kind != splice.File:
		return spliceErr(abi.ESPIPE)
	}
	pos, errno := splicePos(in, offAddr)
	if errno != 0 {
		return spliceErr(errno)
	}
	oe, errno := spliceEnd(out, false)
	switch {
	case errno != 0:
		return spliceErr(errno)
	case !oe.CanWrite:
		return spliceErr(abi.EBADF)
	case ie.Kind != splice.File:
		return spliceErr(abi.EINVAL)
	}
	count = min(count, core.MaxRW)
	switch oe.Kind {
	case splice.Pipe:
		if count == 0 {
			return spliceDone(0)
		}
		return fileToPipe(in, offAddr, pos, out, int(count), oe.Nonblock)
	case splice.File, splice.Console:
		if oe.Append {
			return spliceErr(abi.EINVAL)
		}
		return spliceDone(copyFile(in, offAddr, pos, out, 0, count))
	case splice.Socket:
		f, _ := core.FDs.File(in)
		if onShare(in) || core.RootNS.Mode(f.Node)&fs.S_IFMT != fs.S_IFREG {
			return spliceErr(abi.EINVAL)
		}
		st, errno := core.RootNS.Stat(f.Node)
		switch {
		case errno != 0:
			return spliceErr(errno)
		case count == 0 || pos >= st.Size:
			return spliceDone(0)
		}
		n := int(min(int64(count), st.Size-pos))
		return spliceOutcome{sock: spliceSendfile, wait: -1, sockFD: int32(out), otherFD: int32(in), length: n, pos: pos, offAddr: offAddr}
	}
	return spliceErr(abi.EINVAL)
}

// spliceSocket makes the socket call of a splice or sendfile that o describes: a receive into
// the pipe's free room or a send of its bytes, the pipe held until the call ends, or a send of
// the file's bytes. sockSpliceEnd ends it.
func spliceSocket(f *machine.Frame, o spliceOutcome) (uint64, bool) {
	c := SockCall{splice: o.sock, splicePipe: -1}
	pipe := int(o.otherFD)
	switch o.sock {
	case spliceRecv:
		room, _ := core.FDs.PipeRoom(pipe) // spliceRun found room
		c.Out = serial.NetCall{Buf: machine.AddrOf(room), Count: uintptr(min(len(room), o.length))}
		c.splicePipe = int32(core.FDs.PipeHold(pipe, true))
	case spliceSend:
		data, _ := core.FDs.PipeData(pipe) // spliceRun found bytes
		c.src, c.srcLen = machine.AddrOf(data), uintptr(min(len(data), o.length))
		c.splicePipe = int32(core.FDs.PipeHold(pipe, false))
	case spliceSendfile:
		c.srcLen, c.spliceFD, c.splicePos, c.spliceOff = uintptr(o.length), o.otherFD, o.pos, o.offAddr
	}
	// Set before the call too: one that ends before it reaches sockStart must release the pipe.
	s := &sockThreads[core.CurSlot()].sock
	s.splice, s.splicePipe = c.splice, c.splicePipe
	var ret uint64
	var done bool
	if o.sock == spliceRecv {
		ret, done = sockRecv(f, int(o.sockFD), 0, c)
	} else {
		ret, done = sockSend(f, int(o.sockFD), 0, c)
	}
	if done {
		ret = sockSpliceEnd(core.CurSlot(), ret)
	}
	return ret, done
}

// sockSpliceEnd ends the splice or sendfile of the thread in slot, whose socket call's result is
// ret: the pipe gets the bytes received, or drops those sent, and is released; a sendfile's offset
// or file position moves past the bytes sent. It returns the call's result. A second call, or one
// for a socket call that is no splice, changes nothing.
func sockSpliceEnd(slot int32, ret uint64) uint64 {
	c := &sockThreads[slot].sock
	kind := c.splice
	c.splice = spliceNone
	n := 0
	if int64(ret) > 0 {
		n = int(ret)
	}
	switch kind {
	case spliceRecv, spliceSend:
		if c.splicePipe >= 0 {
			core.FDs.PipeRelease(int(c.splicePipe), kind == spliceRecv, n)
			wakePipe(int(c.splicePipe))
		}
	case spliceSendfile:
		if n > 0 {
			return spliceMoved(int(c.spliceFD), c.spliceOff, c.splicePos+int64(n), true, n)
		}
	}
	return ret
}

// sendfileGather reads the bytes of a sendfile's next request into dst: the file's, from where
// the call's bytes sent so far end. It fails if the file is gone or has fewer bytes now.
func sendfileGather(c *SockCall, dst []byte) bool {
	f, ok := core.FDs.File(int(c.spliceFD))
	if !ok {
		return false
	}
	got, _, errno := fileRead(f, c.splicePos+int64(c.moved), machine.AddrOf(dst), uintptr(len(dst)))
	return errno == 0 && got == len(dst)
}

// copyFile copies up to count bytes (at most spliceMaxCall; one chunk with a share) from file in
// at posIn to out: a file at its position, or with outAddr != 0 at the offset there (read by the
// caller: posOut), or the console. It returns the bytes copied, or the error of the first read
// or write if nothing was, and updates the offsets or positions as spliceMoved says.
func copyFile(in int, inAddr uintptr, posIn int64, out int, outAddr uintptr, count uintptr) uint64 {
	fi, _ := core.FDs.File(in)
	fo, isFile := core.FDs.File(out)
	posOut := int64(0)
	if isFile {
		posOut = fo.Pos
		if outAddr != 0 {
			v, _ := core.ReadUser64(outAddr) // the caller checked it
			posOut = int64(v)
		}
	}
	one := onShare(in) || onShare(out)
	count = min(count, spliceMaxCall)
	var copied uintptr
	var errno int
	inSeek, outSeek := false, false
	for copied < count {
		k := min(count-copied, spliceChunk)
		var got, put int
		got, inSeek, errno = fileRead(fi, posIn, machine.AddrOf(spliceScratch[:]), k)
		if errno != 0 || got == 0 {
			break
		}
		put = got
		if isFile {
			var end int64
			put, end, outSeek, errno = fileWrite(fo, posOut, machine.AddrOf(spliceScratch[:]), uintptr(got))
			if errno != 0 {
				break
			}
			posOut = end
		} else {
			machine.ConsoleWrite(spliceScratch[:got])
		}
		if inSeek {
			posIn += int64(put)
		}
		copied += uintptr(put)
		if put < got || uintptr(got) < k || one {
			break
		}
	}
	if copied == 0 && errno != 0 {
		return abi.Neg(errno)
	}
	if ret := spliceMoved(in, inAddr, posIn, inSeek, int(copied)); ret != uint64(copied) {
		return ret
	}
	if isFile {
		return spliceMoved(out, outAddr, posOut, outSeek, int(copied))
	}
	return uint64(copied)
}

// doCopyFileRange is copy_file_range(in, offIn, out, offOut, length, flags): between two
// regular files of one file system, with package splice's checks.
func doCopyFileRange(in int, offIn uintptr, out int, offOut uintptr, length uintptr, flags uint32) uint64 {
	var rf [2]splice.RangeFile
	var pos [2]int64
	for i, n := range [2]int{in, out} {
		if core.FDs.Kind(n) == fd.KindNone {
			return abi.Neg(abi.EBADF)
		}
		f, errno := fileOf(n, 0)
		switch {
		case errno != 0:
			return abi.Neg(errno)
		case f == nil: // a pipe, a socket, the console: not a regular file
			continue
		}
		rf[i] = splice.RangeFile{Mode: core.RootNS.Mode(f.Node), FS: int(f.Node.FS), Ino: uint64(f.Node.Ino),
			CanRead: canRead(f), CanWrite: canWrite(f), Append: f.Flags&fs.O_APPEND != 0}
		pos[i] = f.Pos
	}
	for i, addr := range [2]uintptr{offIn, offOut} {
		if addr != 0 { // a negative offset is CopyRange's EINVAL, after the checks of the files
			v, ok := core.ReadUser64(addr)
			if !ok {
				return abi.Neg(abi.EFAULT)
			}
			pos[i] = int64(v)
		}
	}
	if rf[0].Mode&fs.S_IFMT == fs.S_IFREG {
		fi, _ := core.FDs.File(in)
		st, errno := core.RootNS.Stat(fi.Node)
		if errno != 0 {
			return abi.Neg(errno)
		}
		rf[0].Size = st.Size
	}
	count, errno := splice.CopyRange(rf[0], rf[1], pos[0], pos[1], uint64(min(length, core.MaxRW)), flags)
	if errno != 0 {
		return abi.Neg(errno)
	}
	if count == 0 {
		return 0
	}
	return copyFile(in, offIn, pos[0], out, offOut, uintptr(count))
}
