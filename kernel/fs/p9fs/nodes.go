package p9fs

import (
	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/fs/p9"
)

// Slots of a node's open fids: one per way of opening, shared by every open file of the node.
const (
	openRead   = iota // O_RDONLY (directories too: Treaddir wants an open fid)
	openWrite         // O_WRONLY
	openRdwr          // O_RDWR: serves reads and writes
	openAppend        // O_WRONLY|O_APPEND: the host appends, whatever the offset
	numOpen
)

// node is a file the kernel holds a handle on.
type node struct {
	used    bool
	ready   bool   // its attributes are in: lookups may find it
	gen     uint16 // bumped on each reuse of the slot, part of the inode number
	fid     uint32 // a walked (not open) fid of the file
	qid     p9.Qid
	stat    fs.Stat // its attributes as the last Tgetattr (or a change of ours) left them
	parent  uint32  // inode of the directory it was last found in
	name    [fs.NameMax]byte
	nlen    uint8
	open    [numOpen]uint32 // open fids, NoFid for none
	iounit  [numOpen]uint32
	refs    int32  // Acquire's references
	busy    uint8  // operations in flight about it: not reused meanwhile
	gone    bool   // its name was removed or replaced by a call of ours: lookups never find it
	lastUse uint32 // clock at its last use
}

// ino is node i's inode number: slot and generation.
func (f *FS) ino(i int) uint32 { return uint32(f.nodes[i].gen)<<16 | uint32(i+1) }

// node returns the node of inode ino, or ESTALE if its slot now holds another file.
func (f *FS) node(ino uint32) (*node, int) {
	i := int(ino&0xffff) - 1
	if i < 0 || i >= MaxNodes {
		return nil, abi.ESTALE
	}
	n := &f.nodes[i]
	if !n.used || n.gen != uint16(ino>>16) {
		return nil, abi.ESTALE
	}
	f.clock++
	n.lastUse = f.clock
	return n, 0
}

// known finds the node a walk to name in dir that ended at qid already has: the one found
// under that name in that directory, if it is the same file (qid path and type). A qid path is
// an inode number, which a host reuses once a file is removed, so the qid alone could name a
// removed file's node; a hard link's other names get nodes of their own. A node whose name a
// call of ours removed is never found again.
func (f *FS) known(qid p9.Qid, dir uint32, name []byte) (int, bool) {
	for i := range f.nodes {
		n := &f.nodes[i]
		if !n.used || !n.ready || n.gone || n.qid.Path != qid.Path || n.qid.Type&p9.QTDIR != qid.Type&p9.QTDIR {
			continue
		}
		if i == 0 || n.parent == dir && string(n.name[:n.nlen]) == string(name) {
			return i, true
		}
	}
	return 0, false
}

// removed marks the node found as name in dir gone: the name now leads elsewhere or nowhere.
func (f *FS) removed(dir uint32, name []byte) {
	for i := 1; i < MaxNodes; i++ {
		n := &f.nodes[i]
		if n.used && !n.gone && n.parent == dir && string(n.name[:n.nlen]) == string(name) {
			n.gone, n.nlen = true, 0
		}
	}
}

// newNode takes a slot for a file: a free one, else the least recently used node that nobody
// references and nothing is in flight about (its fids are clunked). The root is never reused.
func (f *FS) newNode(fid uint32, qid p9.Qid) (int, bool) {
	victim := -1
	for i := 1; i < MaxNodes; i++ {
		if !f.nodes[i].used {
			victim = i
			break
		}
	}
	if victim < 0 {
		victim = f.leastRecent()
	}
	if victim < 0 {
		f.Stats.NodesMissing++
		return 0, false
	}
	n := &f.nodes[victim]
	if n.used {
		f.Stats.NodesReused++
		f.dropFids(n)
	}
	gen := n.gen + 1
	*n = node{used: true, gen: gen, fid: fid, qid: qid}
	for s := range n.open {
		n.open[s] = p9.NoFid
	}
	f.clock++
	n.lastUse = f.clock
	return victim, true
}

// leastRecent is the least recently used node that can be reused: nobody references it,
// nothing is in flight about it, and it is not the root; -1 for none.
func (f *FS) leastRecent() int {
	victim := -1
	for i := 1; i < MaxNodes; i++ {
		n := &f.nodes[i]
		if n.used && n.refs == 0 && n.busy == 0 && n.ready && (victim < 0 || n.lastUse < f.nodes[victim].lastUse) {
			victim = i
		}
	}
	return victim
}

// minFreeFids is how many fids a new walk wants free: one for the walk, the rest for the
// opens and creates of calls in flight.
const minFreeFids = 64

// easeFids gives back the fids of a node nobody references when fids run short: every node
// holds one, and the session's table (p9.MaxFids) is smaller than the nodes' worst case.
func (f *FS) easeFids() {
	if f.c.FreeFids()-f.nclunk >= minFreeFids {
		return
	}
	if victim := f.leastRecent(); victim >= 0 {
		n := &f.nodes[victim]
		f.Stats.NodesReused++
		f.dropFids(n)
		n.used = false
	}
}

// dropFids clunks every fid of n.
func (f *FS) dropFids(n *node) {
	f.clunkLater(n.fid)
	n.fid = p9.NoFid
	f.closeFids(n)
}

// closeFids clunks n's open fids.
func (f *FS) closeFids(n *node) {
	for s := range n.open {
		f.clunkLater(n.open[s])
		n.open[s] = p9.NoFid
	}
}

// setName records where n was found.
func (n *node) setName(parent uint32, name []byte) {
	n.parent = parent
	n.nlen = uint8(copy(n.name[:], name))
}

// openFor returns an open fid of n that serves slot's kind of access.
func (n *node) openFor(slot int) (uint32, uint32, bool) {
	if n.open[slot] != p9.NoFid {
		return n.open[slot], n.iounit[slot], true
	}
	if (slot == openRead || slot == openWrite) && n.open[openRdwr] != p9.NoFid {
		return n.open[openRdwr], n.iounit[openRdwr], true
	}
	return p9.NoFid, 0, false
}
