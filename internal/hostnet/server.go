// Package hostnet is the launcher's side of the guest's sockets: it reads the kernel's socket
// calls from the net port (package sockwire's frames), makes them on real host sockets, and
// answers, so that a program in the guest has Linux's own TCP and UDP with no network stack
// under emulation. Readiness comes from the launcher's own epoll, edge-triggered, and goes to
// the guest as events in the order the calls' replies went, so that the guest never takes an
// event that predates a reply for one that follows it (a reply of EAGAIN, then the event of the
// data that arrived after it).
//
// Listeners bind on the loopback address unless Options.Listen maps their port elsewhere: the
// guest serves the host, not the network. That holds for the addresses Linux picks by itself
// too (autobind.go): a listen or a datagram's first send on a socket never bound binds
// loopback, or for a datagram to another host the address that faces it, taking replies from
// the peers the socket sent to and nothing else. Outbound connections go wherever the guest
// asks.
package hostnet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"sync"
	"syscall"
	"unsafe"

	"github.com/unitrace/unitrace/kernel/sockwire"
)

// MaxSockets is how many host sockets one guest may hold at once; more is EMFILE. The
// launcher buffers nothing of its own beyond the frame it is answering: a socket's bytes stay
// in the host kernel's socket buffers until the guest asks for them.
const MaxSockets = 256

// Options say what the guest may do.
type Options struct {
	// Listen maps a guest port to the host address its listener binds instead of the loopback
	// address with the same port.
	Listen map[uint16]netip.AddrPort
	// Log, if not nil, is told of every listener as it starts: the address the host can reach.
	Log io.Writer
	// NoOutbound refuses connections and datagrams to anything but the loopback address
	// (ENETUNREACH).
	NoOutbound bool
	// Offline refuses every connection and datagram (ENETUNREACH): the fuzz target's, which
	// must reach nothing, not even the host's own services.
	Offline bool
}

// Serve answers the guest's frames from rw until it ends (io.EOF: nil) or sends a frame that
// does not parse, which is an error; every socket the guest left open is then closed.
func Serve(ctx context.Context, rw io.ReadWriter, opts Options) error {
	s, err := newServer(rw, opts)
	if err != nil {
		return err
	}
	defer s.close()
	go func() { s.pollLoop(); close(s.polled) }()
	err = s.readLoop(ctx)
	if errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) {
		return nil // the guest is gone (a reset: it went with events unread)
	}
	return err
}

type server struct {
	opts   Options
	epfd   int
	wakefd int           // an eventfd in epfd's set (as handle 0): close's word to pollLoop
	done   chan struct{} // closed when the server ends
	polled chan struct{} // closed when pollLoop has returned

	mu    sync.Mutex // serialises replies and events on w, and guards socks
	w     io.Writer
	socks map[uint32]*hostSocket
	out   []byte
}

type hostSocket struct {
	fd        int
	domain    int
	typ       int
	guestPort int  // the port the guest bound, when Options.Listen moved it
	remapped  bool // the host port differs from the guest's
	mapped    bool // bound where Options.Listen says, not on loopback
	bound     bool // a datagram socket known to have an address (isBound)
	filtered  bool // takes datagrams from peers only (bindForPeer)
	peers     []netip.AddrPort
}

func newServer(rw io.ReadWriter, opts Options) (*server, error) {
	epfd, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("epoll: %w", err)
	}
	wakefd, _, e := syscall.Syscall(syscall.SYS_EVENTFD2, 0, syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	if e != 0 {
		syscall.Close(epfd)
		return nil, fmt.Errorf("eventfd: %w", e)
	}
	// Handle 0 is no guest socket's (adopt refuses it), so it names the wake-up.
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: 0, Pad: int32(wakefd)}
	if err := syscall.EpollCtl(epfd, syscall.EPOLL_CTL_ADD, int(wakefd), &ev); err != nil {
		syscall.Close(int(wakefd))
		syscall.Close(epfd)
		return nil, fmt.Errorf("epoll: %w", err)
	}
	return &server{opts: opts, epfd: epfd, wakefd: int(wakefd), done: make(chan struct{}),
		polled: make(chan struct{}), w: rw,
		socks: make(map[uint32]*hostSocket), out: make([]byte, sockwire.MaxFrame)}, nil
}

// close ends pollLoop and only then closes the epoll descriptor: closed while pollLoop still
// waited on it, its number could go to the next server's epoll (another guest, another test),
// whose edge-triggered events the old loop would then take and drop.
func (s *server) close() {
	close(s.done)
	one := [8]byte{1}
	syscall.Write(s.wakefd, one[:])
	<-s.polled
	s.mu.Lock()
	defer s.mu.Unlock()
	for h, hs := range s.socks {
		syscall.Close(hs.fd)
		delete(s.socks, h)
	}
	syscall.Close(s.epfd)
	syscall.Close(s.wakefd)
}

// readLoop takes frames from the guest and answers each before the next.
func (s *server) readLoop(ctx context.Context) error {
	r, ok := s.w.(io.Reader)
	if !ok {
		return errors.New("the net port cannot be read")
	}
	buf := make([]byte, 2*sockwire.MaxFrame)
	have := 0
	for frames := 1; ; {
		for {
			h, data, n, perr := sockwire.Parse(buf[:have])
			if perr != sockwire.OK {
				return fmt.Errorf("frame %d from the guest refused: %v", frames, perr)
			}
			if n == 0 {
				break
			}
			if h.Kind != sockwire.KindRequest {
				return fmt.Errorf("frame %d from the guest refused: a %v frame, not a request", frames, kindName(h.Kind))
			}
			if err := s.handle(h, data); err != nil {
				return err
			}
			frames++
			have = copy(buf, buf[n:have])
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		n, err := r.Read(buf[have:])
		have += n
		if err != nil {
			if errors.Is(err, io.EOF) && have > 0 {
				return fmt.Errorf("the guest's stream ended inside a frame (%d bytes)", have)
			}
			return err
		}
	}
}

func kindName(k sockwire.Kind) string {
	switch k {
	case sockwire.KindReply:
		return "reply"
	case sockwire.KindEvent:
		return "event"
	}
	return "request"
}

// handle makes one call and writes its reply (unless the request has no id).
func (s *server) handle(h sockwire.Header, data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	rep := sockwire.Header{Kind: sockwire.KindReply, Op: h.Op, ID: h.ID, Handle: h.Handle}
	var payload []byte
	rep.A[0], rep.A[1], payload = s.call(h, data)
	if h.ID == 0 {
		return nil
	}
	n := sockwire.Put(s.out, rep, payload)
	if n == 0 {
		return fmt.Errorf("%v reply of %d bytes does not fit a frame", h.Op, len(payload))
	}
	if _, err := s.w.Write(s.out[:n]); err != nil {
		return fmt.Errorf("net port: %w", err)
	}
	return nil
}

// pollLoop sends the guest an event whenever a host socket's readiness changes.
func (s *server) pollLoop() {
	events := make([]syscall.EpollEvent, 64)
	frame := make([]byte, sockwire.HeaderSize)
	for {
		n, err := syscall.EpollWait(s.epfd, events, -1)
		select {
		case <-s.done:
			return
		default:
		}
		if err != nil {
			if err == syscall.EINTR {
				continue
			}
			return
		}
		s.mu.Lock()
		for _, ev := range events[:n] {
			handle := uint32(ev.Fd)
			if handle == 0 {
				continue // the wake-up: done is closed, and the loop ends at the next turn
			}
			hs, ok := s.socks[handle]
			if !ok || hs.fd != int(ev.Pad) {
				continue // closed since: its events are nobody's
			}
			// The readiness now, not when epoll_wait returned: a reply written meanwhile (a
			// connect's, a read's EAGAIN) may have changed it, and the guest takes each event
			// as the state after everything before it in the stream.
			ready := pollNow(hs.fd, ev.Events&^epollET)
			sockwire.PutHeader(frame, sockwire.Header{Kind: sockwire.KindEvent, Handle: handle, A: [3]int64{int64(ready)}}, 0)
			if _, err := s.w.Write(frame); err != nil {
				s.mu.Unlock()
				return
			}
		}
		s.mu.Unlock()
	}
}

// pollNow is fd's readiness as ppoll(2) sees it now (POLL* and EPOLL* bits are the same), or
// the epoll event's bits if ppoll fails.
func pollNow(fd int, fallback uint32) uint32 {
	pfd := struct {
		fd      int32
		events  int16
		revents int16
	}{fd: int32(fd), events: int16(syscall.EPOLLIN | syscall.EPOLLOUT | syscall.EPOLLPRI | syscall.EPOLLRDHUP)}
	var now syscall.Timespec // zero: do not wait
	_, _, e := syscall.Syscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&pfd)), 1, uintptr(unsafe.Pointer(&now)), 0, 0, 0)
	if e != 0 {
		return fallback
	}
	return uint32(uint16(pfd.revents)) // 0 when nothing is ready any more
}

// watch adds a new host socket to the poller, edge-triggered, for everything the guest's
// epoll may ask.
func (s *server) watch(handle uint32, fd int) syscall.Errno {
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN | syscall.EPOLLOUT | syscall.EPOLLRDHUP | syscall.EPOLLPRI | epollET,
		Fd: int32(handle), Pad: int32(fd)}
	if err := syscall.EpollCtl(s.epfd, syscall.EPOLL_CTL_ADD, fd, &ev); err != nil {
		return errnoOf(err)
	}
	return 0
}

func errnoOf(err error) syscall.Errno {
	var e syscall.Errno
	if errors.As(err, &e) {
		return e
	}
	return syscall.EIO
}

// result is a call's A[0]: a count, or a negative errno.
func result(n int, err error) int64 {
	if err != nil {
		return -int64(errnoOf(err))
	}
	return int64(n)
}
