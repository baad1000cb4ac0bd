package fs

import (
	"testing"

	"github.com/unitrace/unitrace/kernel/abi"
)

func TestCheckXattrName(t *testing.T) {
	for _, c := range []struct {
		name  string
		class XattrClass
		errno int
	}{
		{"user.a", XattrUser, 0},
		{"trusted.a", XattrTrusted, 0},
		{"security.selinux", XattrSecurity, 0},
		{"user.", 0, abi.EINVAL},
		{"trusted.", 0, abi.EINVAL},
		{"system.posix_acl_access", 0, abi.EOPNOTSUPP},
		{"foo", 0, abi.EOPNOTSUPP},
		{"user", 0, abi.EOPNOTSUPP},
	} {
		class, errno := CheckXattrName([]byte(c.name))
		if class != c.class || errno != c.errno {
			t.Errorf("%q: %d, %d; want %d, %d", c.name, class, errno, c.class, c.errno)
		}
	}
	if XattrTypeCheck(XattrUser, S_IFLNK|0o777, false) != abi.ENODATA || XattrTypeCheck(XattrUser, S_IFIFO, true) != abi.EPERM ||
		XattrTypeCheck(XattrUser, S_IFDIR, true) != 0 || XattrTypeCheck(XattrTrusted, S_IFLNK, true) != 0 {
		t.Error("user.* is for regular files and directories only")
	}
}
