package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/unitrace/unitrace/internal/hostnet"
)

// netSocket is the net port's socket, in a temporary directory of its own.
const netSocket = "net.sock"

// listenFlag is -listen GUESTPORT=HOSTADDR:PORT, repeatable.
type listenFlag map[uint16]netip.AddrPort

func (l listenFlag) String() string {
	var w []string
	for g, h := range l {
		w = append(w, fmt.Sprintf("%d=%s", g, h))
	}
	return strings.Join(w, ",")
}

func (l listenFlag) Set(s string) error {
	g, h, ok := strings.Cut(s, "=")
	if !ok {
		return fmt.Errorf("want GUESTPORT=HOSTADDR:PORT, got %q", s)
	}
	port, err := strconv.ParseUint(g, 10, 16)
	if err != nil || port == 0 {
		return fmt.Errorf("guest port %q: want 1..65535", g)
	}
	ap, err := netip.ParseAddrPort(h)
	if err != nil {
		return fmt.Errorf("host address %q: %v", h, err)
	}
	l[uint16(port)] = ap
	return nil
}

// hostResolvConf is where the host names its nameservers.
const hostResolvConf = "/etc/resolv.conf"

// dnsWord is the kernel option naming the host's nameservers for the guest's /etc/resolv.conf
// (kernel/netfiles.go), or "" when the host names none.
func dnsWord(resolvConf string) string {
	b, err := os.ReadFile(resolvConf)
	if err != nil {
		return ""
	}
	var servers []string
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != "nameserver" {
			continue
		}
		if a, err := netip.ParseAddr(f[1]); err == nil && len(servers) < 3 { // glibc's MAXNS
			servers = append(servers, a.String())
		}
	}
	if len(servers) == 0 {
		return ""
	}
	return "unitrace.dns=" + strings.Join(servers, ",")
}

// netPort serves the guest's sockets: the launcher listens on a socket, QEMU connects to it
// for org.unitrace.net, and hostnet makes the guest's calls on host sockets.
type netPort struct {
	dir string
	ln  net.Listener
	wg  sync.WaitGroup
	mu  sync.Mutex
	c   net.Conn
	err error
}

// listenNet makes the temporary directory and listens there; it returns the socket's path.
func listenNet(opts hostnet.Options, tool string, stderr io.Writer) (*netPort, string, error) {
	dir, err := os.MkdirTemp("", "unitrace-net-")
	if err != nil {
		return nil, "", err
	}
	path := filepath.Join(dir, netSocket)
	ln, err := net.Listen("unix", path)
	if err != nil {
		os.RemoveAll(dir)
		return nil, "", err
	}
	p := &netPort{dir: dir, ln: ln}
	p.wg.Go(func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		p.c = c
		p.mu.Unlock()
		if err := hostnet.Serve(context.Background(), c, opts); err != nil {
			fmt.Fprintf(stderr, "%s: net: %v\n", tool, err)
			p.mu.Lock()
			p.err = err
			p.mu.Unlock()
		}
		c.Close()
	})
	return p, path, nil
}

// finish runs after QEMU has exited, whose exit ended the connection: it closes what is left
// and removes the directory.
func (p *netPort) finish() {
	p.ln.Close()
	p.mu.Lock()
	if p.c != nil {
		p.c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
	os.RemoveAll(p.dir)
}
