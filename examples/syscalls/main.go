// Command syscalls checks, from inside a guest, the system calls that programs make beside the
// Go runtime's own: each against Linux's semantics and errors.
//
//	term       x/term sees the console as a terminal (TCGETS), MakeRaw and Restore round-trip,
//	           the window size sets and reads back; TCGETS on a pipe is ENOTTY
//	fionread   FIONREAD on a pipe, a socket pair and a file (its size less the position);
//	           FIONBIO and FIOCLEX set what fcntl reads
//	timerfd    a periodic timerfd's blocking reads count its expirations, epoll and poll see it
//	           readable, TFD_NONBLOCK reads EAGAIN, gettime and an absolute CLOCK_REALTIME time
//	           agree, bad input gets Linux's errors
//	poll       ppoll and select time out after their timeout (the time left written back),
//	           report a pipe's data, POLLNVAL and EBADF for closed descriptors
//	eintr      a signal with a handler ends pselect6 and ppoll with EINTR; ppoll's mask lets a
//	           blocked pending signal end it at once, and the thread's own mask is back after
//	sysinfo    uptime, memory and the thread count make sense
//	rlimit     prlimit64, getrlimit and setrlimit round-trip; cur > max EINVAL, a bad pid ESRCH;
//	           a one-page RLIMIT_AS makes mmap and mremap's growth ENOMEM
//	random     /dev/urandom's RNDGETENTCNT is 256, other requests EINVAL
//	mincore    touched pages are resident, a PROT_NONE mapping's are not, an unaligned address
//	           is EINVAL and a hole ENOMEM
//	sigpending a blocked signal sent to the thread shows in rt_sigpending until unblocked
//	clock      the raw gettimeofday (and time, on amd64) agrees with time.Now
//	shm        System V shared memory: attachments share, contents survive PROT_NONE and
//	           MADV_DONTNEED, IPC_STAT counts mappings, IPC_RMID waits for the last detach
//	ns         /proc/self/ns: each link's text, the inode and kind (NS_GET_NSTYPE) of the
//	           namespace it opens, NS_GET_USERNS, setns into the process's own namespace
//	netlink    net.Interfaces and lo's addresses (NETLINK_ROUTE), the interface ioctls
//	           (SIOCGIF*, SIOCETHTOOL), a raw route socket's ports, truncation and errors
//	edges      answers to hostile arguments the system-call fuzzer found different from Linux's
//	           (getrandom, getdents64, futex, madvise, mmap, flock, faccessat, sched_*, wait*)
//
// Each check prints one line, "syscalls: NAME ok ..." or "syscalls: NAME FAIL ...", and the
// program exits with status 1 if any failed. Usage: syscalls [CHECK ...] (default: all).
// `go run ./examples/syscalls` runs the same checks on the host's Linux (term then only checks
// what it can when the standard streams are not a terminal).
package main

import (
	"fmt"
	"os"
	"slices"

	_ "github.com/unitrace/unitrace/kernel"
)

type check struct {
	name string
	run  func() (detail string, err error)
}

var checks = []check{
	{"term", checkTerm},
	{"fionread", checkFIONREAD},
	{"timerfd", checkTimerfd},
	{"poll", checkPoll},
	{"eintr", checkEINTR},
	{"sysinfo", checkSysinfo},
	{"rlimit", checkRlimit},
	{"random", checkRandom},
	{"mincore", checkMincore},
	{"sigpending", checkSigpending},
	{"clock", checkClock},
	{"shm", checkShm},
	{"ns", checkNs},
	{"netlink", checkNetlink},
	{"edges", checkEdges},
}

func main() {
	failed := false
	for _, c := range checks {
		if len(os.Args) > 1 && !slices.Contains(os.Args[1:], c.name) {
			continue
		}
		detail, err := c.run()
		if err != nil {
			failed = true
			fmt.Printf("syscalls: %s FAIL %v\n", c.name, err)
			continue
		}
		fmt.Printf("syscalls: %s ok %s\n", c.name, detail)
	}
	if failed {
		os.Exit(1)
	}
}
