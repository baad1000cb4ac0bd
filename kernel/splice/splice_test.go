package splice

import (
	"testing"

	"github.com/unitrace/unitrace/kernel/abi"
)

func TestSplice(t *testing.T) {
	rp := End{Kind: Pipe, CanRead: true}  // a pipe's read end
	wp := End{Kind: Pipe, CanWrite: true} // a pipe's write end
	f := End{Kind: File, CanRead: true, CanWrite: true}
	withOff := func(e End) End { e.Offset = true; return e }
	tests := []struct {
		name     string
		in, out  End
		samePipe bool
		way      Way
		errno    int
	}{
		{"pipe to pipe", rp, wp, false, PipeToPipe, 0},
		{"pipe to itself", rp, wp, true, 0, abi.EINVAL},
		{"pipe to file", rp, f, false, PipeToFile, 0},
		{"pipe to file at an offset", rp, withOff(f), false, PipeToFile, 0},
		{"file to pipe", f, wp, false, FileToPipe, 0},
		{"file at an offset to pipe", withOff(f), wp, false, FileToPipe, 0},
		{"pipe to console", rp, End{Kind: Console, CanWrite: true}, false, PipeToFile, 0},
		{"pipe to console at an offset", rp, End{Kind: Console, CanWrite: true, Offset: true}, false, 0, abi.EINVAL},
		{"console to pipe", End{Kind: Console, CanRead: true}, wp, false, 0, abi.EINVAL},
		{"offset of the in pipe", withOff(rp), f, false, 0, abi.ESPIPE},
		{"offset of the out pipe", f, withOff(wp), false, 0, abi.ESPIPE},
		{"pipe offset before access", withOff(End{Kind: Pipe}), f, false, 0, abi.ESPIPE},
		{"write end as input", End{Kind: Pipe, CanWrite: true}, f, false, 0, abi.EBADF},
		{"read end as output", f, End{Kind: Pipe, CanRead: true}, false, 0, abi.EBADF},
		{"read-only file as output", rp, End{Kind: File, CanRead: true}, false, 0, abi.EBADF},
		{"append file", rp, End{Kind: File, CanWrite: true, Append: true}, false, 0, abi.EINVAL},
		{"file to file", f, f, false, 0, abi.EINVAL},
		{"socket to pipe", End{Kind: Socket, CanRead: true, CanWrite: true}, wp, false, SocketToPipe, 0},
		{"pipe to socket", rp, End{Kind: Socket, CanRead: true, CanWrite: true}, false, PipeToSocket, 0},
		{"socket at an offset", End{Kind: Socket, CanRead: true, Offset: true}, wp, false, 0, abi.EINVAL},
		{"pipe to socket at an offset", rp, End{Kind: Socket, CanWrite: true, Offset: true}, false, 0, abi.EINVAL},
		{"socket to file", End{Kind: Socket, CanRead: true}, f, false, 0, abi.EINVAL},
		{"pair to pipe", End{Kind: Other, CanRead: true}, wp, false, 0, abi.EINVAL},
		{"pipe to pair", rp, End{Kind: Other, CanWrite: true}, false, 0, abi.EINVAL},
	}
	for _, tt := range tests {
		way, errno := Splice(tt.in, tt.out, tt.samePipe)
		if way != tt.way || errno != tt.errno {
			t.Errorf("%s: got %v, %d; want %v, %d", tt.name, way, errno, tt.way, tt.errno)
		}
	}
}

func TestNonblocking(t *testing.T) {
	nb := End{Nonblock: true}
	for _, tt := range []struct {
		w       Way
		in, out End
		flags   uint32
		want    bool
	}{
		{PipeToPipe, End{}, End{}, 0, false},
		{PipeToPipe, nb, End{}, 0, true},
		{PipeToPipe, End{}, nb, 0, true},
		{PipeToFile, nb, End{}, 0, true}, // the pipe's O_NONBLOCK
		{PipeToFile, End{}, nb, 0, false},
		{FileToPipe, End{}, nb, 0, true},
		{FileToPipe, nb, End{}, 0, false},
		{PipeToSocket, nb, End{}, 0, true},
		{PipeToSocket, End{}, nb, 0, false}, // the socket's O_NONBLOCK is its send's
		{SocketToPipe, End{}, nb, 0, true},
		{SocketToPipe, nb, End{}, 0, false},
		{FileToPipe, End{}, End{}, FNonblock, true},
	} {
		if got := Nonblocking(tt.w, tt.in, tt.out, tt.flags); got != tt.want {
			t.Errorf("Nonblocking(%v, %+v, %+v, %#x) = %v", tt.w, tt.in, tt.out, tt.flags, got)
		}
	}
}

func TestCopyRange(t *testing.T) {
	in := RangeFile{Mode: sIFREG | 0o644, FS: 0, Ino: 5, Size: 100, CanRead: true}
	out := RangeFile{Mode: sIFREG | 0o644, FS: 0, Ino: 6, CanWrite: true}
	mod := func(f RangeFile, m func(*RangeFile)) RangeFile { m(&f); return f }
	same := mod(in, func(f *RangeFile) { f.CanWrite = true })
	tests := []struct {
		name          string
		in, out       RangeFile
		posIn, posOut int64
		count         uint64
		flags         uint32
		n             int64
		errno         int
	}{
		{"whole", in, out, 0, 0, 1000, 0, 100, 0},
		{"part", in, out, 10, 0, 20, 0, 20, 0},
		{"at the end", in, out, 100, 0, 20, 0, 0, 0},
		{"past the end", in, out, 200, 0, 20, 0, 0, 0},
		{"nothing", in, out, 0, 0, 0, 0, 0, 0},
		{"flags", in, out, 0, 0, 10, 1, 0, abi.EINVAL},
		{"directory in", mod(in, func(f *RangeFile) { f.Mode = sIFDIR }), out, 0, 0, 10, 0, 0, abi.EISDIR},
		{"directory out", in, mod(out, func(f *RangeFile) { f.Mode = sIFDIR }), 0, 0, 10, 0, 0, abi.EISDIR},
		{"device", mod(in, func(f *RangeFile) { f.Mode = 0o020000 }), out, 0, 0, 10, 0, 0, abi.EINVAL},
		{"in write-only", mod(in, func(f *RangeFile) { f.CanRead = false }), out, 0, 0, 10, 0, 0, abi.EBADF},
		{"out read-only", in, mod(out, func(f *RangeFile) { f.CanWrite = false }), 0, 0, 10, 0, 0, abi.EBADF},
		{"out append", in, mod(out, func(f *RangeFile) { f.Append = true }), 0, 0, 10, 0, 0, abi.EBADF},
		{"two file systems", in, mod(out, func(f *RangeFile) { f.FS = 1 }), 0, 0, 10, 0, 0, abi.EXDEV},
		{"negative", in, out, -1, 0, 10, 0, 0, abi.EINVAL},
		{"wraps", in, out, 0, 1 << 62, 1 << 62, 0, 0, abi.EOVERFLOW},
		{"same file apart", same, same, 0, 50, 50, 0, 50, 0},
		{"same file overlapping", same, same, 0, 49, 50, 0, 0, abi.EINVAL},
		{"same file past its end", same, same, 90, 95, 50, 0, 0, abi.EINVAL},
		{"same file, nothing to copy", same, same, 100, 100, 50, 0, 0, 0},
	}
	for _, tt := range tests {
		n, errno := CopyRange(tt.in, tt.out, tt.posIn, tt.posOut, tt.count, tt.flags)
		if n != tt.n || errno != tt.errno {
			t.Errorf("%s: got %d, %d; want %d, %d", tt.name, n, errno, tt.n, tt.errno)
		}
	}
}
