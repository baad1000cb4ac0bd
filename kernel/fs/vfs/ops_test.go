package vfs

import (
	"strings"
	"testing"

	"github.com/unitrace/unitrace/kernel/abi"

	"github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/fs/memfs"
)

// Shorthands for the operations of the table tests.

func mkdir(p string) op { return op{Kind: "mkdir", Path: p, Mode: 0o755, Dir: -1} }

// touch creates a file and leaves it open (handles count from 1 in each scenario).
func touch(p string) op {
	return op{Kind: "open", Path: p, Flags: fs.O_CREAT | fs.O_WRONLY, Mode: 0o644, Dir: -1}
}
func openf(p string, flags int) op {
	return op{Kind: "open", Path: p, Flags: flags, Mode: 0o600, Dir: -1}
}
func symlink(target, p string) op { return op{Kind: "symlink", Path: p, Path2: target, Dir: -1} }
func link(old, new string, flags int) op {
	return op{Kind: "link", Path: old, Path2: new, Flags: flags, Dir: -1, Dir2: -1}
}
func unlink(p string, flags int) op { return op{Kind: "unlink", Path: p, Flags: flags, Dir: -1} }
func rename(old, new string, flags int) op {
	return op{Kind: "rename", Path: old, Path2: new, Flags: flags, Dir: -1, Dir2: -1}
}
func stat(p string) op            { return op{Kind: "stat", Path: p, Dir: -1} }
func lstat(p string) op           { return op{Kind: "stat", Path: p, Flags: fs.AT_SYMLINK_NOFOLLOW, Dir: -1} }
func readlink(p string, n int) op { return op{Kind: "readlink", Path: p, N: n, Dir: -1} }
func write(h int, off int64, s string) op {
	return op{Kind: "write", H: h, Off: off, Data: []byte(s)}
}
func read(h int, off int64, n int) op { return op{Kind: "read", H: h, Off: off, N: n} }

type step struct {
	op    op
	errno int
}

// ok is a step that must succeed.
func ok(o op) step { return step{o, 0} }

var long255, long256 = strings.Repeat("x", 255), strings.Repeat("y", 256)

// chain makes links c1 -> c2 -> ... -> cn -> f.
func chain(n int) []step {
	var out []step
	for i := 1; i <= n; i++ {
		target := "c" + itoa(i+1)
		if i == n {
			target = "f"
		}
		out = append(out, ok(symlink(target, "c"+itoa(i))))
	}
	return out
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// base is the tree most scenarios start from: file f (with "hello"), directory d with an empty
// subdirectory s, and links lf -> f, ld -> d, dang -> nowhere.
var base = []step{
	ok(touch("f")), ok(write(1, 0, "hello")), ok(op{Kind: "close", H: 1}),
	ok(mkdir("d")), ok(mkdir("d/s")),
	ok(symlink("f", "lf")), ok(symlink("d", "ld")), ok(symlink("nowhere", "dang")),
}

type scenario struct {
	name  string
	steps []step
}

func with(steps ...step) []step { return append(append([]step(nil), base...), steps...) }

var scenarios = []scenario{
	{"resolve", with(
		step{stat(""), abi.ENOENT}, step{stat("missing"), abi.ENOENT}, step{stat("missing/x"), abi.ENOENT},
		step{stat("f/x"), abi.ENOTDIR}, step{stat("f/"), abi.ENOTDIR}, step{stat("f/."), abi.ENOTDIR},
		ok(stat("d/")), ok(stat("d//s///")), ok(stat("d/.")), ok(stat("d/..")), ok(stat("/..")),
		ok(stat("/../../d/s/../../f")), ok(stat("./d/./s/.")), step{stat("d/s/../../missing/.."), abi.ENOENT},
		step{stat(long255), abi.ENOENT}, step{stat(long256), abi.ENAMETOOLONG},
		step{stat("missing/" + long256), abi.ENOENT}, step{stat(long256 + "/x"), abi.ENAMETOOLONG},
		step{stat("f/" + long256), abi.ENOTDIR},
		ok(stat(strings.Repeat("./", 2047)+"f")), step{stat(strings.Repeat("./", 2048) + "f"), abi.ENAMETOOLONG},
		ok(stat(strings.Repeat("/", 4095))), step{stat(strings.Repeat("/", 4096)), abi.ENAMETOOLONG},
	)},
	{"symlinks", with(
		ok(stat("lf")), ok(lstat("lf")), step{stat("lf/"), abi.ENOTDIR}, step{lstat("lf/"), abi.ENOTDIR},
		ok(stat("ld/")), ok(lstat("ld/")), ok(stat("ld/s")), ok(stat("ld/s/../s")), ok(lstat("ld")),
		step{stat("dang"), abi.ENOENT}, ok(lstat("dang")), step{stat("dang/"), abi.ENOENT}, step{lstat("dang/"), abi.ENOENT},
		ok(symlink("l2", "l1")), ok(symlink("l1", "l2")), ok(symlink("self", "self")),
		step{stat("l1"), abi.ELOOP}, ok(lstat("l1")), step{stat("l1/"), abi.ELOOP}, step{stat("self/x"), abi.ELOOP},
		ok(symlink("/d/s", "abs")), ok(stat("abs/")), ok(symlink("../../../f", "d/s/up")), ok(stat("d/s/up")),
		ok(symlink("d/s/", "slash")), ok(stat("slash")), ok(symlink("f/", "fslash")), step{stat("fslash"), abi.ENOTDIR},
		ok(symlink("..", "d/s/dotdot")), ok(stat("d/s/dotdot/s/dotdot/s")),
		ok(symlink("d/s", "ls")), ok(stat("ls/..")), // ".." after a link is the target's parent
	)},
	{"forty links", append(with(chain(40)...), ok(stat("c1")), ok(stat("c2")))},
	{"forty-one links", append(with(chain(41)...), step{stat("c1"), abi.ELOOP}, ok(stat("c2")))},
	{"open", with(
		step{openf("missing", fs.O_RDONLY), abi.ENOENT}, ok(openf("f", fs.O_RDONLY)),
		step{openf("f", fs.O_CREAT|fs.O_EXCL|fs.O_WRONLY), abi.EEXIST}, ok(openf("f", fs.O_CREAT|fs.O_WRONLY)),
		step{openf("dang", fs.O_CREAT|fs.O_EXCL|fs.O_WRONLY), abi.EEXIST}, ok(openf("dang", fs.O_CREAT|fs.O_WRONLY)),
		ok(stat("nowhere")),
		step{openf("lf", fs.O_NOFOLLOW), abi.ELOOP}, step{openf("lf", fs.O_CREAT|fs.O_NOFOLLOW), abi.ELOOP},
		ok(openf("ld/", fs.O_NOFOLLOW)), step{openf("ld", fs.O_NOFOLLOW|fs.O_DIRECTORY), abi.ENOTDIR},
		step{openf("new/", fs.O_CREAT), abi.EISDIR}, step{openf("d", fs.O_CREAT), abi.EISDIR},
		step{openf("d/", fs.O_CREAT), abi.EISDIR}, step{openf(".", fs.O_CREAT), abi.EISDIR},
		step{openf("/", fs.O_CREAT|fs.O_EXCL), abi.EEXIST},
		step{openf("f/", fs.O_RDONLY), abi.ENOTDIR}, step{openf("f", fs.O_DIRECTORY), abi.ENOTDIR},
		step{openf("d", fs.O_DIRECTORY|fs.O_CREAT), abi.EINVAL}, step{openf("new", fs.O_DIRECTORY|fs.O_CREAT), abi.EINVAL},
		ok(openf("d", fs.O_DIRECTORY)), ok(openf("ld", fs.O_RDONLY)),
		step{openf("d", fs.O_WRONLY), abi.EISDIR}, step{openf("d", fs.O_RDWR), abi.EISDIR},
		step{openf("d", fs.O_RDONLY|fs.O_TRUNC), abi.EISDIR}, step{openf("d", 3), abi.EISDIR},
		step{openf("missing/x", fs.O_CREAT), abi.ENOENT}, step{openf("f/x", fs.O_CREAT), abi.ENOTDIR},
		step{openf(long256, fs.O_CREAT), abi.ENAMETOOLONG}, ok(openf(long255, fs.O_CREAT)),
		ok(openf("f", fs.O_RDONLY|fs.O_TRUNC)), ok(stat("f")),
		ok(openf("lf", fs.O_PATH|fs.O_NOFOLLOW)), ok(openf("dang", fs.O_PATH|fs.O_NOFOLLOW)),
		ok(openf("dang", fs.O_PATH)), ok(openf("d", fs.O_PATH|fs.O_CREAT|fs.O_WRONLY)),
	)},
	{"mkdir", with(
		step{mkdir("d"), abi.EEXIST}, step{mkdir("d/."), abi.EEXIST}, step{mkdir("d/.."), abi.EEXIST},
		step{mkdir("/"), abi.EEXIST}, step{mkdir("f"), abi.EEXIST}, step{mkdir("dang"), abi.EEXIST},
		ok(mkdir("new/")), ok(mkdir("new2//")), step{mkdir("missing/x"), abi.ENOENT}, step{mkdir("f/x"), abi.ENOTDIR},
		step{mkdir(long256), abi.ENAMETOOLONG}, ok(mkdir(long255)), ok(mkdir("ld/t")), ok(stat("d/t")), ok(stat("d")),
		ok(op{Kind: "mkdir", Path: "modes", Mode: 0o7777, Dir: -1}), ok(stat("modes")),
	)},
	{"rmdir", with(
		step{unlink("d", fs.AT_REMOVEDIR), abi.ENOTEMPTY}, step{unlink("d/s/.", fs.AT_REMOVEDIR), abi.EINVAL},
		step{unlink("d/s/..", fs.AT_REMOVEDIR), abi.ENOTEMPTY}, step{unlink("/", fs.AT_REMOVEDIR), abi.EBUSY},
		step{unlink("f", fs.AT_REMOVEDIR), abi.ENOTDIR}, step{unlink("missing", fs.AT_REMOVEDIR), abi.ENOENT},
		step{unlink("ld", fs.AT_REMOVEDIR), abi.ENOTDIR}, step{unlink("ld/", fs.AT_REMOVEDIR), abi.ENOTDIR},
		step{unlink("f/", fs.AT_REMOVEDIR), abi.ENOTDIR}, step{unlink("missing/", fs.AT_REMOVEDIR), abi.ENOENT},
		ok(unlink("d/s/", fs.AT_REMOVEDIR)), ok(stat("d")), ok(unlink("d", fs.AT_REMOVEDIR)),
		step{unlink("f", 0x100), abi.EINVAL},
	)},
	{"unlink", with(
		step{unlink("d", 0), abi.EISDIR}, step{unlink("f/", 0), abi.ENOTDIR}, step{unlink("d/", 0), abi.EISDIR},
		step{unlink("missing/", 0), abi.ENOENT}, step{unlink("missing", 0), abi.ENOENT}, step{unlink(".", 0), abi.EISDIR},
		step{unlink("/", 0), abi.EISDIR}, step{unlink("d/..", 0), abi.EISDIR}, step{unlink("lf/", 0), abi.ENOTDIR},
		step{unlink("ld/", 0), abi.ENOTDIR}, step{unlink(long256, 0), abi.ENAMETOOLONG},
		ok(unlink("lf", 0)), ok(stat("f")), ok(unlink("f", 0)), step{stat("f"), abi.ENOENT}, ok(unlink("dang", 0)),
	)},
	{"link", with(
		step{link("d", "d2", 0), abi.EPERM}, step{link("f", "lf", 0), abi.EEXIST}, step{link("f", "new/", 0), abi.ENOENT},
		step{link("f", "d/s/", 0), abi.EEXIST}, step{link("f/", "x", 0), abi.ENOTDIR}, step{link("missing", "x", 0), abi.ENOENT},
		step{link("f", "missing/x", 0), abi.ENOENT}, step{link("f", "x", 0x8000), abi.EINVAL},
		ok(link("f", "f2", 0)), ok(stat("f")), ok(link("lf", "lf2", 0)), ok(lstat("lf")),
		ok(link("lf", "f3", fs.AT_SYMLINK_FOLLOW)), ok(stat("f")), step{link("dang", "x", fs.AT_SYMLINK_FOLLOW), abi.ENOENT},
		ok(link("dang", "dang2", 0)), step{link("ld", "x", fs.AT_SYMLINK_FOLLOW), abi.EPERM},
		step{link("f", ".", 0), abi.EEXIST}, step{link("f", "/", 0), abi.EEXIST},
	)},
	{"symlink", with(
		step{symlink("", "x"), abi.ENOENT}, step{symlink("f", "f"), abi.EEXIST}, step{symlink("f", "new/"), abi.ENOENT},
		step{symlink("f", "d/"), abi.EEXIST}, step{symlink("f", "missing/x"), abi.ENOENT}, step{symlink("f", "."), abi.EEXIST},
		ok(symlink(strings.Repeat("z", 4095), "long")), step{symlink(strings.Repeat("z", 4096), "long2"), abi.ENAMETOOLONG},
		ok(lstat("long")), step{stat("long"), abi.ENAMETOOLONG},
	)},
	{"rename files", with(
		ok(touch("g")), ok(write(2, 0, "gg")), ok(rename("g", "f", 0)), ok(stat("f")), step{stat("g"), abi.ENOENT},
		ok(link("f", "f2", 0)), ok(rename("f", "f2", 0)), ok(stat("f")), ok(stat("f2")),
		step{rename("f", "d", 0), abi.EISDIR}, step{rename("f/", "x", 0), abi.ENOTDIR}, step{rename("f", "x/", 0), abi.ENOTDIR},
		step{rename("missing", "x", 0), abi.ENOENT}, step{rename("f", "missing/x", 0), abi.ENOENT},
		step{rename(".", "x", 0), abi.EBUSY}, step{rename("f", ".", 0), abi.EBUSY}, step{rename("f", "..", fs.RENAME_NOREPLACE), abi.EEXIST},
		step{rename("/", "x", 0), abi.EBUSY}, step{rename("f", "lf", fs.RENAME_NOREPLACE), abi.EEXIST},
		step{rename("f", "nope", fs.RENAME_EXCHANGE), abi.ENOENT}, step{rename("f", "d", fs.RENAME_NOREPLACE|fs.RENAME_EXCHANGE), abi.EINVAL},
		step{rename("f", "x", 8), abi.EINVAL}, ok(rename("f", "d/s/moved", 0)), ok(stat("d/s/moved")),
		ok(rename("lf", "d/lf", 0)), step{stat("d/lf"), abi.ENOENT}, ok(lstat("d/lf")),
		step{rename(long256, "x", 0), abi.ENAMETOOLONG}, step{rename("f2", long256, 0), abi.ENAMETOOLONG},
	)},
	{"rename directories", with(
		ok(mkdir("e")), ok(rename("d", "e", 0)), step{stat("d"), abi.ENOENT}, ok(stat("e/s")), ok(stat("/")),
		ok(mkdir("d")), ok(touch("d/x")), step{rename("e", "d", 0), abi.ENOTEMPTY}, step{rename("e", "f", 0), abi.ENOTDIR},
		step{rename("e", "e/s/x", 0), abi.EINVAL}, step{rename("e/s", "e", 0), abi.ENOTEMPTY}, step{rename("e", "e/s", 0), abi.EINVAL},
		step{rename("e/s", "e", fs.RENAME_EXCHANGE), abi.EINVAL}, ok(rename("e/", "g/", 0)), ok(stat("g")),
		ok(rename("g/s", "d/s", 0)), ok(stat("g")), ok(stat("d")), ok(rename("d/s", "d/s", 0)), ok(rename("g", "g", 0)),
		ok(rename("d", "f", fs.RENAME_EXCHANGE)), ok(stat("f/s")), ok(stat("d")), ok(rename("d", "f/s", fs.RENAME_EXCHANGE)),
		ok(stat("f")), ok(stat("f/s")), ok(stat("d")), ok(rename("f/s", "d/", fs.RENAME_EXCHANGE)),
		ok(rename("ld", "d2", 0)), step{stat("d2/"), abi.ENOTDIR}, ok(lstat("d2")),
	)},
	{"readlink", with(
		step{readlink("f", 10), abi.EINVAL}, step{readlink("missing", 10), abi.ENOENT}, step{readlink("lf", 0), abi.EINVAL},
		ok(readlink("lf", 10)), ok(readlink("dang", 3)), step{readlink("ld/", 10), abi.EINVAL}, step{readlink("lf/", 10), abi.ENOTDIR},
		step{readlink("", 10), abi.ENOENT}, ok(openf("dang", fs.O_PATH|fs.O_NOFOLLOW)),
		ok(op{Kind: "readlink", Path: "", N: 10, Dir: 2}), ok(openf("d", fs.O_RDONLY)),
		step{op{Kind: "readlink", Path: "", N: 10, Dir: 3}, abi.ENOENT},
	)},
	{"dirfd", with(
		ok(openf("d", fs.O_RDONLY)), ok(op{Kind: "stat", Path: "s", Dir: 2}), ok(op{Kind: "stat", Path: "..", Dir: 2}),
		ok(openf("f", fs.O_RDONLY)), step{op{Kind: "stat", Path: "x", Dir: 3}, abi.ENOTDIR}, ok(op{Kind: "stat", Path: "/f", Dir: 3}),
		ok(op{Kind: "stat", Path: "", Flags: fs.AT_EMPTY_PATH, Dir: 3}), step{op{Kind: "stat", Path: "", Dir: 3}, abi.ENOENT},
		ok(op{Kind: "mkdir", Path: "new", Mode: 0o700, Dir: 2}), ok(stat("d/new")),
		ok(op{Kind: "link", Path: "", Path2: "fl", Flags: fs.AT_EMPTY_PATH, Dir: 3, Dir2: 2}), ok(stat("d/fl")),
		step{op{Kind: "stat", Path: "x", Flags: 0x1, Dir: -1}, abi.EINVAL},
	)},
	{"files", with(
		ok(openf("h", fs.O_CREAT|fs.O_RDWR)), ok(write(2, 10000, "x")), ok(read(2, 0, 20)), ok(stat("h")), ok(read(2, 9990, 100)),
		ok(op{Kind: "fstat", H: 2}), ok(op{Kind: "ftruncate", H: 2, Off: 3}), ok(stat("h")), ok(read(2, 0, 10)),
		ok(op{Kind: "ftruncate", H: 2, Off: 1 << 20}), ok(read(2, 0, 10)), ok(stat("h")),
		ok(openf("h", fs.O_RDWR|fs.O_APPEND)), ok(write(3, 0, "tail")), ok(op{Kind: "fstat", H: 3}),
		ok(openf("f", fs.O_RDONLY)), step{write(4, 0, "x"), abi.EBADF}, step{op{Kind: "ftruncate", H: 4, Off: 0}, abi.EINVAL},
		ok(read(4, 0, 100)), ok(read(4, 5, 100)), ok(read(4, 500, 100)),
		ok(openf("d", fs.O_RDONLY)), step{read(5, 0, 10), abi.EISDIR}, step{op{Kind: "ftruncate", H: 5, Off: 0}, abi.EINVAL},
		ok(op{Kind: "truncate", Path: "lf", Off: 2}), ok(stat("f")), step{op{Kind: "truncate", Path: "d", Off: 0}, abi.EISDIR},
		step{op{Kind: "truncate", Path: "f", Off: -1}, abi.EINVAL}, step{op{Kind: "truncate", Path: "dang", Off: 0}, abi.ENOENT},
		ok(write(2, 4095, "ab")), ok(stat("h")), ok(read(2, 4090, 10)),
	)},
	{"unlinked open file", with(
		ok(openf("u", fs.O_CREAT|fs.O_RDWR)), ok(write(2, 0, "still here")), ok(unlink("u", 0)), step{stat("u"), abi.ENOENT},
		ok(read(2, 0, 100)), ok(op{Kind: "fstat", H: 2}), ok(write(2, 100, "more")), ok(op{Kind: "fstat", H: 2}),
		ok(op{Kind: "close", H: 2}), step{read(2, 0, 1), abi.EBADF},
		ok(openf("d/s", fs.O_RDONLY)), ok(unlink("d/s", fs.AT_REMOVEDIR)), ok(op{Kind: "fstat", H: 3}),
		step{op{Kind: "getdents", H: 3}, abi.ENOENT}, step{op{Kind: "stat", Path: "x", Dir: 3}, abi.ENOENT},
		ok(op{Kind: "stat", Path: ".", Dir: 3}), ok(op{Kind: "stat", Path: "..", Dir: 3}),
		step{op{Kind: "mkdir", Path: "x", Mode: 0o755, Dir: 3}, abi.ENOENT},
		step{op{Kind: "open", Path: "x", Flags: fs.O_CREAT, Dir: 3}, abi.ENOENT},
	)},
	{"getdents", with(
		ok(openf("d", fs.O_RDONLY)), ok(op{Kind: "getdents", H: 2}), ok(touch("d/a")), ok(mkdir("d/b")),
		ok(symlink("x", "d/c")), ok(op{Kind: "getdents", H: 2}), ok(unlink("d/a", 0)), ok(op{Kind: "getdents", H: 2}),
		ok(openf("f", fs.O_RDONLY)), step{op{Kind: "getdents", H: 4}, abi.ENOTDIR}, ok(openf("/", fs.O_RDONLY)),
		ok(op{Kind: "getdents", H: 5}), ok(touch(long255)), ok(op{Kind: "getdents", H: 5}),
	)},
	{"attributes", with(
		ok(op{Kind: "chmod", Path: "f", Mode: 0o4755, Dir: -1}), ok(stat("f")),
		ok(op{Kind: "chmod", Path: "lf", Mode: 0o600, Dir: -1}), ok(stat("f")), ok(lstat("lf")),
		step{op{Kind: "chmod", Path: "lf", Mode: 0o600, Flags: fs.AT_SYMLINK_NOFOLLOW, Dir: -1}, abi.EOPNOTSUPP},
		step{op{Kind: "chmod", Path: "f", Mode: 0o600, Flags: 1, Dir: -1}, abi.EINVAL},
		step{op{Kind: "access", Path: "f", Mode: fs.X_OK, Dir: -1}, abi.EACCES}, ok(op{Kind: "chmod", Path: "f", Mode: 0o744, Dir: -1}),
		ok(op{Kind: "access", Path: "f", Mode: fs.X_OK, Dir: -1}), ok(op{Kind: "chmod", Path: "f", Mode: 0o644, Dir: -1}),
		step{op{Kind: "access", Path: "f", Mode: fs.X_OK, Dir: -1}, abi.EACCES}, ok(op{Kind: "access", Path: "f", Mode: fs.R_OK | fs.W_OK, Dir: -1}),
		ok(op{Kind: "access", Path: "d", Mode: fs.X_OK, Dir: -1}), step{op{Kind: "access", Path: "f", Mode: 8, Dir: -1}, abi.EINVAL},
		step{op{Kind: "access", Path: "dang", Mode: 0, Dir: -1}, abi.ENOENT}, ok(op{Kind: "access", Path: "dang", Flags: fs.AT_SYMLINK_NOFOLLOW, Dir: -1}),
		ok(op{Kind: "utimens", Path: "f", Atime: fs.Timespec{Sec: 1, Nsec: 2}, Mtime: fs.Timespec{Sec: 3, Nsec: 4}, Dir: -1}),
		ok(op{Kind: "stat", Path: "f", Dir: -1, Times: true}),
		ok(op{Kind: "utimens", Path: "f", Atime: fs.Timespec{Nsec: fs.UTIME_OMIT}, Mtime: fs.Timespec{Sec: -5, Nsec: 6}, Dir: -1}),
		ok(op{Kind: "stat", Path: "f", Dir: -1, Times: true}),
		ok(op{Kind: "utimens", Path: "missing", Atime: fs.Timespec{Nsec: fs.UTIME_OMIT}, Mtime: fs.Timespec{Nsec: fs.UTIME_OMIT}, Dir: -1}),
		step{op{Kind: "utimens", Path: "f", Atime: fs.Timespec{Nsec: 1e9}, Dir: -1}, abi.EINVAL},
		step{op{Kind: "utimens", Path: "missing", Dir: -1}, abi.ENOENT},
		ok(op{Kind: "utimens", Path: "lf", Atime: fs.Timespec{Sec: 7}, Mtime: fs.Timespec{Sec: 8}, Flags: fs.AT_SYMLINK_NOFOLLOW, Dir: -1}),
		ok(op{Kind: "stat", Path: "lf", Flags: fs.AT_SYMLINK_NOFOLLOW, Dir: -1, Times: true}),
	)},
	{"mounts", with(
		ok(mkdir("mnt")), ok(op{Kind: "mount", Path: "mnt"}), ok(stat("mnt")), ok(lstat("mnt")), ok(stat("mnt/")),
		ok(mkdir("mnt/x")), ok(stat("mnt/x/../..")), ok(stat("mnt/..")), ok(stat("mnt/x/../../d")),
		step{unlink("mnt", fs.AT_REMOVEDIR), abi.EBUSY}, step{unlink("mnt", 0), abi.EISDIR},
		step{rename("mnt", "m2", 0), abi.EBUSY}, step{rename("d", "mnt", 0), abi.EBUSY}, step{rename("mnt", "d", fs.RENAME_EXCHANGE), abi.EBUSY},
		step{rename("f", "mnt/f", 0), abi.EXDEV}, step{rename("mnt/x", "x", 0), abi.EXDEV}, step{link("f", "mnt/g", 0), abi.EXDEV},
		step{mkdir("mnt"), abi.EEXIST}, ok(rename("mnt/x", "mnt/y", 0)), ok(symlink("../f", "mnt/up")), ok(stat("mnt/up")),
		ok(symlink("/d", "mnt/abs")), ok(stat("mnt/abs/s")), ok(openf("mnt/new", fs.O_CREAT|fs.O_RDWR)), ok(write(2, 0, "in mnt")),
		ok(rename("mnt/new", "mnt/y/new", 0)), step{unlink("mnt/y", fs.AT_REMOVEDIR), abi.ENOTEMPTY},
		ok(openf("mnt", fs.O_RDONLY)), ok(op{Kind: "stat", Path: "..", Dir: 3}), ok(op{Kind: "stat", Path: "../f", Dir: 3}),
		ok(op{Kind: "getdents", H: 3}), ok(symlink("mnt", "lm")), ok(stat("lm/y/new")), ok(stat("lm/y/../..")),
		ok(mkdir("mnt/sub")), ok(op{Kind: "mount", Path: "mnt/sub"}), ok(stat("mnt/sub/../y")), ok(stat("mnt/sub/../../f")),
		ok(op{Kind: "mount", Path: "mnt"}), step{stat("mnt/y"), abi.ENOENT}, ok(stat("mnt/..")), ok(stat("mnt")),
		ok(op{Kind: "stat", Path: "y", Dir: 3}),
	)},
	{"read-only", with(
		ok(mkdir("ro")), ok(op{Kind: "mount", Path: "ro"}), ok(mkdir("ro/d")), ok(mkdir("ro/d/e")),
		ok(touch("ro/f")), ok(write(2, 0, "data")), ok(op{Kind: "close", H: 2}), ok(symlink("f", "ro/l")),
		ok(symlink("nowhere", "ro/dang")), ok(op{Kind: "mknod", Path: "ro/p", Mode: fs.S_IFIFO | 0o666, Dir: -1}),
		ok(op{Kind: "utimens", Path: "ro/f", Atime: fs.Timespec{Sec: 1000}, Mtime: fs.Timespec{Sec: 2000}, Dir: -1}),
		ok(op{Kind: "statfsflags", Path: "ro/f"}), ok(op{Kind: "rdonly", Path: "ro"}),
		ok(op{Kind: "statfsflags", Path: "ro/f"}), ok(op{Kind: "statfsflags", Path: "f"}),
		// Creating: EEXIST and ENOENT come first, then EROFS.
		step{mkdir("ro/x"), abi.EROFS}, step{mkdir("ro/x/"), abi.EROFS}, step{mkdir("ro/d"), abi.EEXIST},
		step{mkdir("ro/missing/x"), abi.ENOENT}, step{mkdir("ro/f/x"), abi.ENOTDIR},
		step{op{Kind: "mknod", Path: "ro/n", Mode: fs.S_IFREG | 0o644, Dir: -1}, abi.EROFS},
		step{op{Kind: "mknod", Path: "ro/n/", Mode: fs.S_IFREG | 0o644, Dir: -1}, abi.ENOENT},
		step{symlink("x", "ro/s"), abi.EROFS}, step{symlink("x", "ro/f"), abi.EEXIST},
		step{link("ro/f", "ro/g", 0), abi.EROFS}, step{link("f", "ro/g", 0), abi.EROFS}, step{link("ro/f", "g", 0), abi.EXDEV},
		// Opening: reading works; writing, truncating and creating do not.
		ok(openf("ro/f", fs.O_RDONLY)), ok(read(3, 0, 10)), step{write(3, 0, "x"), abi.EBADF},
		step{op{Kind: "ftruncate", H: 3, Off: 1}, abi.EINVAL},
		step{openf("ro/f", fs.O_WRONLY), abi.EROFS}, step{openf("ro/f", fs.O_RDWR), abi.EROFS},
		step{openf("ro/f", fs.O_RDONLY|fs.O_TRUNC), abi.EROFS}, step{openf("ro/l", fs.O_WRONLY), abi.EROFS},
		step{openf("ro/new", fs.O_CREAT|fs.O_WRONLY), abi.EROFS}, step{openf("ro/new", fs.O_CREAT|fs.O_RDONLY), abi.EROFS},
		step{openf("ro/dang", fs.O_CREAT|fs.O_RDONLY), abi.EROFS}, ok(openf("ro/f", fs.O_CREAT|fs.O_RDONLY)),
		step{openf("ro/f", fs.O_CREAT|fs.O_EXCL|fs.O_RDONLY), abi.EEXIST}, step{openf("ro/d", fs.O_WRONLY), abi.EISDIR},
		step{openf("ro/l", fs.O_WRONLY|fs.O_NOFOLLOW), abi.ELOOP}, step{openf("ro/new/", fs.O_CREAT), abi.EISDIR},
		ok(openf("ro/f", fs.O_PATH|fs.O_WRONLY)), ok(openf("ro/d", fs.O_RDONLY)), ok(op{Kind: "getdents", H: 6}),
		ok(op{Kind: "stat", Path: "ro/f", Dir: -1, Times: true}), // the read left the access time alone
		// Removing and renaming: the checks of the name's type, then EROFS, then the rest.
		step{unlink("ro/f", 0), abi.EROFS}, step{unlink("ro/missing", 0), abi.EROFS}, step{unlink("ro/.", 0), abi.EISDIR},
		step{unlink("ro/d", fs.AT_REMOVEDIR), abi.EROFS}, step{unlink("ro/d/e", fs.AT_REMOVEDIR), abi.EROFS},
		step{unlink("ro/d/..", fs.AT_REMOVEDIR), abi.ENOTEMPTY}, step{unlink("ro/d/.", fs.AT_REMOVEDIR), abi.EINVAL},
		step{unlink("ro", fs.AT_REMOVEDIR), abi.EBUSY}, step{rename("ro", "ro2", 0), abi.EBUSY},
		step{rename("ro/f", "ro/g", 0), abi.EROFS}, step{rename("ro/missing", "ro/g", 0), abi.EROFS},
		step{rename("ro/f", "ro/d", fs.RENAME_EXCHANGE), abi.EROFS}, step{rename("ro/f", "g", 0), abi.EXDEV},
		step{rename("ro/d/..", "ro/g", 0), abi.EBUSY},
		// Attributes.
		step{op{Kind: "chmod", Path: "ro/f", Mode: 0o600, Dir: -1}, abi.EROFS},
		step{op{Kind: "chmod", Path: "ro", Mode: 0o700, Dir: -1}, abi.EROFS},
		step{op{Kind: "chmod", Path: "ro/missing", Mode: 0o700, Dir: -1}, abi.ENOENT},
		step{op{Kind: "utimens", Path: "ro/f", Dir: -1}, abi.EROFS},
		step{op{Kind: "utimens", Path: "ro/l", Flags: fs.AT_SYMLINK_NOFOLLOW, Dir: -1}, abi.EROFS},
		ok(op{Kind: "utimens", Path: "ro/f", Atime: fs.Timespec{Nsec: fs.UTIME_OMIT}, Mtime: fs.Timespec{Nsec: fs.UTIME_OMIT}, Dir: -1}),
		step{op{Kind: "truncate", Path: "ro/f", Off: 0}, abi.EROFS}, step{op{Kind: "truncate", Path: "ro/d", Off: 0}, abi.EISDIR},
		step{op{Kind: "truncate", Path: "ro/p", Off: 0}, abi.EINVAL},
		// Access: W_OK fails on files that are not special, after X_OK's own check.
		step{op{Kind: "access", Path: "ro/f", Mode: fs.W_OK, Dir: -1}, abi.EROFS},
		step{op{Kind: "access", Path: "ro/d", Mode: fs.W_OK, Dir: -1}, abi.EROFS},
		step{op{Kind: "access", Path: "ro/l", Mode: fs.W_OK, Flags: fs.AT_SYMLINK_NOFOLLOW, Dir: -1}, abi.EROFS},
		step{op{Kind: "access", Path: "ro/f", Mode: fs.W_OK | fs.X_OK, Dir: -1}, abi.EACCES},
		ok(op{Kind: "access", Path: "ro/p", Mode: fs.W_OK, Dir: -1}), ok(op{Kind: "access", Path: "ro/f", Mode: fs.R_OK, Dir: -1}),
		// A file system mounted on a read-only one's directory is writable; the rest of / too.
		ok(op{Kind: "mount", Path: "ro/d"}), ok(mkdir("ro/d/z")), ok(touch("ro/d/z/w")), ok(mkdir("rw")),
		ok(stat("ro/d/z/../..")),
	)},
	{"mknod", with(
		step{op{Kind: "mknod", Path: "x", Mode: fs.S_IFDIR | 0o755, Dir: -1}, abi.EPERM},
		step{op{Kind: "mknod", Path: "x", Mode: 0o170000 | 0o644, Dir: -1}, abi.EINVAL},
		step{op{Kind: "mknod", Path: "f", Mode: fs.S_IFDIR, Dir: -1}, abi.EPERM},
		ok(op{Kind: "mknod", Path: "null", Mode: fs.S_IFCHR | 0o666, Dev: fs.DevNull, Dir: -1}), ok(stat("null")),
		ok(op{Kind: "mknod", Path: "fifo", Mode: fs.S_IFIFO | 0o600, Dir: -1}), ok(stat("fifo")),
		ok(op{Kind: "mknod", Path: "reg", Mode: 0o640, Dir: -1}), ok(stat("reg")),
		ok(op{Kind: "mknod", Path: "sock", Mode: fs.S_IFSOCK | 0o600, Dir: -1}), ok(stat("sock")),
		ok(op{Kind: "mknod", Path: "blk", Mode: fs.S_IFBLK | 0o600, Dev: fs.Mkdev(8, 1), Dir: -1}), ok(stat("blk")),
		step{op{Kind: "mknod", Path: "null", Mode: fs.S_IFCHR, Dir: -1}, abi.EEXIST},
		step{op{Kind: "mknod", Path: "x/", Mode: 0o644, Dir: -1}, abi.ENOENT},
	)},
}

// TestOperations runs each scenario on a Namespace and checks every step's errno; with the
// Linux oracle available, also that Linux gives the same errno and results.
func TestOperations(t *testing.T) {
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			o := newOracle(t)
			m := newMem(t, memfs.Capacity{Bytes: 64 << 20, Inodes: 1000})
			for i, s := range sc.steps {
				got := m.do(s.op)
				if got.Errno != s.errno {
					t.Errorf("step %d %+v: errno %d, want %d", i, brief(s.op), got.Errno, s.errno)
				}
				if o == nil {
					continue
				}
				want := o.do(s.op)
				if want.Errno == -1 {
					t.Logf("step %d %+v: the oracle cannot do it; comparing with the table only from here on", i, brief(s.op))
					o = nil
					continue
				}
				if want.Errno != s.errno {
					t.Errorf("step %d %+v: Linux gives errno %d, the table says %d", i, brief(s.op), want.Errno, s.errno)
				}
				if !sameResult(s.op, got, want) {
					t.Errorf("step %d %+v: memfs %v, Linux %v", i, brief(s.op), got, want)
				}
			}
			if o != nil {
				if d := compareTrees(m.do(op{Kind: "dump"}).Tree, o.do(op{Kind: "dump"}).Tree); d != "" {
					t.Errorf("after the scenario: %s", d)
				}
			}
			m.closeAll()
			if err := m.pages.Err; err != nil {
				t.Error(err)
			}
		})
	}
}

// brief shortens long paths in messages.
func brief(o op) op {
	short := func(s string) string {
		if len(s) > 40 {
			return s[:20] + "..." + s[len(s)-10:] + "(" + itoa(len(s)) + ")"
		}
		return s
	}
	o.Path, o.Path2 = short(o.Path), short(o.Path2)
	return o
}

func (m *mem) closeAll() {
	for h, f := range m.files {
		m.ns.Release(m.pages, f.n)
		delete(m.files, h)
	}
}
