package p9

import "github.com/unitrace/unitrace/kernel/fs"

// Linux open(2) flags that differ between architectures: asm-generic/fcntl.h, which amd64 uses,
// has the values 9P2000.L adopted (the Dotl* flags); arm64's asm/fcntl.h moves these four.
// TestOpenFlagBits checks both sets, and the running architecture's against package syscall.
type archOpenBits struct{ direct, largefile, directory, nofollow uint32 }

var (
	genericOpenBits = archOpenBits{direct: 0o40000, largefile: 0o100000, directory: 0o200000, nofollow: 0o400000}
	arm64OpenBits   = archOpenBits{direct: 0o200000, largefile: 0o400000, directory: 0o40000, nofollow: 0o100000}
)

// Linux open(2) flags package fs does not define, the same on every architecture
// (asm-generic/fcntl.h).
const (
	oDsync   = 0o10000
	oSyncBit = 0o4000000 // __O_SYNC: O_SYNC is this with O_DSYNC
	oNoatime = 0o1000000
)

// OpenFlags translates the running architecture's open(2) flags into Tlopen flags: the access
// mode, O_TRUNC, O_APPEND, O_NONBLOCK, the sync, direct, directory, no-follow, no-atime and
// large-file bits. O_CREAT and O_EXCL are left out (Tlopen never creates; Create adds them),
// and so are the flags that only concern the caller's descriptor or terminal (O_CLOEXEC,
// O_NOCTTY, O_ASYNC) and those 9P cannot express (O_PATH, O_TMPFILE): the system-call layer
// deals with those itself. Linux's v9fs_open_to_dotl_flags maps the same bits.
func OpenFlags(linux uint32) uint32 { return openFlags(linux, openBits) }

func openFlags(linux uint32, arch archOpenBits) uint32 {
	dotl := linux & fs.O_ACCMODE
	for _, m := range [...]struct{ from, to uint32 }{
		{fs.O_TRUNC, DotlTrunc},
		{fs.O_APPEND, DotlAppend},
		{fs.O_NONBLOCK, DotlNonblock},
		{oDsync, DotlDsync},
		{oSyncBit, DotlSync},
		{oNoatime, DotlNoatime},
		{arch.direct, DotlDirect},
		{arch.largefile, DotlLargefile},
		{arch.directory, DotlDirectory},
		{arch.nofollow, DotlNofollow},
	} {
		if linux&m.from != 0 {
			dotl |= m.to
		}
	}
	return dotl
}
