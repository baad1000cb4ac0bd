package procfs

import "github.com/unitrace/unitrace/kernel/fs"

// Namespaces. The process lives in one namespace of each kind, Linux's initial ones, and can make
// no other. /proc/<pid>/ns (and a thread's) holds a magic link per kind, whose text names the
// kind and its namespace's inode number ("mnt:[4026531841]") and which leads to the namespace
// itself: a file of its own (nsfs's on Linux) whose inode number is that number, whose one use is
// ioctl (NS_GET_NSTYPE and its kin) and setns. pid_for_children and time_for_children lead to the
// pid and time namespaces, as they do in a process that has not unshared.

// nsObject is a namespace: the file the links lead to.
type nsObject uint8

const (
	nsCgroup nsObject = iota
	nsIPC
	nsMnt
	nsNet
	nsPID
	nsTime
	nsUser
	nsUTS
	numNamespaces
)

// namespaceInfo is what Linux says of an initial namespace.
var namespaceInfo = [numNamespaces]struct {
	name  string // the kind in the link text
	ino   uint64 // the namespace's inode number
	clone uint32 // the CLONE_NEW* flag of its kind: NS_GET_NSTYPE's answer
}{
	// The numbers are Linux's PROC_*_INIT_INO (include/linux/proc_ns.h) but for mnt and net,
	// which Linux numbers as it boots: these are the numbers they get on a booted Linux. The
	// flags are include/uapi/linux/sched.h's.
	nsCgroup: {"cgroup", 0xEFFFFFFB, 0x02000000},
	nsIPC:    {"ipc", 0xEFFFFFFF, 0x08000000},
	nsMnt:    {"mnt", 0xF0000001, 0x00020000},
	nsNet:    {"net", 0xF0000000, 0x40000000},
	nsPID:    {"pid", 0xEFFFFFFC, 0x20000000},
	nsTime:   {"time", 0xEFFFFFFA, 0x00000080},
	nsUser:   {"user", 0xEFFFFFFD, 0x10000000},
	nsUTS:    {"uts", 0xEFFFFFFE, 0x04000000},
}

// The ioctls of a namespace file, from include/uapi/linux/nsfs.h (_IO(0xb7, n)).
const (
	NS_GET_USERNS    = 0xb701 // a descriptor of the owning user namespace
	NS_GET_PARENT    = 0xb702 // a descriptor of the parent namespace
	NS_GET_NSTYPE    = 0xb703 // the kind's CLONE_NEW* flag
	NS_GET_OWNER_UID = 0xb704 // the uid that owns a user namespace, written at arg
)

// nsDir is /proc/<pid>/ns, in the order Linux lists it.
var nsDir = [...]dirent{
	{"cgroup", eNsCgroup, linkMode},
	{"ipc", eNsIPC, linkMode},
	{"mnt", eNsMnt, linkMode},
	{"net", eNsNet, linkMode},
	{"pid", eNsPID, linkMode},
	{"pid_for_children", eNsPIDChildren, linkMode},
	{"time", eNsTime, linkMode},
	{"time_for_children", eNsTimeChildren, linkMode},
	{"user", eNsUser, linkMode},
	{"uts", eNsUTS, linkMode},
}

// nsLinkTarget is the namespace link entry e leads to.
func nsLinkTarget(e entry) nsObject {
	switch e {
	case eNsCgroup:
		return nsCgroup
	case eNsIPC:
		return nsIPC
	case eNsMnt:
		return nsMnt
	case eNsNet:
		return nsNet
	case eNsPID, eNsPIDChildren:
		return nsPID
	case eNsTime, eNsTimeChildren:
		return nsTime
	case eNsUser:
		return nsUser
	}
	return nsUTS
}

func isNsLink(e entry) bool { return e >= eNsCgroup && e <= eNsUTS }

// nsObjectMode is a namespace file's: nsfs makes them regular files anyone may read.
const nsObjectMode = fs.S_IFREG | 0o444

// nsLinkText writes the text of a link to namespace o: "mnt:[4026531841]".
func nsLinkText(o nsObject, t *text) {
	t.str(namespaceInfo[o].name)
	t.str(":[")
	t.dec(namespaceInfo[o].ino)
	t.byte(']')
}

// NamespaceType reports whether inode n is a namespace file, and its kind's CLONE_NEW* flag.
func (f *FS) NamespaceType(n uint32) (clone uint32, ok bool) {
	e, arg := split(n)
	if e != eNsObject || !f.valid(n) {
		return 0, false
	}
	return namespaceInfo[arg].clone, true
}

// IsUserNamespace reports whether inode n is the user namespace's file.
func (f *FS) IsUserNamespace(n uint32) bool {
	e, arg := split(n)
	return e == eNsObject && f.valid(n) && nsObject(arg) == nsUser
}

// UserNamespaceIno is the inode number of the user namespace's file, which owns every other:
// what NS_GET_USERNS opens.
func UserNamespaceIno() uint32 { return ino(eNsObject, uint32(nsUser)) }

// NamespaceName writes the name of namespace file n into dst (cut to fit), "mnt:[4026531841]",
// which is what a link to it reads (/proc/<pid>/fd/<n> of a descriptor that has it open), and
// reports whether n is one.
func (f *FS) NamespaceName(n uint32, dst []byte) (int, bool) {
	e, arg := split(n)
	if e != eNsObject || !f.valid(n) {
		return 0, false
	}
	t := newText(dst, 0)
	nsLinkText(nsObject(arg), &t)
	return t.n(), true
}
