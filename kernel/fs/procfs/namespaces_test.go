package procfs

import (
	"testing"

	"golang.org/x/sys/unix"
)

// TestNamespaceConstants checks the flags and ioctl numbers against golang.org/x/sys/unix's,
// which are generated from Linux's headers.
func TestNamespaceConstants(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want uint64
	}{
		{"cgroup", uint64(namespaceInfo[nsCgroup].clone), unix.CLONE_NEWCGROUP},
		{"ipc", uint64(namespaceInfo[nsIPC].clone), unix.CLONE_NEWIPC},
		{"mnt", uint64(namespaceInfo[nsMnt].clone), unix.CLONE_NEWNS},
		{"net", uint64(namespaceInfo[nsNet].clone), unix.CLONE_NEWNET},
		{"pid", uint64(namespaceInfo[nsPID].clone), unix.CLONE_NEWPID},
		{"time", uint64(namespaceInfo[nsTime].clone), unix.CLONE_NEWTIME},
		{"user", uint64(namespaceInfo[nsUser].clone), unix.CLONE_NEWUSER},
		{"uts", uint64(namespaceInfo[nsUTS].clone), unix.CLONE_NEWUTS},
		{"NS_GET_USERNS", NS_GET_USERNS, unix.NS_GET_USERNS},
		{"NS_GET_PARENT", NS_GET_PARENT, unix.NS_GET_PARENT},
		{"NS_GET_NSTYPE", NS_GET_NSTYPE, unix.NS_GET_NSTYPE},
		{"NS_GET_OWNER_UID", NS_GET_OWNER_UID, unix.NS_GET_OWNER_UID},
	} {
		if c.got != c.want {
			t.Errorf("%s = %#x, want %#x", c.name, c.got, c.want)
		}
	}
}

// TestNamespaceObjects checks that only the namespaces there are exist as files.
func TestNamespaceObjects(t *testing.T) {
	var f FS
	for o := range numNamespaces + 2 {
		if got := f.valid(ino(eNsObject, uint32(o))); got != (o < numNamespaces) {
			t.Errorf("namespace %d exists: %v", o, got)
		}
	}
}
