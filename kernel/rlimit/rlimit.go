// Package rlimit is the process's table of resource limits (getrlimit(2), setrlimit(2),
// prlimit64(2)), with the defaults a Linux process starts with and Linux's rules for changing
// them.
//
// The package is kernel-mode Go: a Table is a fixed array of integers, never allocates and never
// panics on any input. It does no locking: the caller serialises all calls.
package rlimit

import "github.com/unitrace/unitrace/kernel/abi"

// Resources, by their Linux numbers (include/uapi/asm-generic/resource.h; the same on amd64 and
// arm64).
const (
	CPU        = 0
	FSIZE      = 1
	DATA       = 2
	STACK      = 3
	CORE       = 4
	RSS        = 5
	NPROC      = 6
	NOFILE     = 7
	MEMLOCK    = 8
	AS         = 9
	LOCKS      = 10
	SIGPENDING = 11
	MSGQUEUE   = 12
	NICE       = 13
	RTPRIO     = 14
	RTTIME     = 15
	// N is the number of resources (RLIM_NLIMITS): a larger one is EINVAL.
	N = 16
)

// Infinity is RLIM_INFINITY: no limit.
const Infinity = ^uint64(0)

// Limit is struct rlimit64: the soft limit (Cur), which the kernel enforces, and the hard limit
// (Max), the ceiling for Cur.
type Limit struct {
	Cur, Max uint64
}

// Config is what the defaults depend on: the size of the descriptor table (RLIMIT_NOFILE, both
// limits: no descriptor beyond it can exist, as Linux's fs.nr_open bounds the hard limit) and the
// number of threads the machine can have (RLIMIT_NPROC and RLIMIT_SIGPENDING, which Linux sets to
// half its max_threads at boot).
type Config struct {
	MaxFDs     uint64
	MaxThreads uint64
}

// Table holds every limit of the process.
type Table struct {
	lim   [N]Limit
	maxFD uint64
}

// Init sets every limit to what a Linux process gets from init (INIT_RLIMITS,
// include/asm-generic/resource.h): unlimited but for an 8 MiB stack, no core dumps, 8 MiB of
// locked memory, 819200 bytes of POSIX message queues, nice and real-time priority 0, and the
// limits c sets.
func (t *Table) Init(c Config) {
	for i := range t.lim {
		t.lim[i] = Limit{Infinity, Infinity}
	}
	t.lim[STACK] = Limit{8 << 20, Infinity}
	t.lim[CORE] = Limit{0, Infinity}
	t.lim[NPROC] = Limit{c.MaxThreads, c.MaxThreads}
	t.lim[NOFILE] = Limit{c.MaxFDs, c.MaxFDs}
	t.lim[MEMLOCK] = Limit{8 << 20, 8 << 20}
	t.lim[SIGPENDING] = Limit{c.MaxThreads, c.MaxThreads}
	t.lim[MSGQUEUE] = Limit{819200, 819200}
	t.lim[NICE] = Limit{0, 0}
	t.lim[RTPRIO] = Limit{0, 0}
	t.maxFD = c.MaxFDs
}

// Get returns resource's limits, or EINVAL for no such resource.
func (t *Table) Get(resource int) (Limit, int) {
	if resource < 0 || resource >= N {
		return Limit{}, abi.EINVAL
	}
	return t.lim[resource], 0
}

// Check reports whether new may become resource's limits, as do_prlimit decides for a caller
// with CAP_SYS_RESOURCE (the program runs as root, so raising the hard limit is allowed):
// EINVAL for no such resource or a soft limit above the hard one, EPERM for a descriptor limit
// above what the descriptor table holds (Linux: above fs.nr_open).
func (t *Table) Check(resource int, new Limit) int {
	if resource < 0 || resource >= N || new.Cur > new.Max {
		return abi.EINVAL
	}
	if resource == NOFILE && new.Max > t.maxFD {
		return abi.EPERM
	}
	return 0
}

// Set checks new (Check) and makes it resource's limits, returning the old ones.
func (t *Table) Set(resource int, new Limit) (old Limit, errno int) {
	if errno := t.Check(resource, new); errno != 0 {
		return Limit{}, errno
	}
	old = t.lim[resource]
	t.lim[resource] = new
	return old, 0
}
