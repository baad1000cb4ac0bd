package procfs_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/unitrace/unitrace/kernel/abi"

	"golang.org/x/sys/unix"

	"github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/fs/procfs"
)

// TestNamespaceLinks follows each link of a process's and a thread's ns directory to its
// namespace: the text, the file it leads to, that file's inode number and kind.
func TestNamespaceLinks(t *testing.T) {
	r := newRig(t, "")
	r.x.AddThread(t, 9)
	for _, dir := range []string{"1/ns/", "1/task/9/ns/"} {
		for _, c := range []struct {
			name, text string
			clone      uint32
		}{
			{"cgroup", "cgroup:[4026531835]", unix.CLONE_NEWCGROUP},
			{"ipc", "ipc:[4026531839]", unix.CLONE_NEWIPC},
			{"mnt", "mnt:[4026531841]", unix.CLONE_NEWNS},
			{"net", "net:[4026531840]", unix.CLONE_NEWNET},
			{"pid", "pid:[4026531836]", unix.CLONE_NEWPID},
			{"pid_for_children", "pid:[4026531836]", unix.CLONE_NEWPID},
			{"time", "time:[4026531834]", unix.CLONE_NEWTIME},
			{"time_for_children", "time:[4026531834]", unix.CLONE_NEWTIME},
			{"user", "user:[4026531837]", unix.CLONE_NEWUSER},
			{"uts", "uts:[4026531838]", unix.CLONE_NEWUTS},
		} {
			link := r.ino(dir + c.name)
			buf := make([]byte, 64)
			k, errno := r.fs.Readlink(0, link, buf)
			if errno != 0 || string(buf[:k]) != c.text {
				t.Errorf("readlink %s%s = %q, %d; want %q", dir, c.name, buf[:k], errno, c.text)
			}
			if size, errno := r.fs.LinkLen(0, link); errno != 0 || size != int64(len(c.text)) {
				t.Errorf("link length of %s%s = %d, %d", dir, c.name, size, errno)
			}
			kind, node, _, errno := r.fs.Target(0, link)
			if errno != 0 || kind != procfs.TargetNS {
				t.Fatalf("target of %s%s = kind %d, errno %d; want TargetNS", dir, c.name, kind, errno)
			}
			st, errno := r.fs.Stat(node.Ino)
			want, err := strconv.ParseUint(c.text[strings.IndexByte(c.text, '[')+1:len(c.text)-1], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			if errno != 0 || st.Mode != fs.S_IFREG|0o444 || st.Ino != want {
				t.Errorf("stat of %s%s's namespace = %+v, %d; want a regular file 0444, inode %d", dir, c.name, st, errno, want)
			}
			if got, ok := r.fs.NamespaceType(node.Ino); !ok || got != c.clone {
				t.Errorf("type of %s%s's namespace = %#x, %v; want %#x", dir, c.name, got, ok, c.clone)
			}
			if k, ok := r.fs.NamespaceName(node.Ino, buf); !ok || string(buf[:k]) != c.text {
				t.Errorf("name of %s%s's namespace = %q, %v; want %q", dir, c.name, buf[:k], ok, c.text)
			}
			if r.fs.IsUserNamespace(node.Ino) != (c.name == "user") {
				t.Errorf("IsUserNamespace of %s%s's namespace is wrong", dir, c.name)
			}
			if _, errno := r.fs.Read(0, node.Ino, 0, buf, fs.Timespec{}, 0); errno != abi.EINVAL {
				t.Errorf("read of %s%s's namespace = errno %d, want EINVAL", dir, c.name, errno)
			}
		}
	}
	// No other file is a namespace, and no namespace past the last exists.
	if _, ok := r.fs.NamespaceType(r.ino("1/status")); ok {
		t.Error("1/status is a namespace")
	}
	if _, errno := r.walk("1/ns/nope"); errno != abi.ENOENT {
		t.Errorf("lookup 1/ns/nope = %d, want ENOENT", errno)
	}
}
