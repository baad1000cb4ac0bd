package vfs

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/fs/memfs"
)

// Random operation sequences, run on a Namespace and on the Linux oracle, compared step by step
// and by the whole tree every few steps.

// input draws the operands of one step; the random test and the fuzz target supply different
// sources.
type input interface{ next(n int) int }

type randInput struct{ r *rand.Rand }

func (in randInput) next(n int) int { return in.r.IntN(n) }

type byteInput struct{ b []byte }

func (in *byteInput) next(n int) int {
	if len(in.b) == 0 {
		return 0
	}
	v := int(in.b[0]) % n
	in.b = in.b[1:]
	return v
}

func (in *byteInput) done() bool { return len(in.b) == 0 }

// Few names, so that operations keep meeting one another's files.
var pathNames = []string{"a", "b", "c", "d", "a", "b", "c", "d", "l", ".", "..", long255, long256}

func genPath(in input) string {
	if in.next(40) == 0 {
		return ""
	}
	var b strings.Builder
	if in.next(6) == 0 {
		b.WriteByte('/')
	}
	n := 1 + in.next(3)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString("/")
			if in.next(8) == 0 {
				b.WriteString("/")
			}
		}
		name := pathNames[in.next(len(pathNames))]
		if (name == long255 || name == long256) && in.next(4) != 0 {
			name = "e"
		}
		b.WriteString(name)
	}
	if in.next(8) == 0 {
		b.WriteByte('/')
	}
	return b.String()
}

var (
	accModes   = []int{fs.O_RDONLY, fs.O_WRONLY, fs.O_RDWR, fs.O_RDWR}
	openBits   = []int{fs.O_CREAT, fs.O_EXCL, fs.O_TRUNC, fs.O_DIRECTORY, fs.O_NOFOLLOW, fs.O_APPEND}
	offsets    = []int64{0, 1, 5, 4095, 4096, 10000, 1 << 20}
	renameOpts = []int{0, 0, 0, fs.RENAME_NOREPLACE, fs.RENAME_EXCHANGE, fs.RENAME_NOREPLACE | fs.RENAME_EXCHANGE}
)

// model keeps what the generator needs to know: the handles open on both sides.
type model struct {
	handles []int
}

func (md *model) handle(in input) int {
	if len(md.handles) == 0 || in.next(16) == 0 {
		return 99 // not open: EBADF
	}
	return md.handles[in.next(len(md.handles))]
}

func (md *model) dirfd(in input) int {
	if len(md.handles) == 0 || in.next(5) != 0 {
		return -1
	}
	return md.handles[in.next(len(md.handles))]
}

// genOp draws one operation.
func (md *model) genOp(in input) op {
	switch in.next(20) {
	case 0, 1, 2:
		flags := accModes[in.next(len(accModes))]
		for _, b := range openBits {
			if in.next(3) == 0 {
				flags |= b
			}
		}
		if in.next(12) == 0 {
			flags = fs.O_PATH | flags&(fs.O_NOFOLLOW|fs.O_DIRECTORY)
		}
		return op{Kind: "open", Path: genPath(in), Flags: flags, Mode: 0o644, Dir: md.dirfd(in)}
	case 3:
		return op{Kind: "close", H: md.handle(in)}
	case 4:
		return op{Kind: "read", H: md.handle(in), Off: offsets[in.next(len(offsets))], N: []int{0, 1, 10, 5000}[in.next(4)]}
	case 5:
		data := []byte(strings.Repeat(string(rune('A'+in.next(26))), []int{1, 7, 4097}[in.next(3)]))
		return op{Kind: "write", H: md.handle(in), Off: offsets[in.next(len(offsets))], Data: data}
	case 6:
		return op{Kind: []string{"ftruncate", "fstat", "getdents"}[in.next(3)], H: md.handle(in), Off: offsets[in.next(len(offsets))]}
	case 7, 8:
		return op{Kind: "mkdir", Path: genPath(in), Mode: 0o755, Dir: md.dirfd(in)}
	case 9:
		return op{Kind: "symlink", Path: genPath(in), Path2: genPath(in), Dir: md.dirfd(in)}
	case 10:
		return op{Kind: "link", Path: genPath(in), Path2: genPath(in), Flags: []int{0, fs.AT_SYMLINK_FOLLOW}[in.next(2)], Dir: md.dirfd(in), Dir2: md.dirfd(in)}
	case 11, 12:
		return op{Kind: "unlink", Path: genPath(in), Flags: []int{0, fs.AT_REMOVEDIR}[in.next(2)], Dir: md.dirfd(in)}
	case 13, 14:
		return op{Kind: "rename", Path: genPath(in), Path2: genPath(in), Flags: renameOpts[in.next(len(renameOpts))], Dir: md.dirfd(in), Dir2: md.dirfd(in)}
	case 15:
		return op{Kind: "readlink", Path: genPath(in), N: []int{1, 100}[in.next(2)], Dir: md.dirfd(in)}
	case 16, 17:
		return op{Kind: "stat", Path: genPath(in), Flags: []int{0, fs.AT_SYMLINK_NOFOLLOW}[in.next(2)], Dir: md.dirfd(in)}
	case 18:
		return op{Kind: "truncate", Path: genPath(in), Off: offsets[in.next(len(offsets))]}
	default:
		return op{Kind: "mknod", Path: genPath(in), Mode: 0o600, Dir: md.dirfd(in)}
	}
}

// runSequence runs ops drawn from in on both sides until in runs dry or steps ops have run,
// and fails on the first difference.
func runSequence(t testing.TB, o *oracle, m *mem, in input, steps int) {
	t.Helper()
	var md model
	var history []string
	fail := func(format string, args ...any) {
		t.Helper()
		start := max(0, len(history)-40)
		t.Fatalf("%s\nthe last %d operations:\n%s", fmt.Sprintf(format, args...), len(history)-start, strings.Join(history[start:], "\n"))
	}
	for i := 0; i < steps; i++ {
		if bi, ok := in.(*byteInput); ok && bi.done() {
			break
		}
		x := md.genOp(in)
		history = append(history, fmt.Sprintf("%+v", brief(x)))
		got := m.do(x)
		if o != nil {
			if want := o.do(x); !sameResult(x, got, want) {
				fail("step %d %+v: memfs %v, Linux %v", i, brief(x), got, want)
			}
		}
		switch {
		case x.Kind == "open" && got.Errno == 0:
			md.handles = append(md.handles, got.H)
		case x.Kind == "close" && got.Errno == 0:
			for j, h := range md.handles {
				if h == x.H {
					md.handles = append(md.handles[:j], md.handles[j+1:]...)
					break
				}
			}
		}
		if len(md.handles) > 12 {
			h := md.handles[0]
			m.do(op{Kind: "close", H: h})
			if o != nil {
				o.do(op{Kind: "close", H: h})
			}
			md.handles = md.handles[1:]
		}
		if o != nil && (i%25 == 24 || i == steps-1) {
			if d := compareTrees(m.do(op{Kind: "dump"}).Tree, o.do(op{Kind: "dump"}).Tree); d != "" {
				fail("after step %d: %s", i, d)
			}
		}
	}
	if err := m.pages.Err; err != nil {
		fail("%v", err)
	}
}

// TestRandomAgainstLinux runs random sequences on a Namespace and the oracle.
func TestRandomAgainstLinux(t *testing.T) {
	seeds := 30
	if testing.Short() {
		seeds = 5
	}
	for seed := 0; seed < seeds; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			o := newOracle(t) // without it, the sequences still check that nothing panics or misuses pages
			m := newMem(t, memfs.Capacity{Bytes: 256 << 20, Inodes: 10000})
			runSequence(t, o, m, randInput{rand.New(rand.NewPCG(uint64(seed), 7))}, 600)
		})
	}
}

// FuzzOperations runs a sequence the fuzzer chooses; with the oracle it compares with Linux,
// without it it checks only that nothing panics or misuses pages.
func FuzzOperations(f *testing.F) {
	f.Add([]byte{7, 0, 0, 1, 0, 0, 1, 9, 1, 2, 3, 4, 5, 13, 1, 2, 3, 4, 5, 6, 7, 16, 0, 1, 2})
	f.Add([]byte{0, 2, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 5, 0, 3, 2, 0, 6, 0, 1, 1, 11, 0, 3, 1, 1})
	o := newOracle(f)
	f.Fuzz(func(t *testing.T, ops []byte) {
		if o != nil {
			o.do(op{Kind: "reset"})
		}
		m := newMem(t, memfs.Capacity{Bytes: 64 << 20, Inodes: 1000})
		runSequence(t, o, m, &byteInput{ops}, 2000)
	})
}
