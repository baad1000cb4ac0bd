package memfs

import (
	"testing"

	"github.com/unitrace/unitrace/kernel/fs"
)

// checkInvariants verifies the FS against itself: link counts against the entries that name
// each inode, directories' counts and parents, the free list, and that every page the FS counts
// is in some inode's tree and no tree holds an uncounted page.
func checkInvariants(t testing.TB, f *FS) {
	t.Helper()
	names := map[uint32]int{}   // entries naming each inode
	subdirs := map[uint32]int{} // subdirectories of each directory
	used, pages := 0, uint64(0)
	for ino := uint32(RootIno); ino < f.nextIno; ino++ {
		in := f.inode(ino)
		if in.mode == 0 {
			continue
		}
		used++
		data, tables := countTree(t, in.root, in.height)
		if data != uint64(in.pages) {
			t.Fatalf("inode %d: %d data pages in its tree, %d counted", ino, data, in.pages)
		}
		pages += data + tables
		if !isDir(in) {
			if in.mode&fs.S_IFMT == fs.S_IFREG && (uint64(in.size)+PageSize-1)/PageSize < lastPage(in) {
				t.Fatalf("inode %d: a page past its size %d", ino, in.size)
			}
			continue
		}
		entries := uint32(0)
		for i := uint32(0); i < in.slotEnd; i++ {
			s := slotAt(in, i)
			if s == nil || s.ino == 0 {
				continue
			}
			entries++
			child := f.get(s.ino)
			if child == nil {
				t.Fatalf("dir %d slot %d names free inode %d", ino, i, s.ino)
			}
			if s.hash != hashName(s.name[:s.len]) || !validName(s.name[:s.len]) {
				t.Fatalf("dir %d slot %d: bad name %q", ino, i, s.name[:s.len])
			}
			names[s.ino]++
			if isDir(child) {
				subdirs[ino]++
				if child.parent != ino {
					t.Fatalf("dir %d in dir %d has parent %d", s.ino, ino, child.parent)
				}
			}
		}
		if in.slotEnd > 0 {
			if s := slotAt(in, in.slotEnd-1); s == nil || s.ino == 0 {
				t.Fatalf("dir %d: slotEnd %d past its last entry", ino, in.slotEnd)
			}
		}
		if entries != in.entries || in.size != int64(entries+2)*bogoDirentSize {
			t.Fatalf("dir %d: %d entries, counts %d, size %d", ino, entries, in.entries, in.size)
		}
	}
	for ino := uint32(RootIno); ino < f.nextIno; ino++ {
		in := f.inode(ino)
		if in.mode == 0 {
			continue
		}
		want := uint32(names[ino])
		if isDir(in) {
			want = 0
			if in.nlink != 0 {
				want = 2 + uint32(subdirs[ino])
			}
			if ino != RootIno && in.nlink != 0 && names[ino] != 1 {
				t.Fatalf("dir %d has %d names", ino, names[ino])
			}
		}
		if in.nlink != want {
			t.Fatalf("inode %d (mode %#o): nlink %d, want %d", ino, in.mode, in.nlink, want)
		}
		if in.nlink == 0 && in.opens == 0 && ino != RootIno {
			t.Fatalf("inode %d: neither named nor open, but not freed", ino)
		}
	}
	free := 0
	for ino := f.freeIno; ino != 0; ino = f.inode(ino).nextFree {
		if f.inode(ino).mode != 0 || free > MaxInodes {
			t.Fatalf("free list: inode %d in use or a loop", ino)
		}
		free++
	}
	if used != int(f.usedInodes) || used+free != int(f.nextIno)-RootIno {
		t.Fatalf("%d inodes used (counted %d), %d free, %d handed out", used, f.usedInodes, free, f.nextIno-RootIno)
	}
	if pages != f.usedPages {
		t.Fatalf("%d pages in trees, %d counted", pages, f.usedPages)
	}
}

// countTree returns the data and table pages of a page tree.
func countTree(t testing.TB, addr uintptr, h uint8) (data, tables uint64) {
	if addr == 0 {
		return 0, 0
	}
	if h == 0 {
		return 1, 0
	}
	tables = 1
	for _, e := range tablePage(addr) {
		d, tb := countTree(t, e, h-1)
		data += d
		tables += tb
	}
	return data, tables
}

// lastPage returns one past the highest page index in in's tree.
func lastPage(in *inode) uint64 { return highest(in.root, in.height, 0) }

func highest(addr uintptr, h uint8, base uint64) uint64 {
	if addr == 0 {
		return 0
	}
	if h == 0 {
		return base + 1
	}
	t := tablePage(addr)
	for i := len(t) - 1; i >= 0; i-- {
		if t[i] != 0 {
			return highest(t[i], h-1, base+uint64(i)*span(h-1))
		}
	}
	return 0
}
