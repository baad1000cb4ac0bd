package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/unitrace/unitrace/examples/sysfuzz/fuzz"
)

const (
	pageSize    = 4096
	regionSize  = 256 << 10 // each thread's own buffers; a PROT_NONE page follows
	arenaPages  = 64        // the memory mmap, munmap, mprotect and madvise may change
	patternSize = 64 << 10
	maxOwned    = 48 // descriptors the fuzzer keeps before it closes some
	dupLo       = 900
)

// arenaHint is where the fuzzer asks for its arena: far from the Go heap (0xc000000000) and from
// where mmaps without a hint go (top-down below the stack), so that a hole it leaves for a moment
// is never where the runtime's next mapping lands.
const arenaHint = 0x1000_0000_0000

// fdKind is what kind of descriptor the fuzzer made.
type fdKind int

const (
	kFile fdKind = iota
	kDir
	kPipeR
	kPipeW
	kEvent
	kEpoll
	kSock
	kTimerFD
	kOther
)

// env is the fuzzer's own world: the scratch directory, its memory, the descriptors it made.
// Every pointer it hands the kernel is into memory it mapped itself, every descriptor one it
// made, every path inside the scratch directory.
type env struct {
	scratch   string // absolute
	scratchFD int
	guest     bool
	pid       int

	arena   uintptr
	none    uintptr // a PROT_NONE page of its own
	pattern uintptr // patternSize bytes never handed to the kernel
	heapPat []byte  // the same, in Go's heap

	lport, uport int // its own TCP listener and UDP socket on 127.0.0.1 (0: none)

	mu  sync.Mutex // guards fds
	fds []ownedFD

	memMu sync.Mutex // one mmap, munmap, mprotect or madvise at a time

	shm shmState // System V segments it made, attached (shm.go)
}

type ownedFD struct {
	fd   int
	kind fdKind
}

func mmapRaw(addr, n uintptr, prot, flags int) (uintptr, error) {
	r, _, e := syscall.Syscall6(syscall.SYS_MMAP, addr, n, uintptr(prot), uintptr(flags), ^uintptr(0), 0)
	if e != 0 {
		return 0, e
	}
	return r, nil
}

func mprotectRaw(addr, n uintptr, prot int) error {
	_, _, e := syscall.Syscall(syscall.SYS_MPROTECT, addr, n, uintptr(prot))
	if e != 0 {
		return e
	}
	return nil
}

// bytesAt is n bytes of memory the fuzzer mapped, at addr.
// It is memory outside Go's heap, so the address is reinterpreted as a pointer in place.
//
//go:noinline
func bytesAt(addr uintptr, n int) []byte {
	p := *(*unsafe.Pointer)(unsafe.Pointer(&addr))
	return unsafe.Slice((*byte)(p), n)
}

func newEnv(dir string) (*env, error) {
	e := &env{pid: os.Getpid()}
	var u unix.Utsname
	if err := unix.Uname(&u); err == nil {
		e.guest = bytesContains(u.Release[:], "unitrace")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("-dir %s is not a directory", dir)
	}
	scratch, err := os.MkdirTemp(abs, "sysfuzz.")
	if err != nil {
		return nil, err
	}
	e.scratch = scratch
	e.scratchFD, err = unix.Open(scratch, unix.O_DIRECTORY|unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	if err := os.Chdir(scratch); err != nil {
		return nil, err
	}
	if e.arena, err = mmapRaw(arenaHint, arenaPages*pageSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS); err != nil {
		return nil, err
	}
	if e.none, err = mmapRaw(0, pageSize, unix.PROT_NONE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS); err != nil {
		return nil, err
	}
	if e.pattern, err = mmapRaw(0, patternSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS); err != nil {
		return nil, err
	}
	fillPattern(bytesAt(e.pattern, patternSize))
	e.heapPat = make([]byte, patternSize)
	fillPattern(e.heapPat)
	e.makeSockets()
	return e, nil
}

func bytesContains(b []byte, s string) bool {
	for i := 0; i+len(s) <= len(b); i++ {
		if string(b[i:i+len(s)]) == s {
			return true
		}
	}
	return false
}

func fillPattern(b []byte) {
	for i := range b {
		b[i] = byte(i*13 + i>>9)
	}
}

func checkPattern(b []byte) int {
	for i := range b {
		if b[i] != byte(i*13+i>>9) {
			return i
		}
	}
	return -1
}

// makeSockets makes the TCP listener and the UDP socket that connect and sendto may aim at, so
// that the fuzzer only ever talks to itself. Without sockets (unitrace run -net none) there are
// none.
func (e *env) makeSockets() {
	port := func(fd int) int {
		sa, err := unix.Getsockname(fd)
		if err != nil {
			return 0
		}
		if a, ok := sa.(*unix.SockaddrInet4); ok {
			return a.Port
		}
		return 0
	}
	lo := &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}
	if fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0); err == nil {
		if unix.Bind(fd, lo) == nil && unix.Listen(fd, 4) == nil {
			e.lport = port(fd)
		}
	}
	if fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0); err == nil {
		if unix.Bind(fd, lo) == nil {
			e.uport = port(fd)
		}
	}
}

// tree makes the scratch directory's fixed contents: the files, directories and links of
// fuzz.Names.
func (e *env) tree() {
	for _, d := range []string{"d", "d/e"} {
		unix.Mkdirat(e.scratchFD, d, 0o755)
	}
	for _, f := range []string{"a", "b", "d/a", "d/e/f"} {
		if fd, err := unix.Openat(e.scratchFD, f, unix.O_CREAT|unix.O_RDWR|unix.O_CLOEXEC, 0o644); err == nil {
			unix.Write(fd, []byte("sysfuzz\n"))
			unix.Close(fd)
		}
	}
	unix.Symlinkat("a", e.scratchFD, "l")
	unix.Symlinkat("e", e.scratchFD, "d/l")
}

// fixture opens the descriptors the calls start from: a file, a directory, a pipe, an eventfd,
// an epoll instance and a socket pair, all non-blocking (a read of an empty pipe must not block
// the fuzzer forever).
func (e *env) fixture() {
	add := func(fd int, err error, k fdKind) {
		if err == nil {
			e.add(fd, k)
		}
	}
	fd, err := unix.Openat(e.scratchFD, "a", unix.O_RDWR|unix.O_CREAT|unix.O_CLOEXEC, 0o644)
	add(fd, err, kFile)
	fd, err = unix.Openat(e.scratchFD, "d", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	add(fd, err, kDir)
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err == nil {
		e.add(p[0], kPipeR)
		e.add(p[1], kPipeW)
	}
	fd, err = unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	add(fd, err, kEvent)
	fd, err = unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	add(fd, err, kEpoll)
	if s, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0); err == nil {
		e.add(s[0], kSock)
		e.add(s[1], kSock)
	}
}

func (e *env) add(fd int, k fdKind) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for i := range e.fds {
		if e.fds[i].fd == fd {
			e.fds[i].kind = k
			return
		}
	}
	e.fds = append(e.fds, ownedFD{fd, k})
}

// closed forgets fd, which a call closed.
func (e *env) closed(fd int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for i := range e.fds {
		if e.fds[i].fd == fd {
			e.fds = append(e.fds[:i], e.fds[i+1:]...)
			return
		}
	}
}

func (e *env) kindOf(fd int) (fdKind, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, o := range e.fds {
		if o.fd == fd {
			return o.kind, true
		}
	}
	return 0, false
}

// pick returns one of its descriptors, of one of kinds if it has one (any kind without kinds),
// or -1 if it has none.
func (e *env) pick(r *fuzz.Rand, kinds ...fdKind) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	var c []int
	for _, o := range e.fds {
		if len(kinds) == 0 {
			c = append(c, o.fd)
			continue
		}
		for _, k := range kinds {
			if o.kind == k {
				c = append(c, o.fd)
			}
		}
	}
	if len(c) == 0 {
		return -1
	}
	return c[r.Intn(len(c))]
}

// trim closes descriptors beyond maxOwned, opens the fixture again when too few are left, and
// makes the scratch directory usable again.
func (e *env) trim(r *fuzz.Rand) {
	e.mu.Lock()
	var closing []int
	for len(e.fds) > maxOwned {
		i := r.Intn(len(e.fds))
		closing = append(closing, e.fds[i].fd)
		e.fds = append(e.fds[:i], e.fds[i+1:]...)
	}
	few := len(e.fds) < 6
	e.mu.Unlock()
	// A chmod of "." takes the scratch directory away from every later call: give it back.
	unix.Fchmodat(e.scratchFD, ".", 0o700, 0)
	for _, fd := range closing {
		unix.Close(fd)
	}
	if few {
		e.fixture()
	}
}

// reset closes every descriptor it made and makes the tree and the fixture again: the
// deterministic mode starts each call from the same state on the host and in the guest.
func (e *env) reset() {
	e.mu.Lock()
	fds := e.fds
	e.fds = nil
	e.mu.Unlock()
	for _, o := range fds {
		unix.Close(o.fd)
	}
	e.clearDir()
	e.tree()
	e.fixture()
	unix.Fchdir(e.scratchFD)
	unix.Umask(0o022)
	e.memMu.Lock()
	mmapRaw(e.arena, arenaPages*pageSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_FIXED)
	e.memMu.Unlock()
	e.shm.reset()
	var zero unix.Itimerval
	for _, w := range []int{unix.ITIMER_REAL, unix.ITIMER_VIRTUAL, unix.ITIMER_PROF} {
		unix.Setitimer(unix.ItimerWhich(w), zero)
	}
}

// clearDir empties the scratch directory (making its directories writable first: a call may
// have taken their permissions away).
func (e *env) clearDir() {
	unix.Fchmodat(e.scratchFD, ".", 0o700, 0)
	filepath.WalkDir(e.scratch, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o700)
		}
		return nil
	})
	ents, _ := os.ReadDir(e.scratch)
	for _, d := range ents {
		os.RemoveAll(filepath.Join(e.scratch, d.Name()))
	}
}

// remove removes the scratch directory and everything in it.
func (e *env) remove() error {
	os.Chdir("/")
	e.clearDir()
	unix.Close(e.scratchFD)
	return os.Remove(e.scratch)
}

// kernelHalf is the first kernel address of the architecture.
func kernelHalf() uintptr {
	if runtime.GOARCH == "amd64" {
		return 0xffff_8000_0000_0000
	}
	return 0xffff_0000_0000_0000
}

// nonCanonical is an address no user pointer can be: between the halves on amd64, beyond 48 bits
// (and untagged) on arm64.
func nonCanonical(r *fuzz.Rand) uintptr {
	if runtime.GOARCH == "amd64" {
		return fuzz.Pick(r, uintptr(0x0000_8000_0000_0000), 0xdead_beef_dead_beef, 0x8000_0000_0000_0000)
	}
	return fuzz.Pick(r, uintptr(0x0001_0000_0000_0000), 0x00ff_0000_0000_1000, 0x8000_0000_0000_0000)
}
