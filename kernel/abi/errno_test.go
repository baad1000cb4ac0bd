package abi

import (
	"syscall"
	"testing"
)

// TestErrnoIsLinux: every error number is the host Linux's (the asm-generic values, the same
// on amd64 and arm64).
func TestErrnoIsLinux(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want int
	}{
		{"EPERM", EPERM, int(syscall.EPERM)},
		{"ENOENT", ENOENT, int(syscall.ENOENT)},
		{"ESRCH", ESRCH, int(syscall.ESRCH)},
		{"EINTR", EINTR, int(syscall.EINTR)},
		{"EIO", EIO, int(syscall.EIO)},
		{"ENXIO", ENXIO, int(syscall.ENXIO)},
		{"E2BIG", E2BIG, int(syscall.E2BIG)},
		{"EBADF", EBADF, int(syscall.EBADF)},
		{"ECHILD", ECHILD, int(syscall.ECHILD)},
		{"EAGAIN", EAGAIN, int(syscall.EAGAIN)},
		{"ENOMEM", ENOMEM, int(syscall.ENOMEM)},
		{"EACCES", EACCES, int(syscall.EACCES)},
		{"EFAULT", EFAULT, int(syscall.EFAULT)},
		{"EBUSY", EBUSY, int(syscall.EBUSY)},
		{"EEXIST", EEXIST, int(syscall.EEXIST)},
		{"EXDEV", EXDEV, int(syscall.EXDEV)},
		{"ENODEV", ENODEV, int(syscall.ENODEV)},
		{"ENOTDIR", ENOTDIR, int(syscall.ENOTDIR)},
		{"EISDIR", EISDIR, int(syscall.EISDIR)},
		{"EINVAL", EINVAL, int(syscall.EINVAL)},
		{"ENFILE", ENFILE, int(syscall.ENFILE)},
		{"EMFILE", EMFILE, int(syscall.EMFILE)},
		{"ENOTTY", ENOTTY, int(syscall.ENOTTY)},
		{"EFBIG", EFBIG, int(syscall.EFBIG)},
		{"ENOSPC", ENOSPC, int(syscall.ENOSPC)},
		{"ESPIPE", ESPIPE, int(syscall.ESPIPE)},
		{"EROFS", EROFS, int(syscall.EROFS)},
		{"EMLINK", EMLINK, int(syscall.EMLINK)},
		{"EPIPE", EPIPE, int(syscall.EPIPE)},
		{"ERANGE", ERANGE, int(syscall.ERANGE)},
		{"ENAMETOOLONG", ENAMETOOLONG, int(syscall.ENAMETOOLONG)},
		{"ENOLCK", ENOLCK, int(syscall.ENOLCK)},
		{"ENOSYS", ENOSYS, int(syscall.ENOSYS)},
		{"ENOTEMPTY", ENOTEMPTY, int(syscall.ENOTEMPTY)},
		{"ELOOP", ELOOP, int(syscall.ELOOP)},
		{"ENODATA", ENODATA, int(syscall.ENODATA)},
		{"EPROTO", EPROTO, int(syscall.EPROTO)},
		{"EOVERFLOW", EOVERFLOW, int(syscall.EOVERFLOW)},
		{"ENOTSOCK", ENOTSOCK, int(syscall.ENOTSOCK)},
		{"EDESTADDRREQ", EDESTADDRREQ, int(syscall.EDESTADDRREQ)},
		{"EMSGSIZE", EMSGSIZE, int(syscall.EMSGSIZE)},
		{"ENOPROTOOPT", ENOPROTOOPT, int(syscall.ENOPROTOOPT)},
		{"EPROTONOSUPPORT", EPROTONOSUPPORT, int(syscall.EPROTONOSUPPORT)},
		{"ESOCKTNOSUPPORT", ESOCKTNOSUPPORT, int(syscall.ESOCKTNOSUPPORT)},
		{"EOPNOTSUPP", EOPNOTSUPP, int(syscall.EOPNOTSUPP)},
		{"EAFNOSUPPORT", EAFNOSUPPORT, int(syscall.EAFNOSUPPORT)},
		{"EADDRINUSE", EADDRINUSE, int(syscall.EADDRINUSE)},
		{"EADDRNOTAVAIL", EADDRNOTAVAIL, int(syscall.EADDRNOTAVAIL)},
		{"ENETUNREACH", ENETUNREACH, int(syscall.ENETUNREACH)},
		{"ENOBUFS", ENOBUFS, int(syscall.ENOBUFS)},
		{"EISCONN", EISCONN, int(syscall.EISCONN)},
		{"ENOTCONN", ENOTCONN, int(syscall.ENOTCONN)},
		{"ETIMEDOUT", ETIMEDOUT, int(syscall.ETIMEDOUT)},
		{"ECONNREFUSED", ECONNREFUSED, int(syscall.ECONNREFUSED)},
		{"EINPROGRESS", EINPROGRESS, int(syscall.EINPROGRESS)},
		{"ESTALE", ESTALE, int(syscall.ESTALE)},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, Linux says %d", c.name, c.got, c.want)
		}
	}
}

func TestNeg(t *testing.T) {
	if got := Neg(EINVAL); int64(got) != -22 {
		t.Fatalf("Neg(EINVAL) = %d, want -22", int64(got))
	}
	if Neg(0) != 0 {
		t.Fatal("Neg(0) is not 0")
	}
}

func TestErrnoOr(t *testing.T) {
	if ErrnoOr(0, 7) != 7 || ErrnoOr(ENOENT, 7) != Neg(ENOENT) {
		t.Fatalf("ErrnoOr: %d %d", ErrnoOr(0, 7), int64(ErrnoOr(ENOENT, 7)))
	}
}
