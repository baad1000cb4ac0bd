package main

import (
	"errors"
	"syscall"
)

// errnoNames name the errors the checks expect, so that lines show them as Linux does.
var errnoNames = map[syscall.Errno]string{
	syscall.ENOENT: "ENOENT", syscall.EEXIST: "EEXIST", syscall.ENOTEMPTY: "ENOTEMPTY",
	syscall.EISDIR: "EISDIR", syscall.ENOTDIR: "ENOTDIR", syscall.ENOSPC: "ENOSPC",
	syscall.EINVAL: "EINVAL", syscall.ELOOP: "ELOOP", syscall.EBADF: "EBADF", syscall.EXDEV: "EXDEV",
	syscall.ENAMETOOLONG: "ENAMETOOLONG", syscall.EFAULT: "EFAULT", syscall.ESPIPE: "ESPIPE",
	syscall.EPERM: "EPERM", syscall.EACCES: "EACCES", syscall.EPIPE: "EPIPE", syscall.EAGAIN: "EAGAIN",
	syscall.EIO: "EIO", syscall.ENXIO: "ENXIO",
}

// errnoName returns the name of the errno inside err: "nil" for none, "?" for one not listed.
func errnoName(err error) string {
	if err == nil {
		return "nil"
	}
	var e syscall.Errno
	if !errors.As(err, &e) {
		return "not an errno: " + err.Error()
	}
	if n, ok := errnoNames[e]; ok {
		return n
	}
	return "errno " + e.Error()
}

func isErrno(err error, name string) bool { return errnoName(err) == name }

// want returns an error unless err carries the errno named name.
func want(what string, err error, name string) error {
	if got := errnoName(err); got != name {
		return errors.New(what + ": got " + got + ", want " + name)
	}
	return nil
}
