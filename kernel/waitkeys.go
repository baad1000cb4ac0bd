package kernel

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

// fdKey is what a thread blocked on descriptor fd waits for: epoll_pwait on an epoll instance,
// a blocking read of an eventfd. Whatever may change fd's readiness wakes it (wakeFDWaiters).
func fdKey(fd int) uintptr { return keyFD | uintptr(fd) }

// pollKey is what polling threads (poll, ppoll, select, pselect6) wait on.
const pollKey = keyPoll

// netTxKey is the wait key of threads whose socket request did not fit the net port's buffer.
const netTxKey = keyNet | 1

// netReplyKey is the wait key of the thread in slot while its socket request is with the host.
func netReplyKey(slot int32) uintptr { return keyNet | 2 | uintptr(slot)<<8 }

// lockKey is the wait key of the threads waiting for a file lock.
const lockKey = keyLock

// portKey is the wait key of the threads waiting on trace port dev (room to write, data to read).
func portKey(dev uint32) uintptr { return keyPort | uintptr(dev) }
