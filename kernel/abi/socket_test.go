package abi

import (
	"syscall"
	"testing"
)

// TestSocketIsLinux: the socket constants are the host Linux's.
func TestSocketIsLinux(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want int
	}{
		{"AF_UNIX", AF_UNIX, syscall.AF_UNIX},
		{"AF_INET", AF_INET, syscall.AF_INET},
		{"AF_INET6", AF_INET6, syscall.AF_INET6},
		{"SOCK_STREAM", SOCK_STREAM, syscall.SOCK_STREAM},
		{"SOCK_DGRAM", SOCK_DGRAM, syscall.SOCK_DGRAM},
		{"SOCK_RAW", SOCK_RAW, syscall.SOCK_RAW},
		{"SOCK_SEQPACKET", SOCK_SEQPACKET, syscall.SOCK_SEQPACKET},
		{"SOCK_NONBLOCK", SOCK_NONBLOCK, syscall.SOCK_NONBLOCK},
		{"SOCK_CLOEXEC", SOCK_CLOEXEC, syscall.SOCK_CLOEXEC},
		{"MSG_PEEK", MSG_PEEK, syscall.MSG_PEEK},
		{"MSG_DONTWAIT", MSG_DONTWAIT, syscall.MSG_DONTWAIT},
		{"MSG_TRUNC", MSG_TRUNC, syscall.MSG_TRUNC},
		{"MSG_NOSIGNAL", MSG_NOSIGNAL, syscall.MSG_NOSIGNAL},
		{"SOL_SOCKET", SOL_SOCKET, syscall.SOL_SOCKET},
		{"SO_TYPE", SO_TYPE, syscall.SO_TYPE},
		{"SO_ERROR", SO_ERROR, syscall.SO_ERROR},
		{"SO_DOMAIN", SO_DOMAIN, syscall.SO_DOMAIN},
		{"SizeofMsghdr", SizeofMsghdr, syscall.SizeofMsghdr},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, Linux's is %d", c.name, c.got, c.want)
		}
	}
	// The type bits sit below the flags.
	if SOCK_TYPE_MASK&(SOCK_NONBLOCK|SOCK_CLOEXEC) != 0 || SOCK_SEQPACKET&^SOCK_TYPE_MASK != 0 {
		t.Error("SOCK_TYPE_MASK overlaps the flags or misses a type")
	}
}
