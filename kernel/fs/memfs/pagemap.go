package memfs

import (
	"github.com/unitrace/unitrace/kernel/abi"
)

// Each inode's contents (a file's bytes, a directory's entry slots, a symbolic link's target)
// are pages indexed by a radix tree of page tables rooted in the inode: at height 0 the root is
// the page of index 0 itself; at height h the root is a table of 512 subtrees of height h-1, and
// the tree covers page indexes below 512^h. Absent pages (zero entries) are holes and read as
// zeros. Height 6 covers 2^54 pages, more than MaxFileSize needs.
const maxHeight = 6

// span returns the number of page indexes a tree of height h covers.
func span(h uint8) uint64 { return 1 << (9 * uint64(h)) }

// findPage returns the page of index idx, or 0 for a hole.
func findPage(in *inode, idx uint64) uintptr {
	if idx >= span(in.height) {
		return 0
	}
	addr := in.root
	for h := in.height; h > 0 && addr != 0; h-- {
		addr = tablePage(addr)[idx>>(9*uint64(h-1))%tableEntries]
	}
	return addr
}

// getPage returns the page of index idx, allocating it and the tables on its way if need be. A
// new data page counts in in.pages.
func (f *FS) getPage(p Pages, in *inode, idx uint64) (uintptr, int) {
	if in.root == 0 {
		in.height = 0
		for idx >= span(in.height) {
			in.height++
		}
	}
	for idx >= span(in.height) {
		if in.height == maxHeight {
			return 0, abi.EFBIG
		}
		t, errno := f.alloc(p)
		if errno != 0 {
			return 0, errno
		}
		tablePage(t)[0] = in.root
		in.root = t
		in.height++
	}
	slot := &in.root
	for h := in.height; ; h-- {
		if *slot == 0 {
			a, errno := f.alloc(p)
			if errno != 0 {
				return 0, errno
			}
			*slot = a
			if h == 0 {
				in.pages++
			}
		}
		if h == 0 {
			return *slot, 0
		}
		slot = &tablePage(*slot)[idx>>(9*uint64(h-1))%tableEntries]
	}
}

// freeFrom gives back every page of index idx or more and the tables left empty.
func (f *FS) freeFrom(p Pages, in *inode, idx uint64) {
	if in.root == 0 || idx >= span(in.height) {
		return
	}
	if f.freeTree(p, in, in.root, in.height, 0, idx) {
		in.root, in.height = 0, 0
	}
}

// freeTree frees the pages of index idx or more in the subtree at addr of height h whose first
// index is base, and reports whether the subtree is now empty (its root freed too).
func (f *FS) freeTree(p Pages, in *inode, addr uintptr, h uint8, base, idx uint64) bool {
	if h == 0 {
		if base < idx {
			return false
		}
		f.free(p, addr)
		in.pages--
		return true
	}
	t := tablePage(addr)
	child := span(h - 1)
	empty := true
	for i := range t {
		start := base + uint64(i)*child
		if t[i] == 0 {
			continue
		}
		if start+child > idx && f.freeTree(p, in, t[i], h-1, start, idx) {
			t[i] = 0
		} else {
			empty = false
		}
	}
	if empty {
		f.free(p, addr)
	}
	return empty
}
