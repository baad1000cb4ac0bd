package kernel

import (
	"strings"

	"github.com/unitrace/unitrace/kernel/abi"
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/options"

	"github.com/unitrace/unitrace/kernel/fs"
	"github.com/unitrace/unitrace/kernel/fs/vfs"
)

// Name resolution: Go's own resolver reads /etc/hosts and /etc/resolv.conf, and asks the
// nameservers there over UDP and TCP, which are host sockets (sys_socket.go). So the guest
// asks the host's own nameservers, which the launcher names with unitrace.dns=ADDR[,ADDR...]
// (from the host's /etc/resolv.conf); a resolver on the host's loopback address, such as
// systemd-resolved's 127.0.0.53, is reached the same way. The kernel writes both files at boot
// unless the program's packed files brought its own, and /etc/hosts names localhost.
//
//	unitrace.dns=ADDR[,ADDR...]  the nameservers of /etc/resolv.conf

var (
	dnsWord   = -1
	etcDir    = [...]byte{'/', 'e', 't', 'c'}
	etcHosts  = [...]byte{'/', 'e', 't', 'c', '/', 'h', 'o', 's', 't', 's'}
	etcResolv = [...]byte{'/', 'e', 't', 'c', '/', 'r', 'e', 's', 'o', 'l', 'v', '.', 'c', 'o', 'n', 'f'}
	etcText   [512]byte
)

const hostsText = "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n"

func dnsOption(i int, o string) bool {
	if !strings.HasPrefix(o, "unitrace.dns=") {
		return false
	}
	dnsWord = i
	return true
}

// The accounts: the program runs as root (uid and gid 0, as getuid and getgid say), and Go's
// os/user, which reads /etc/passwd and /etc/group when it is built without cgo as unitrace
// programs are, finds it there, with Debian's base entries for root and nobody.
var (
	etcPasswd = [...]byte{'/', 'e', 't', 'c', '/', 'p', 'a', 's', 's', 'w', 'd'}
	etcGroup  = [...]byte{'/', 'e', 't', 'c', '/', 'g', 'r', 'o', 'u', 'p'}
)

const (
	passwdText = "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
	groupText  = "root:x:0:\nnogroup:x:65534:\n"
)

// initNetFiles writes /etc/hosts, /etc/passwd and /etc/group and, with unitrace.dns,
// /etc/resolv.conf.
func initNetFiles() {
	now := core.FSNow()
	root := core.RootNS.Root()
	at := vfs.At{Root: root, Dir: root}
	if errno := core.RootNS.Mkdir(&core.FSPages, at, etcDir[:], 0o755, now); errno != 0 && errno != abi.EEXIST {
		return
	}
	writeEtcFile(at, etcHosts[:], etcText[:copy(etcText[:], hostsText)], now)
	writeEtcFile(at, etcPasswd[:], etcText[:copy(etcText[:], passwdText)], now)
	writeEtcFile(at, etcGroup[:], etcText[:copy(etcText[:], groupText)], now)
	if dnsWord < 0 {
		return
	}
	n := 0
	list := options.Cmdline.Option(dnsWord)[len("unitrace.dns="):]
	for list != "" {
		var addr string
		addr, list, _ = strings.Cut(list, ",")
		if addr == "" || n+len(addr)+12 > len(etcText) {
			continue
		}
		n += copy(etcText[n:], "nameserver ")
		n += copy(etcText[n:], addr)
		n += copy(etcText[n:], "\n")
	}
	writeEtcFile(at, etcResolv[:], etcText[:n], now)
}

// writeEtcFile makes the file at path with text, unless it is there already (or its directory
// is read-only: packed files).
func writeEtcFile(at vfs.At, path, text []byte, now fs.Timespec) {
	n, _, errno := core.RootNS.Open(&core.FSPages, at, path, fs.O_CREAT|fs.O_EXCL|fs.O_WRONLY, 0o644, now)
	if errno != 0 {
		return
	}
	core.RootNS.Write(&core.FSPages, n, 0, text, false, now)
	core.RootNS.Release(&core.FSPages, n)
}
