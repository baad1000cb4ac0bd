package fs

// Linux ABI numbers for files, the same on amd64 and arm64 but for two open flags (asm-generic
// values; linux_test.go checks them against the host's syscall package and the two arches'
// open flags against the toolchain's tables, and package vfs's tests use them in real system
// calls on the host).

// EQUEUED is no Linux errno a program ever sees: a file system that had to send a request to
// finish the call returns it (package p9fs), and the system call layer then waits for the
// reply and runs the call again. Its number is Linux's kernel-internal EIOCBQUEUED ("queued,
// will get a completion"), above every errno a system call returns.
const EQUEUED = 529

// EFDLINK is no Linux errno a program ever sees either: a path led through one of /proc's
// descriptor links (/proc/self/fd/N) to a descriptor that has no file behind it (a pipe, a
// socket, the console), which only the system call layer can open or stat (package vfs says
// which descriptor). Its number is the one after EQUEUED.
const EFDLINK = 530

// Limits (linux/limits.h, linux/namei.h).
const (
	PathMax     = 4096 // PATH_MAX: a path name's bytes including its terminating NUL
	NameMax     = 255  // NAME_MAX: the bytes of one path component
	MaxSymlinks = 40   // MAXSYMLINKS: symbolic links one path resolution may follow
)

// File type and permission bits of a mode (linux/stat.h).
const (
	S_IFMT   = 0o170000
	S_IFSOCK = 0o140000
	S_IFLNK  = 0o120000
	S_IFREG  = 0o100000
	S_IFBLK  = 0o060000
	S_IFDIR  = 0o040000
	S_IFCHR  = 0o020000
	S_IFIFO  = 0o010000
	S_ISUID  = 0o4000
	S_ISGID  = 0o2000
	S_ISVTX  = 0o1000

	// PermMask is the bits chmod and the mode of open and mknod may set (S_IALLUGO).
	PermMask = 0o7777
)

// Directory entry types of linux_dirent64's d_type (DT_*): the file type bits shifted down.
const (
	DT_UNKNOWN = 0
	DT_FIFO    = 1
	DT_CHR     = 2
	DT_DIR     = 4
	DT_BLK     = 6
	DT_REG     = 8
	DT_LNK     = 10
	DT_SOCK    = 12
)

// DirentType returns the d_type of a file of the given mode.
func DirentType(mode uint32) uint8 { return uint8(mode & S_IFMT >> 12) }

// Open flags (asm-generic/fcntl.h), but for O_DIRECTORY and O_NOFOLLOW, whose values arm64's
// arch/arm64/include/uapi/asm/fcntl.h moves (linux_amd64.go, linux_arm64.go).
const (
	O_ACCMODE  = 0o3
	O_RDONLY   = 0o0
	O_WRONLY   = 0o1
	O_RDWR     = 0o2
	O_CREAT    = 0o100
	O_EXCL     = 0o200
	O_NOCTTY   = 0o400
	O_TRUNC    = 0o1000
	O_APPEND   = 0o2000
	O_NONBLOCK = 0o4000
	O_CLOEXEC  = 0o2000000
	O_PATH     = 0o10000000
	O_TMPFILE  = 0o20000000 | O_DIRECTORY // __O_TMPFILE | O_DIRECTORY
)

// The two sets of the open flags that differ by architecture; linux_test.go checks both
// against the toolchain's syscall tables for linux/amd64 and linux/arm64.
const (
	genericODirectory = 0o200000 // asm-generic/fcntl.h: amd64
	genericONofollow  = 0o400000
	arm64ODirectory   = 0o40000 // arch/arm64/include/uapi/asm/fcntl.h
	arm64ONofollow    = 0o100000
)

// Flags of the *at system calls (linux/fcntl.h).
const (
	AT_FDCWD            = -100
	AT_SYMLINK_NOFOLLOW = 0x100
	AT_REMOVEDIR        = 0x200
	AT_SYMLINK_FOLLOW   = 0x400
	AT_NO_AUTOMOUNT     = 0x800
	AT_EMPTY_PATH       = 0x1000
	AT_EACCESS          = 0x200 // faccessat2: check with the effective ids
)

// Flags of renameat2 (linux/fs.h).
const (
	RENAME_NOREPLACE = 1 << 0
	RENAME_EXCHANGE  = 1 << 1
	RENAME_WHITEOUT  = 1 << 2
)

// Modes of access and faccessat (unistd.h).
const (
	F_OK = 0
	X_OK = 1
	W_OK = 2
	R_OK = 4
)

// Special nanosecond values of utimensat's times (linux/stat.h).
const (
	UTIME_NOW  = (1 << 30) - 1
	UTIME_OMIT = (1 << 30) - 2
)

// TmpfsMagic is statfs's f_type for tmpfs (TMPFS_MAGIC, include/uapi/linux/magic.h), which
// memfs reports as its own.
const TmpfsMagic = 0x01021994

// ProcMagic is statfs's f_type for /proc (PROC_SUPER_MAGIC, include/uapi/linux/magic.h).
const ProcMagic = 0x9fa0

// ST_RDONLY is the bit of statfs's f_flags that says the file system is mounted read-only
// (include/linux/statfs.h; the vfs tests check it against a read-only tmpfs).
const ST_RDONLY = 0x0001

// MaxFileSize is the largest size a file may have: MAX_LFS_FILESIZE on 64-bit Linux. Writes
// that would pass it fail with EFBIG.
const MaxFileSize = 1<<63 - 1

// Character devices the kernel serves itself (Documentation/admin-guide/devices.txt, major 1),
// as Mkdev numbers (constants, so they hold before package initialisation runs) for the rdev of
// a character-device inode.
const (
	DevNull    = 1<<8 | 3 // Mkdev(1, 3)
	DevZero    = 1<<8 | 5
	DevFull    = 1<<8 | 7
	DevRandom  = 1<<8 | 8
	DevURandom = 1<<8 | 9
	DevTTY     = 5<<8 | 0 // Mkdev(5, 0): the process's controlling terminal, the console here
)

// Mkdev encodes a device number as stat's st_rdev and st_dev carry it (the kernel's
// new_encode_dev, glibc's makedev): minor's low byte, then 12 bits of major, then the rest of
// minor.
func Mkdev(major, minor uint32) uint64 {
	return uint64(minor&0xff) | uint64(major&0xfff)<<8 | uint64(minor&^0xff)<<12 | uint64(major&^0xfff)<<32
}
