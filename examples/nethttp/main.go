// Command nethttp is unitrace's network workload: ordinary net and net/http code, unchanged,
// over the guest's sockets (host sockets through the launcher). With no arguments it runs its
// checks and prints one deterministic line each:
//
//   - an http.Server on 127.0.0.1:0 and 200 http.Get calls against it, with keep-alive and
//     without, every body checked byte for byte;
//   - a connection to a closed port fails with ECONNREFUSED;
//   - a UDP echo;
//   - a non-blocking connect reports its result through SO_ERROR, success and refusal;
//   - a socketpair's ends, made net.Conns, carry bytes both ways and end with shutdown;
//   - localhost resolves (/etc/hosts), and with -lookup NAME so does NAME (the nameservers).
//
// With -serve ADDR it serves the load handlers on ADDR until a request for /quit, for a load
// generator on the host. With -unbound it makes sockets that never call bind: a TCP listener
// of each family (listen alone) and a UDP socket whose first call is a sendto, prints where each
// ended up, and then greets one connection on each listener from the host. It runs on the host
// too (go run ./examples/nethttp).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	_ "github.com/unitrace/unitrace/kernel"
)

func main() {
	serve := flag.String("serve", "", "serve the load handlers on this address until /quit")
	gets := flag.Int("gets", 200, "http.Get calls per check")
	lookup := flag.String("lookup", "", "also resolve this name through the nameservers and print its addresses")
	unbound := flag.Bool("unbound", false, "listen and send on sockets never bound, then greet a connection on each listener")
	flag.Parse()
	if *unbound {
		if err := unboundSockets(); err != nil {
			fmt.Println("FAIL unbound:", err)
			os.Exit(1)
		}
		fmt.Println("nethttp: ok")
		return
	}
	if *serve != "" {
		if err := serveLoad(*serve); err != nil {
			fmt.Println("FAIL serve:", err)
			os.Exit(1)
		}
		return
	}
	failed := false
	for _, c := range []struct {
		name string
		run  func() (string, error)
	}{
		{"http keep-alive", func() (string, error) { return httpGets(*gets, false) }},
		{"http no keep-alive", func() (string, error) { return httpGets(*gets, true) }},
		{"refused", refused},
		{"udp", udpEcho},
		{"nonblocking connect", nonblockingConnect},
		{"localhost", func() (string, error) { return resolve("localhost") }},
		{"socketpair", socketPair},
	} {
		line, err := c.run()
		if err != nil {
			fmt.Printf("FAIL %s: %v\n", c.name, err)
			failed = true
			continue
		}
		fmt.Printf("%s: %s\n", c.name, line)
	}
	if *lookup != "" {
		line, err := resolve(*lookup)
		if err != nil {
			fmt.Printf("FAIL lookup %s: %v\n", *lookup, err)
			failed = true
		} else {
			fmt.Printf("lookup %s: %s\n", *lookup, line)
		}
	}
	if failed {
		os.Exit(1)
	}
	fmt.Println("nethttp: ok")
}

// body is the response for size n: deterministic bytes, so the client can check each one.
func body(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + n)
	}
	return b
}

// handler serves /size/N with body(N), and /echo with the request's body.
func handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/size/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, err := strconv.Atoi(r.PathValue("n"))
		if err != nil || n < 0 || n > 1<<20 {
			http.Error(w, "bad size", http.StatusBadRequest)
			return
		}
		w.Write(body(n))
	})
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(w, r.Body)
	})
	return mux
}

// httpGets serves on 127.0.0.1:0 and makes n GETs of growing sizes, checking every byte.
func httpGets(n int, noKeepAlive bool) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	srv := &http.Server{Handler: handler()}
	go srv.Serve(ln)
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: noKeepAlive}, Timeout: 60 * time.Second}
	defer client.CloseIdleConnections()
	total := 0
	for i := 0; i < n; i++ {
		size := (i * 997) % (32 << 10)
		resp, err := client.Get(fmt.Sprintf("http://%s/size/%d", ln.Addr(), size))
		if err != nil {
			return "", fmt.Errorf("get %d: %w", i, err)
		}
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return "", fmt.Errorf("get %d: body: %w", i, err)
		}
		if resp.StatusCode != http.StatusOK || string(got) != string(body(size)) {
			return "", fmt.Errorf("get %d: status %d, %d bytes, want %d checked bytes", i, resp.StatusCode, len(got), size)
		}
		total += len(got)
	}
	return fmt.Sprintf("%d gets, %d bytes checked", n, total), nil
}

// refused dials a port nothing listens on.
func refused() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := ln.Addr().String()
	ln.Close()
	_, err = net.Dial("tcp", addr)
	if !errors.Is(err, syscall.ECONNREFUSED) {
		return "", fmt.Errorf("dial of a closed port: %v, want ECONNREFUSED", err)
	}
	return "ECONNREFUSED", nil
}

// udpEcho sends datagrams to an echo server and checks what comes back, and from where.
func udpEcho() (string, error) {
	srv, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer srv.Close()
	go func() {
		buf := make([]byte, 2048)
		for {
			n, from, err := srv.ReadFrom(buf)
			if err != nil {
				return
			}
			srv.WriteTo(buf[:n], from)
		}
	}()
	c, err := net.Dial("udp", srv.LocalAddr().String())
	if err != nil {
		return "", err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	buf := make([]byte, 2048)
	for i := 0; i < 10; i++ {
		msg := body(100 + i)
		if _, err := c.Write(msg); err != nil {
			return "", err
		}
		n, err := c.Read(buf)
		if err != nil {
			return "", fmt.Errorf("datagram %d: %w", i, err)
		}
		if string(buf[:n]) != string(msg) {
			return "", fmt.Errorf("datagram %d came back as %d other bytes", i, n)
		}
	}
	return "10 datagrams echoed", nil
}

// nonblockingConnect connects by hand: EINPROGRESS, wait for writability in epoll, SO_ERROR.
func nonblockingConnect() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ok, err := connectResult(port)
	if err != nil || ok != 0 {
		ln.Close()
		return "", fmt.Errorf("to a listener: SO_ERROR %v, %v", ok, err)
	}
	ln.Close()
	bad, err := connectResult(port)
	if err != nil {
		return "", err
	}
	if bad != syscall.ECONNREFUSED {
		return "", fmt.Errorf("to a closed port: SO_ERROR %v, want ECONNREFUSED", bad)
	}
	return "SO_ERROR 0, then ECONNREFUSED", nil
}

func connectResult(port int) (syscall.Errno, error) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return 0, fmt.Errorf("socket: %w", err)
	}
	defer syscall.Close(fd)
	err = syscall.Connect(fd, &syscall.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}})
	if err == nil {
		return 0, nil
	}
	if err != syscall.EINPROGRESS {
		if e, ok := err.(syscall.Errno); ok {
			return e, nil // refused at once: the same answer as SO_ERROR's
		}
		return 0, err
	}
	ep, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return 0, err
	}
	defer syscall.Close(ep)
	if err := syscall.EpollCtl(ep, syscall.EPOLL_CTL_ADD, fd, &syscall.EpollEvent{Events: syscall.EPOLLOUT, Fd: int32(fd)}); err != nil {
		return 0, fmt.Errorf("epoll_ctl: %w", err)
	}
	events := make([]syscall.EpollEvent, 1)
	for {
		n, err := syscall.EpollWait(ep, events, 30000)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || n != 1 {
			return 0, fmt.Errorf("epoll_wait: %d, %v", n, err)
		}
		break
	}
	v, err := syscall.GetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_ERROR)
	if err != nil {
		return 0, fmt.Errorf("getsockopt: %w", err)
	}
	return syscall.Errno(v), nil
}

// socketPair makes an AF_UNIX socket pair, turns its ends into net.Conns (net.FileConn asks
// the socket its type and address), sends each way through the netpoller, and closes one
// direction with CloseWrite: the other end reads end of file.
func socketPair() (string, error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return "", fmt.Errorf("socketpair: %w", err)
	}
	var conns [2]*net.UnixConn
	for i, fd := range fds {
		f := os.NewFile(uintptr(fd), "pair")
		c, err := net.FileConn(f)
		f.Close()
		if err != nil {
			return "", fmt.Errorf("FileConn: %w", err)
		}
		u, ok := c.(*net.UnixConn)
		if !ok {
			return "", fmt.Errorf("FileConn gave a %T", c)
		}
		defer u.Close()
		conns[i] = u
	}
	a, b := conns[0], conns[1]
	a.SetDeadline(time.Now().Add(30 * time.Second))
	b.SetDeadline(time.Now().Add(30 * time.Second))
	msg := body(100 << 10) // more than a direction holds: the writer waits for the reader
	done := make(chan error, 1)
	go func() {
		_, err := a.Write(msg)
		if err == nil {
			err = a.CloseWrite()
		}
		done <- err
	}()
	got, err := io.ReadAll(b)
	if err != nil {
		return "", fmt.Errorf("read: %w", err)
	}
	if err := <-done; err != nil {
		return "", fmt.Errorf("write: %w", err)
	}
	if string(got) != string(msg) {
		return "", fmt.Errorf("%d bytes came, want %d checked", len(got), len(msg))
	}
	if _, err := b.Write([]byte("back")); err != nil {
		return "", err
	}
	buf := make([]byte, 8)
	n, err := a.Read(buf)
	if err != nil || string(buf[:n]) != "back" {
		return "", fmt.Errorf("the other way: %q, %v", buf[:n], err)
	}
	return fmt.Sprintf("%d bytes one way, end of file after CloseWrite, 4 back", len(got)), nil
}

// resolve looks name up with Go's own resolver (/etc/hosts, then the nameservers of
// /etc/resolv.conf) and returns its addresses, sorted.
func resolve(name string) (string, error) {
	r := &net.Resolver{PreferGo: true}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	addrs, err := r.LookupHost(ctx, name)
	if err != nil {
		return "", err
	}
	sort.Strings(addrs)
	return strings.Join(addrs, " "), nil
}

// serveLoad serves the handlers on addr until a request for /quit.
func serveLoad(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	quit := make(chan struct{})
	mux := http.NewServeMux()
	mux.Handle("/", handler())
	mux.HandleFunc("/quit", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "bye\n")
		close(quit)
	})
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	fmt.Println("nethttp: serving on", ln.Addr())
	<-quit
	time.Sleep(100 * time.Millisecond) // the reply to /quit goes out
	return srv.Close()
}

// unboundSockets listens on a TCP socket of each family with no bind before (Linux then picks
// the address and port), sends a datagram from a UDP socket with no bind before, and prints each
// socket's address. Under unitrace those are the host sockets' addresses, which must be on
// loopback. It then accepts one connection on each listener and greets it with its name.
func unboundSockets() error {
	type listener struct {
		name string
		fd   int
	}
	var lns []listener
	for _, l := range []struct {
		name   string
		domain int
	}{{"tcp4", syscall.AF_INET}, {"tcp6", syscall.AF_INET6}} {
		fd, err := syscall.Socket(l.domain, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("%s socket: %w", l.name, err)
		}
		defer syscall.Close(fd)
		if err := syscall.Listen(fd, 8); err != nil {
			return fmt.Errorf("%s listen: %w", l.name, err)
		}
		addr, err := sockName(fd)
		if err != nil {
			return err
		}
		fmt.Printf("unbound %s: listening on %s\n", l.name, addr)
		lns = append(lns, listener{l.name, fd})
	}
	// UDP: an echo server, and a socket whose first call is sendto.
	srv, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer srv.Close()
	go func() {
		buf := make([]byte, 100)
		n, from, err := srv.ReadFrom(buf)
		if err == nil {
			srv.WriteTo(buf[:n], from)
		}
	}()
	u, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("udp socket: %w", err)
	}
	defer syscall.Close(u)
	to := srv.LocalAddr().(*net.UDPAddr)
	if err := syscall.Sendto(u, []byte("ping"), 0, &syscall.SockaddrInet4{Addr: [4]byte(to.IP.To4()), Port: to.Port}); err != nil {
		return fmt.Errorf("udp sendto: %w", err)
	}
	addr, err := sockName(u)
	if err != nil {
		return err
	}
	buf := make([]byte, 100)
	n, _, err := syscall.Recvfrom(u, buf, 0)
	if err != nil || string(buf[:n]) != "ping" {
		return fmt.Errorf("udp echo: %q, %v", buf[:n], err)
	}
	host, _, _ := net.SplitHostPort(addr)
	fmt.Printf("unbound udp: sent from %s, echoed\n", host)
	fmt.Println("nethttp: unbound ready")
	for _, l := range lns {
		c, _, err := syscall.Accept4(l.fd, syscall.SOCK_CLOEXEC)
		if err != nil {
			return fmt.Errorf("%s accept: %w", l.name, err)
		}
		_, err = syscall.Write(c, []byte(l.name+"\n"))
		syscall.Close(c)
		if err != nil {
			return fmt.Errorf("%s write: %w", l.name, err)
		}
	}
	fmt.Println("unbound: greeted a connection on each listener")
	return nil
}

// sockName is a socket's own address, as host:port.
func sockName(fd int) (string, error) {
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		return "", fmt.Errorf("getsockname: %w", err)
	}
	switch sa := sa.(type) {
	case *syscall.SockaddrInet4:
		return net.JoinHostPort(net.IP(sa.Addr[:]).String(), strconv.Itoa(sa.Port)), nil
	case *syscall.SockaddrInet6:
		return net.JoinHostPort(net.IP(sa.Addr[:]).String(), strconv.Itoa(sa.Port)), nil
	}
	return "", fmt.Errorf("getsockname: a %T", sa)
}
