package core

// Wait keys: what a blocked thread waits on in the wait table (futexes). A futex word's key is
// its address, below the user address limit (userHi); the kernel's own keys lie above it, each
// kind in a range of its own, so that a wake-up of one kind never reaches another's waiters
// (waitkeys_test.go checks that no two overlap).
const (
	keyFD    = 1 << 63       // | fd
	keyPoll  = 1<<63 | 1<<62 // one key
	keyNet   = 1 << 62       // | 1: transmit room; | 2 | slot<<8: a thread's reply
	keyLock  = 1<<62 | 1<<61 // one key
	keyPort  = 1 << 61       // | port
	keyFloor = keyPort       // no kernel key lies below
)

// FDKey is what a thread blocked on descriptor fd waits for: epoll_pwait on an epoll instance,
// a blocking read of an eventfd. Whatever may change fd's readiness wakes it (WakeFDWaiters).
func FDKey(fd int) uintptr { return keyFD | uintptr(fd) }

// PollKey is what polling threads (poll, ppoll, select, pselect6) wait on.
const PollKey = keyPoll

// NetTxKey is the wait key of threads whose socket request did not fit the net port's buffer.
const NetTxKey = keyNet | 1

// NetReplyKey is the wait key of the thread in slot while its socket request is with the host.
func NetReplyKey(slot int32) uintptr { return keyNet | 2 | uintptr(slot)<<8 }

// LockKey is the wait key of the threads waiting for a file lock.
const LockKey = keyLock

// PortKey is the wait key of the threads waiting on trace port dev (room to write, data to read).
func PortKey(dev uint32) uintptr { return keyPort | uintptr(dev) }
