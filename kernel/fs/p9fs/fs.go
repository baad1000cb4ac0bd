package p9fs

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/fs/p9"
)

// Limits of one mounted share.
const (
	// MaxNodes is how many files the kernel keeps handles on at once; the root is one.
	MaxNodes = 512
	// MaxWaiters is how many threads can be inside calls at once: waiters are 0..MaxWaiters-1
	// (the kernel's thread slots).
	MaxWaiters = 256
	// MaxLog is the most calls that need the host in one system call: a resolution makes one
	// per component of its path. Beyond it the system call fails with EIO.
	MaxLog = 48
	// RootIno is the inode number of the share's root.
	RootIno = 1
	// maxClunks is how many fids can wait for a free tag to be clunked.
	maxClunks = 64
)

// unameBytes is who attaches. With security_model=none QEMU serves the files as its own user
// whatever the name says; "root" is what the program runs as.
var unameBytes = [...]byte{'r', 'o', 'o', 't'}

// Buffers are where the requests and replies travel: for each tag t, a request buffer at
// Req+t*Size and a reply buffer at Resp+t*Size, Size bytes each (the proposed msize). They are
// virtual addresses of memory the transport can reach (the kernel's direct map).
type Buffers struct {
	Req, Resp uintptr
	Size      uint32
}

// FS is one mounted share. The zero value is unmounted: Mount, then drive the requests until
// Mounted reports the result.
type FS struct {
	c       p9.Client
	buf     Buffers
	rootFid uint32
	state   mountState
	errno   int32 // the mount's failure

	nodes [MaxNodes]node
	clock uint32 // bumped on each use of a node, for least-recently-used reuse

	tags   [p9.MaxOps]tagState
	logs   [MaxWaiters]callLog
	wake   [MaxWaiters / 64]uint64 // waiters whose call has its answer
	noTag  [MaxWaiters / 64]uint64 // waiters that found every tag busy
	clunks [maxClunks]uint32       // fids to clunk when a tag is free
	nclunk int

	statfs p9.Statfs // the last Rstatfs

	Stats Stats
}

// Stats counts what went wrong without failing a call by itself.
type Stats struct {
	Requests     uint64 // requests handed to the transport
	BadReplies   uint64 // replies the decoder rejected (the call failed with EIO)
	Unexpected   uint64 // completions for a tag with nothing sent
	Diverged     uint64 // reruns whose calls differed from the log
	LogFull      uint64 // system calls that needed more than MaxLog round trips
	LeakedFids   uint64 // fids dropped without a clunk (the clunk queue was full)
	NodesReused  uint64 // nodes taken from files nobody referenced
	NodesMissing uint64 // lookups that failed because every node was referenced
	TagsHeld     uint64 // calls that failed because their own system call held every tag
}

type mountState uint8

const (
	unmounted mountState = iota
	mounting
	mounted
	mountFailed
)

// Mount starts the session: Tversion proposing buf.Size as msize, Tattach, and a Tgetattr of
// the root. Drive it with NextSend and Complete; Mounted says when it is over.
func (f *FS) Mount(buf Buffers) int {
	// Cleared in place, then set: a literal with fields would be built on the stack first,
	// and an FS is far larger than a kernel stack.
	*f = FS{}
	f.buf, f.rootFid, f.state = buf, p9.NoFid, mounting
	for i := range f.tags {
		f.tags[i].waiter = -1
	}
	tag, ok := f.c.NextTag()
	if !ok {
		return f.failMount(abi.EIO)
	}
	_, n, errno := f.c.Version(f.req(tag), buf.Size)
	if errno != 0 {
		return f.failMount(errno)
	}
	f.queue(tag, n, tagState{waiter: -1, step: stepVersion})
	return 0
}

func (f *FS) failMount(errno int) int {
	f.state, f.errno = mountFailed, int32(errno)
	return errno
}

// Mounted reports whether the mount is over, and its errno if it failed.
func (f *FS) Mounted() (done bool, errno int) {
	switch f.state {
	case mounted:
		return true, 0
	case mountFailed:
		return true, int(f.errno)
	}
	return false, 0
}

// Msize is the session's negotiated message size.
func (f *FS) Msize() uint32 { return f.c.Msize() }

func (f *FS) req(tag uint16) []byte {
	return bytesAt(f.buf.Req+uintptr(tag%p9.MaxOps)*uintptr(f.buf.Size), int(f.buf.Size))
}

func (f *FS) resp(tag uint16) []byte {
	return bytesAt(f.buf.Resp+uintptr(tag%p9.MaxOps)*uintptr(f.buf.Size), int(f.buf.Size))
}

// Waiter sets: bit w of a [MaxWaiters/64]uint64.

func setBit(s *[MaxWaiters / 64]uint64, w int32) { s[w/64%(MaxWaiters/64)] |= 1 << (w % 64) }

func clearBit(s *[MaxWaiters / 64]uint64, w int32) { s[w/64%(MaxWaiters/64)] &^= 1 << (w % 64) }

// NextWake returns a waiter whose call has its answer (or that may now find a free tag): the
// kernel makes it runnable, and it runs its system call again.
func (f *FS) NextWake() (int32, bool) {
	for i, word := range f.wake {
		if word != 0 {
			b := int32(0)
			for word&(1<<b) == 0 {
				b++
			}
			f.wake[i] &^= 1 << b
			return int32(i)*64 + b, true
		}
	}
	return 0, false
}

// tagFreed wakes the waiters that found every tag busy.
func (f *FS) tagFreed() {
	for i := range f.noTag {
		f.wake[i] |= f.noTag[i]
		f.noTag[i] = 0
	}
}

// clunkLater queues fid for a Tclunk nobody waits for.
func (f *FS) clunkLater(fid uint32) {
	if fid == p9.NoFid {
		return
	}
	if f.nclunk == len(f.clunks) {
		f.Stats.LeakedFids++
		return
	}
	f.clunks[f.nclunk] = fid
	f.nclunk++
}
