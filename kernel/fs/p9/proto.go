package p9

// Type is a 9P message type: the byte after the size field. A reply's type is its request's
// plus one.
type Type uint8

// The 9P2000.L message types a client sends and the replies it accepts. The numbers are Linux's
// enum p9_msg_t (include/net/9p/9p.h), which QEMU's server (hw/9pfs) shares; the 9P2000.L
// messages (Tlerror through Runlinkat) are the Linux extension, the rest come from 9P2000
// (Plan 9's intro(5)). TestTypeNumbers pins them.
const (
	Rlerror   Type = 7 // Tlerror (6) is never sent
	Tstatfs   Type = 8
	Rstatfs   Type = 9
	Tlopen    Type = 12
	Rlopen    Type = 13
	Tlcreate  Type = 14
	Rlcreate  Type = 15
	Tsymlink  Type = 16
	Rsymlink  Type = 17
	Treadlink Type = 22
	Rreadlink Type = 23
	Tgetattr  Type = 24
	Rgetattr  Type = 25
	Tsetattr  Type = 26
	Rsetattr  Type = 27
	Treaddir  Type = 40
	Rreaddir  Type = 41
	Tfsync    Type = 50
	Rfsync    Type = 51
	Tlink     Type = 70
	Rlink     Type = 71
	Tmkdir    Type = 72
	Rmkdir    Type = 73
	Trenameat Type = 74
	Rrenameat Type = 75
	Tunlinkat Type = 76
	Runlinkat Type = 77
	Tversion  Type = 100
	Rversion  Type = 101
	Tattach   Type = 104
	Rattach   Type = 105
	Rerror    Type = 107 // 9P2000's string error: a 9P2000.L server never sends it
	Tflush    Type = 108
	Rflush    Type = 109
	Twalk     Type = 110
	Rwalk     Type = 111
	Tread     Type = 116
	Rread     Type = 117
	Twrite    Type = 118
	Rwrite    Type = 119
	Tclunk    Type = 120
	Rclunk    Type = 121
	Tremove   Type = 122
	Rremove   Type = 123
)

// Protocol constants (include/net/9p/9p.h; the version string and the minimum msize are what
// net/9p/client.c's p9_client_version sends and accepts).
const (
	// Version is the protocol Tversion proposes and Rversion must echo.
	Version = "9P2000.L"
	// NoTag is the tag of Tversion (P9_NOTAG), never used for another request.
	NoTag uint16 = 0xffff
	// NoFid means "no fid" (P9_NOFID): Tattach's afid when there is no authentication.
	NoFid uint32 = 0xffffffff
	// NoUname is Tattach's n_uname when the numeric user is unknown (P9_NONUNAME).
	NoUname uint32 = 0xffffffff
	// MaxWalk is the most names one Twalk carries (P9_MAXWELEM); longer paths take several.
	MaxWalk = 16
	// MinMsize is the smallest message size a Linux client negotiates (4 KiB).
	MinMsize = 4096
	// IOHeaderSize is room for the header of Twrite and Rread (P9_IOHDRSZ): a read or write moves
	// at most msize-IOHeaderSize bytes.
	IOHeaderSize = 24
	// ReaddirHeaderSize is the same room for Rreaddir (P9_READDIRHDRSZ).
	ReaddirHeaderSize = 24
)

// HeaderSize is the header every message starts with: size[4] type[1] tag[2]. The size counts
// the whole message, itself included; integers are little-endian.
const HeaderSize = 7

// QidSize is the wire size of a qid: type[1] version[4] path[8].
const QidSize = 13

// Qid is the server's identity of a file: its type bits, a version that changes when the file
// does, and a path unique among the server's files (QEMU derives it from the inode number).
type Qid struct {
	Type    uint8
	Version uint32
	Path    uint64
}

// Qid type bits (enum p9_qid_t). A plain file has none.
const (
	QTDIR     = 0x80
	QTAPPEND  = 0x40
	QTEXCL    = 0x20
	QTMOUNT   = 0x10
	QTAUTH    = 0x08
	QTTMP     = 0x04
	QTSYMLINK = 0x02
	QTLINK    = 0x01
	QTFILE    = 0x00
)

// Tgetattr request_mask and Rgetattr valid bits (P9_GETATTR_*): which fields are asked for, and
// which the server filled.
const (
	GetattrMode        = 0x00000001
	GetattrNlink       = 0x00000002
	GetattrUid         = 0x00000004
	GetattrGid         = 0x00000008
	GetattrRdev        = 0x00000010
	GetattrAtime       = 0x00000020
	GetattrMtime       = 0x00000040
	GetattrCtime       = 0x00000080
	GetattrIno         = 0x00000100
	GetattrSize        = 0x00000200
	GetattrBlocks      = 0x00000400
	GetattrBtime       = 0x00000800
	GetattrGen         = 0x00001000
	GetattrDataVersion = 0x00002000
	GetattrBasic       = 0x000007ff // everything stat(2) reports: mode through blocks
	GetattrAll         = 0x00003fff
)

// Tsetattr valid bits (P9_SETATTR_*, which are Linux's ATTR_* from include/linux/fs.h). A time
// bit without its _SET bit means "now" (utimensat's UTIME_NOW); with it, the time given.
const (
	SetattrMode     = 0x00000001
	SetattrUid      = 0x00000002
	SetattrGid      = 0x00000004
	SetattrSize     = 0x00000008
	SetattrAtime    = 0x00000010
	SetattrMtime    = 0x00000020
	SetattrCtime    = 0x00000040
	SetattrAtimeSet = 0x00000080
	SetattrMtimeSet = 0x00000100
)

// Tlopen and Tlcreate flags (P9_DOTL_*): Linux's generic open flags, the same on every
// architecture, which OpenFlags translates the running architecture's O_* flags into.
const (
	DotlRdonly    = 0o0
	DotlWronly    = 0o1
	DotlRdwr      = 0o2
	DotlNoaccess  = 0o3
	DotlAccmode   = 0o3
	DotlCreate    = 0o100
	DotlExcl      = 0o200
	DotlNoctty    = 0o400
	DotlTrunc     = 0o1000
	DotlAppend    = 0o2000
	DotlNonblock  = 0o4000
	DotlDsync     = 0o10000
	DotlFasync    = 0o20000
	DotlDirect    = 0o40000
	DotlLargefile = 0o100000
	DotlDirectory = 0o200000
	DotlNofollow  = 0o400000
	DotlNoatime   = 0o1000000
	DotlCloexec   = 0o2000000
	DotlSync      = 0o4000000
)

// AtRemovedir is Tunlinkat's flag to remove a directory (P9_DOTL_AT_REMOVEDIR, Linux's
// AT_REMOVEDIR).
const AtRemovedir = 0x200
