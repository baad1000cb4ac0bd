package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// checkNs: namespaces as a program finds out where it runs. Each link of /proc/self/ns reads
// "<kind>:[<inode>]", the file it opens has that inode number and answers NS_GET_NSTYPE with its
// kind; NS_GET_USERNS opens the user namespace; reading such a file, and asking a file that is
// none, are Linux's errors; setns into the process's own UTS namespace works for root.
func checkNs() (string, error) {
	kinds := []struct {
		name  string
		clone int
	}{
		{"cgroup", unix.CLONE_NEWCGROUP}, {"ipc", unix.CLONE_NEWIPC}, {"mnt", unix.CLONE_NEWNS},
		{"net", unix.CLONE_NEWNET}, {"pid", unix.CLONE_NEWPID}, {"pid_for_children", unix.CLONE_NEWPID},
		{"time", unix.CLONE_NEWTIME}, {"time_for_children", unix.CLONE_NEWTIME},
		{"user", unix.CLONE_NEWUSER}, {"uts", unix.CLONE_NEWUTS},
	}
	for _, k := range kinds {
		path := "/proc/self/ns/" + k.name
		text, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		kind := strings.TrimSuffix(k.name, "_for_children")
		num, ok := strings.CutPrefix(text, kind+":[")
		ino, err := strconv.ParseUint(strings.TrimSuffix(num, "]"), 10, 64)
		if !ok || !strings.HasSuffix(num, "]") || err != nil {
			return "", fmt.Errorf("readlink %s = %q", path, text)
		}
		f, err := os.Open(path)
		if err != nil {
			return "", err
		}
		defer f.Close()
		var st unix.Stat_t
		if err := unix.Fstat(int(f.Fd()), &st); err != nil || st.Ino != ino || st.Mode != unix.S_IFREG|0o444 {
			return "", fmt.Errorf("fstat of %s: %v, inode %d, mode %o; want inode %d, mode %o", path, err, st.Ino, st.Mode, ino, unix.S_IFREG|0o444)
		}
		if v, err := unix.IoctlRetInt(int(f.Fd()), unix.NS_GET_NSTYPE); err != nil || v != k.clone {
			return "", fmt.Errorf("NS_GET_NSTYPE on %s = %#x, %v; want %#x", path, v, err, k.clone)
		}
	}
	mnt, err := os.Open("/proc/self/ns/mnt")
	if err != nil {
		return "", err
	}
	defer mnt.Close()
	want, _ := os.Readlink("/proc/self/ns/mnt")
	if got, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", mnt.Fd())); err != nil || got != want {
		return "", fmt.Errorf("readlink of the mount namespace's descriptor = %q, %v; want %q", got, err, want)
	}
	user, err := unix.IoctlRetInt(int(mnt.Fd()), unix.NS_GET_USERNS)
	if err != nil {
		return "", fmt.Errorf("NS_GET_USERNS: %v", err)
	}
	defer unix.Close(user)
	if v, err := unix.IoctlRetInt(user, unix.NS_GET_NSTYPE); err != nil || v != unix.CLONE_NEWUSER {
		return "", fmt.Errorf("NS_GET_USERNS opened a namespace of kind %#x, %v", v, err)
	}
	if fl, err := unix.FcntlInt(uintptr(user), unix.F_GETFD, 0); err != nil || fl&unix.FD_CLOEXEC == 0 {
		return "", fmt.Errorf("NS_GET_USERNS's descriptor has flags %#x, %v; want FD_CLOEXEC", fl, err)
	}
	if _, err := unix.Read(int(mnt.Fd()), make([]byte, 8)); err != unix.EINVAL {
		return "", fmt.Errorf("read of a namespace: %v, want EINVAL", err)
	}
	if _, err := unix.IoctlRetInt(int(mnt.Fd()), unix.NS_GET_PARENT); err != unix.EINVAL {
		return "", fmt.Errorf("NS_GET_PARENT of the mount namespace: %v, want EINVAL", err)
	}
	if _, err := unix.IoctlRetInt(user, unix.NS_GET_PARENT); err != unix.EPERM {
		return "", fmt.Errorf("NS_GET_PARENT of the initial user namespace: %v, want EPERM", err)
	}
	if _, err := unix.IoctlRetInt(int(mnt.Fd()), unix.NS_GET_OWNER_UID); err != unix.EINVAL {
		return "", fmt.Errorf("NS_GET_OWNER_UID of a mount namespace: %v, want EINVAL", err)
	}
	if _, err := unix.IoctlRetInt(int(mnt.Fd()), unix.TCGETS); err != unix.ENOTTY {
		return "", fmt.Errorf("TCGETS on a namespace: %v, want ENOTTY", err)
	}
	if err := unix.Setns(int(os.Stdout.Fd()), 0); err != unix.EINVAL {
		return "", fmt.Errorf("setns on standard output: %v, want EINVAL", err)
	}
	if err := unix.Setns(int(mnt.Fd()), unix.CLONE_NEWUTS); err != unix.EINVAL {
		return "", fmt.Errorf("setns of a mount namespace as UTS: %v, want EINVAL", err)
	}
	detail := ""
	if os.Geteuid() == 0 {
		uts, err := os.Open("/proc/self/ns/uts")
		if err != nil {
			return "", err
		}
		defer uts.Close()
		if err := unix.Setns(int(uts.Fd()), unix.CLONE_NEWUTS); err != nil {
			return "", fmt.Errorf("setns into the own UTS namespace: %v", err)
		}
		detail = ", setns into its own UTS namespace"
	}
	return "10 links, their namespaces' inodes and kinds" + detail, nil
}
