package fs

import "github.com/unitrace/unitrace/kernel/abi"

// Extended attribute names and flags (linux/xattr.h, limits.h).
const (
	XATTR_CREATE   = 1
	XATTR_REPLACE  = 2
	XATTR_NAME_MAX = 255
	XATTR_SIZE_MAX = 65536
	XATTR_LIST_MAX = 65536
)

// XattrClass is what a name's namespace prefix says of an attribute.
type XattrClass uint8

const (
	XattrUser     XattrClass = iota + 1 // user.*: regular files and directories only
	XattrTrusted                        // trusted.*: root's, which the program is
	XattrSecurity                       // security.*
)

// CheckXattrName checks an attribute name (1 to XATTR_NAME_MAX bytes: the caller has checked
// that) as Linux's xattr_resolve_name does for tmpfs, which stores the user, trusted and
// security namespaces: a known prefix with nothing after it is EINVAL; system.* (POSIX ACLs,
// which tmpfs keeps as an inode's mode here) and names in no namespace EOPNOTSUPP.
func CheckXattrName(name []byte) (XattrClass, int) {
	for _, ns := range [...]struct {
		prefix string
		class  XattrClass
	}{{"user.", XattrUser}, {"trusted.", XattrTrusted}, {"security.", XattrSecurity}} {
		if len(name) >= len(ns.prefix) && string(name[:len(ns.prefix)]) == ns.prefix {
			if len(name) == len(ns.prefix) {
				return 0, abi.EINVAL
			}
			return ns.class, 0
		}
	}
	return 0, abi.EOPNOTSUPP
}

// XattrTypeCheck is Linux's xattr_permission rule for user.* attributes: only regular files and
// directories have them; reading another file's is ENODATA, writing it EPERM.
func XattrTypeCheck(class XattrClass, mode uint32, write bool) int {
	if class != XattrUser {
		return 0
	}
	if t := mode & S_IFMT; t == S_IFREG || t == S_IFDIR {
		return 0
	}
	if write {
		return abi.EPERM
	}
	return abi.ENODATA
}
