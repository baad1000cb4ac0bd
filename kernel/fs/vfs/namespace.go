package vfs

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/fs/memfs"
	"github.com/unitrace/unitrace/kernel/fs/p9fs"
	"github.com/unitrace/unitrace/kernel/fs/procfs"
)

// Node names a file in the namespace: a mounted file system (the index of its mount) and an
// inode number in it. The zero Node names nothing.
type Node = fs.Node

// Pages is the page allocator the file systems take their memory from.
type Pages = memfs.Pages

// MaxMounts is the number of file systems a namespace can hold, its root included.
const MaxMounts = 16

// MaxMemFS is how many of them can be in-memory file systems.
const MaxMemFS = 4

// MaxShares is how many of them can be shared host directories (package p9fs).
const MaxShares = 8

// kind says which file system implementation serves a mount.
type kind uint8

const (
	kindNone  kind = iota
	kindMem        // memfs: index is into Namespace.mem
	kindShare      // p9fs: index is into Namespace.shares
	kindProc       // procfs: Namespace.proc, the one process file system
)

// mount is one file system in the namespace.
type mount struct {
	kind     kind
	index    uint8 // into the array of its kind
	readOnly bool  // SetReadOnly: changes fail with EROFS
	point    Node  // the directory it is mounted on; zero for the namespace's root
}

// Namespace is a tree of mounted file systems. Call Init before use.
type Namespace struct {
	mounts [MaxMounts]mount
	mem    [MaxMemFS]memfs.FS
	shares [MaxShares]p9fs.FS
	proc   procfs.FS
	nshare int     // shares handed out by NewShare
	caller int32   // the thread making the calls, for the shares' waits and /proc (Begin)
	walks  [2]walk // scratch for the (at most two) paths of one operation
	// scope is openat2's resolve flags for the resolutions of the call being served (SetScope).
	scope uint64

	// fdLink is the descriptor of the last fs.EFDLINK: the one a /proc link led to.
	fdLink int
	// linkBuf holds the path of a file a /proc link leads to while readlink cuts it to size.
	linkBuf [fs.PathMax]byte
}

// Init makes the namespace's root an empty memfs of capacity c whose root directory has mode
// 0755, as a freshly booted system's "/" has.
func (ns *Namespace) Init(p Pages, c memfs.Capacity, now fs.Timespec) int {
	for i := range ns.mem {
		ns.mem[i] = memfs.FS{}
	}
	ns.mounts = [MaxMounts]mount{}
	ns.nshare = 0
	if errno := ns.mem[0].Init(p, c, 0o755, now); errno != 0 {
		return errno
	}
	ns.mounts[0] = mount{kind: kindMem, index: 0}
	return 0
}

// Root returns the root directory of the namespace.
func (ns *Namespace) Root() Node { return Node{FS: 0, Ino: memfs.RootIno} }

// MountMem mounts a new, empty memfs of capacity c (root mode 01777, as tmpfs's) on directory
// at, which must exist and be a directory (ENOTDIR). Mounting on a directory that already has a
// mount on it stacks the new one on top.
func (ns *Namespace) MountMem(p Pages, at Node, c memfs.Capacity, now fs.Timespec) (Node, int) {
	if ns.mode(at)&fs.S_IFMT != fs.S_IFDIR {
		if ns.mode(at) == 0 {
			return Node{}, abi.ENOENT
		}
		return Node{}, abi.ENOTDIR
	}
	slot, mem := -1, -1
	for i := range ns.mounts {
		if ns.mounts[i].kind == kindNone {
			slot = i
			break
		}
	}
	used := [MaxMemFS]bool{}
	for i := range ns.mounts {
		if ns.mounts[i].kind == kindMem {
			used[ns.mounts[i].index%MaxMemFS] = true
		}
	}
	for i := range used {
		if !used[i] {
			mem = i
			break
		}
	}
	if slot < 0 || mem < 0 {
		return Node{}, abi.ENOSPC
	}
	if errno := ns.mem[mem].Init(p, c, 0o1777, now); errno != 0 {
		return Node{}, errno
	}
	ns.acquire(at)
	ns.setMounted(at, true)
	ns.mounts[slot] = mount{kind: kindMem, index: uint8(mem), point: at}
	return Node{FS: uint16(slot), Ino: memfs.RootIno}, 0
}

// NewShare hands out a share's file system for the caller to mount (p9fs.FS.Mount, then its
// requests carried until Mounted), or false when all MaxShares are taken. MountShare then
// puts it in the namespace.
func (ns *Namespace) NewShare() (int, *p9fs.FS, bool) {
	if ns.nshare == MaxShares {
		return 0, nil, false
	}
	i := ns.nshare
	ns.nshare++
	return i, &ns.shares[i], true
}

// Share returns share i's file system (for the transport: NextSend, Complete, NextWake).
func (ns *Namespace) Share(i int) *p9fs.FS { return &ns.shares[i%MaxShares] }

// Shares is how many shares NewShare handed out.
func (ns *Namespace) Shares() int { return ns.nshare }

// MountShare mounts share i, whose session is up, on directory at, as MountMem mounts a memfs.
func (ns *Namespace) MountShare(i int, at Node) (Node, int) {
	if i < 0 || i >= ns.nshare {
		return Node{}, abi.EINVAL
	}
	if done, errno := ns.shares[i].Mounted(); !done || errno != 0 {
		return Node{}, abi.EIO
	}
	if ns.mode(at)&fs.S_IFMT != fs.S_IFDIR {
		if ns.mode(at) == 0 {
			return Node{}, abi.ENOENT
		}
		return Node{}, abi.ENOTDIR
	}
	slot := -1
	for j := range ns.mounts {
		if ns.mounts[j].kind == kindNone {
			slot = j
			break
		}
	}
	if slot < 0 {
		return Node{}, abi.ENOSPC
	}
	ns.acquire(at)
	ns.setMounted(at, true)
	ns.mounts[slot] = mount{kind: kindShare, index: uint8(i), point: at}
	return Node{FS: uint16(slot), Ino: p9fs.RootIno}, 0
}

// MountProc mounts the process file system, which shows the kernel's state in src, on directory
// at, as MountMem mounts a memfs (there is one: a second is EBUSY). The namespace keeps src's
// address (procfs.FS.Init says why), so src must be a global.
func (ns *Namespace) MountProc(at Node, src *procfs.Sources) (Node, int) {
	if ns.mode(at)&fs.S_IFMT != fs.S_IFDIR {
		if ns.mode(at) == 0 {
			return Node{}, abi.ENOENT
		}
		return Node{}, abi.ENOTDIR
	}
	slot := -1
	for i := range ns.mounts {
		if ns.mounts[i].kind == kindProc {
			return Node{}, abi.EBUSY
		}
		if slot < 0 && ns.mounts[i].kind == kindNone {
			slot = i
		}
	}
	if slot < 0 {
		return Node{}, abi.ENOSPC
	}
	ns.proc.Init(src)
	ns.acquire(at)
	ns.setMounted(at, true)
	ns.mounts[slot] = mount{kind: kindProc, point: at}
	return Node{FS: uint16(slot), Ino: procfs.RootIno}, 0
}

// FDLink is the descriptor that the last operation failing with fs.EFDLINK led to.
func (ns *Namespace) FDLink() int { return ns.fdLink }

// Proc reports whether n is in the process file system: its files have no size to read up to
// (their contents are made as they are read) and seek as Linux's do.
func (ns *Namespace) Proc(n Node) bool { return ns.kindOf(n) == kindProc }

// Begin starts a run of a system call by thread w: the shares' calls wait by thread, and a
// call that needs the host returns fs.EQUEUED (the caller waits for the share's reply, then
// runs the whole system call again, with Begin again). End ends the system call. /proc's
// thread-self is w's.
func (ns *Namespace) Begin(w int32) {
	ns.caller = w
	for i := 0; i < ns.nshare; i++ {
		ns.shares[i].Begin(w)
	}
}

// End ends thread w's system call (see Begin).
func (ns *Namespace) End(w int32) {
	for i := 0; i < ns.nshare; i++ {
		ns.shares[i].End(w)
	}
}

// SetReadOnly makes the file system n is on read-only, as a read-only mount is on Linux (mount
// -o remount,bind,ro): from then on every operation that would change a file in it fails with
// fs.EROFS, in the order Linux checks (so a name that exists still fails with EEXIST first),
// opening a regular file for writing or truncation included; reads and directory listings leave
// access times alone. Mounting on one of its directories still works, as it does on Linux. It
// cannot be undone.
func (ns *Namespace) SetReadOnly(n Node) int {
	if ns.kindOf(n) == kindNone {
		return abi.ENOENT
	}
	m := &ns.mounts[n.FS%MaxMounts]
	m.readOnly = true
	switch m.kind {
	case kindMem:
		ns.memOf(n).SetNoAtime(true)
	}
	return 0
}

// ReadOnly reports whether n is on a read-only file system (SetReadOnly); statfs reports it as
// ST_RDONLY.
func (ns *Namespace) ReadOnly(n Node) bool {
	return ns.kindOf(n) != kindNone && ns.mounts[n.FS%MaxMounts].readOnly
}

// Remote reports whether n is on a shared directory, whose calls may need a round trip to the
// host (so a caller asks only what it needs: Mode is the type and permissions as last seen, and
// costs nothing; Stat asks the host).
func (ns *Namespace) Remote(n Node) bool { return ns.kindOf(n) == kindShare }

// Mode returns n's file type and permission bits as its file system last saw them, 0 for no
// file: for a shared directory's, what the lookup that found it said (a file's type never
// changes), without asking the host.
func (ns *Namespace) Mode(n Node) uint32 { return ns.mode(n) }

// Dev returns the device number stat reports for the files of n's file system: an anonymous
// device (major 0), as tmpfs has.
func (ns *Namespace) Dev(n Node) uint64 { return fs.Mkdev(0, 0x40+uint32(n.FS)) }

// isRoot reports whether n is the root directory of its file system.
func (ns *Namespace) isRoot(n Node) bool {
	switch ns.kindOf(n) {
	case kindMem:
		return n.Ino == memfs.RootIno
	case kindShare:
		return n.Ino == p9fs.RootIno
	case kindProc:
		return n.Ino == procfs.RootIno
	}
	return false
}

// mountedOn returns the root of the file system most recently mounted on n, or ok=false.
func (ns *Namespace) mountedOn(n Node) (Node, bool) {
	for i := len(ns.mounts) - 1; i > 0; i-- {
		if m := &ns.mounts[i]; m.kind != kindNone && m.point == n {
			return Node{FS: uint16(i), Ino: ns.rootIno(uint16(i))}, true
		}
	}
	return Node{}, false
}

// cross follows the mounts on n down to the topmost file system's root (Linux's follow_mount).
func (ns *Namespace) cross(n Node) Node {
	for steps := 0; steps < MaxMounts; steps++ {
		top, ok := ns.mountedOn(n)
		if !ok {
			break
		}
		n = top
	}
	return n
}

// dotdot returns the parent of directory d for "..": d itself at the resolution's root, and at
// a mounted file system's root the parent of the directory it is mounted on (Linux's
// follow_dotdot), so that ".." never escapes the root it was given.
func (ns *Namespace) dotdot(d, root Node) (Node, int) {
	for steps := 0; steps <= MaxMounts; steps++ {
		if d == root {
			return d, 0
		}
		if !ns.isRoot(d) {
			up, errno := ns.lookup(d, dotdotName[:])
			if errno != 0 {
				return Node{}, errno
			}
			return ns.cross(up), 0
		}
		m := &ns.mounts[d.FS%MaxMounts]
		if m.point == (Node{}) {
			return d, 0 // the namespace's root
		}
		d = m.point
	}
	return d, 0
}

var dotdotName = [2]byte{'.', '.'}
