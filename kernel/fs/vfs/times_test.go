package vfs

import (
	"testing"
	"time"

	"github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/fs/memfs"
)

// TestTimestampsAgainstLinux checks which modification and change times each operation updates
// (atime follows relatime and is left out): it stats a set of files before and after each step
// on both sides and compares which times moved. Linux's file times come from a coarse clock, so
// the oracle waits a few ticks before each step.
func TestTimestampsAgainstLinux(t *testing.T) {
	o := newOracle(t)
	if o == nil {
		t.Skip("needs the Linux oracle")
	}
	m := newMem(t, memfs.Capacity{Bytes: 1 << 20, Inodes: 100})
	for _, s := range base {
		m.do(s.op)
		o.do(s.op)
	}
	watched := []string{"/", "f", "d", "d/s", "lf", "g", "e", "d/s/h"}
	steps := []op{
		touch("g"), write(1, 0, "x"), write(1, 0, ""), op{Kind: "ftruncate", H: 1, Off: 1}, op{Kind: "truncate", Path: "g", Off: 1},
		op{Kind: "truncate", Path: "g", Off: 5}, openf("g", fs.O_TRUNC|fs.O_WRONLY), openf("f", fs.O_RDONLY), read(3, 0, 3),
		link("g", "d/s/h", 0), unlink("d/s/h", 0), mkdir("e"), unlink("e", fs.AT_REMOVEDIR), mkdir("e"),
		rename("g", "e/g", 0), rename("e/g", "g", 0), rename("f", "g", 0), rename("g", "f", fs.RENAME_NOREPLACE),
		rename("f", "d/s/h", 0), rename("d/s/h", "f", 0), rename("e", "d/s/e", 0), rename("d/s/e", "e", 0),
		rename("e", "d", fs.RENAME_EXCHANGE), rename("e", "d", fs.RENAME_EXCHANGE), rename("f", "e", fs.RENAME_EXCHANGE),
		rename("e", "f", fs.RENAME_EXCHANGE), op{Kind: "chmod", Path: "f", Mode: 0o600, Dir: -1}, symlink("x", "d/s/h"),
		unlink("d/s/h", 0), op{Kind: "mknod", Path: "d/s/h", Mode: 0o600, Dir: -1}, unlink("d/s/h", 0),
		op{Kind: "utimens", Path: "f", Atime: fs.Timespec{Nsec: fs.UTIME_NOW}, Mtime: fs.Timespec{Nsec: fs.UTIME_OMIT}, Dir: -1},
		op{Kind: "utimens", Path: "f", Atime: fs.Timespec{Nsec: fs.UTIME_OMIT}, Mtime: fs.Timespec{Nsec: fs.UTIME_NOW}, Dir: -1},
		touch("g"), openf("d", fs.O_RDONLY), op{Kind: "getdents", H: 5}, rename("d/s", "d/s", 0), link("f", "d/s/h", 0),
		rename("f", "d/s/h", 0),
	}
	times := func(s side) map[string][2]fs.Timespec {
		out := map[string][2]fs.Timespec{}
		for _, p := range watched {
			r := s.do(op{Kind: "stattimes", Path: p, Flags: fs.AT_SYMLINK_NOFOLLOW, Dir: -1})
			if r.Errno == 0 {
				out[p] = r.Times
			}
		}
		return out
	}
	for i, x := range steps {
		mb, ob := times(m), times(o)
		time.Sleep(12 * time.Millisecond)
		gr, wr := m.do(x), o.do(x)
		if gr.Errno != wr.Errno {
			t.Fatalf("step %d %+v: memfs errno %d, Linux %d", i, x, gr.Errno, wr.Errno)
		}
		ma, oa := times(m), times(o)
		for _, p := range watched {
			for k, what := range []string{"mtime", "ctime"} {
				_, inM := mb[p]
				_, inO := ob[p]
				if !inM || !inO {
					continue
				}
				gm := ma[p][k] != mb[p][k]
				wm := oa[p][k] != ob[p][k]
				if gm != wm {
					t.Errorf("step %d %+v: %s of %s changed: memfs %v, Linux %v", i, brief(x), what, p, gm, wm)
				}
			}
		}
	}
}
