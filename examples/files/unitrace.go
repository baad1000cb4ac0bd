package main

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"syscall"
)

// What only a unitrace image has.

// noSys: nothing under /sys, and none of the files the Go runtime probes at start (its cgroup,
// the huge page size), which it then does without.
func noSys(dir string) (string, error) {
	_, c := os.Open("/proc/self/cgroup")
	_, s := os.Stat("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size")
	return fmt.Sprintf("/proc/self/cgroup %s, /sys %s", errnoName(c), errnoName(s)), nil
}

// users: os/user finds the user the program runs as (root, by getuid) and nobody in the
// /etc/passwd and /etc/group the kernel writes at boot.
func users(dir string) (string, error) {
	me, err := user.Current()
	if err != nil {
		return "", err
	}
	nobody, err := user.Lookup("nobody")
	if err != nil {
		return "", err
	}
	group, err := user.LookupGroupId(me.Gid)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("current %s uid %s gid %s home %s, getuid %d, nobody uid %s, group %s %s",
		me.Username, me.Uid, me.Gid, me.HomeDir, os.Getuid(), nobody.Uid, group.Name, group.Gid), nil
}

const tmpfsMagic = 0x01021994

func statfs(dir string) (string, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs("/", &st); err != nil {
		return "", err
	}
	return fmt.Sprintf("/ is tmpfs %v, block size %d, names up to %d bytes", st.Type == tmpfsMagic, st.Bsize, st.Namelen), nil
}

// fillMiB is the capacity the VM test gives the file system (unitrace.fsmem=16M).
const fillMiB = 16

// fill writes a file in /tmp until the file system is full, then removes it and writes again.
func fill(dir string) (string, error) {
	p := filepath.Join("/tmp", "fill")
	f, err := os.Create(p)
	if err != nil {
		return "", err
	}
	chunk := make([]byte, 64<<10)
	var written int64
	for written <= 2*fillMiB<<20 {
		n, err := f.Write(chunk)
		written += int64(n)
		if err != nil {
			if !isErrno(err, "ENOSPC") {
				f.Close()
				return "", fmt.Errorf("after %d bytes: %v", written, err)
			}
			break
		}
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	inRange := written > fillMiB<<20/2 && written <= fillMiB<<20
	if err := os.Remove(p); err != nil {
		return "", err
	}
	again := filepath.Join("/tmp", "again")
	err = os.WriteFile(again, make([]byte, fillMiB<<20/2), 0o644)
	os.Remove(again)
	return fmt.Sprintf("ENOSPC between half and all of %d MiB %v, room again after the remove %v", fillMiB, inRange, err == nil), nil
}
