// Package waitq keeps the threads that are blocked on a key.
//
// A key is the user address of a futex word (the caller does the 32-bit
// compare before it enqueues) or a synthetic key chosen by the kernel, such as
// one per epoll instance or eventfd. Threads are small non-negative slots.
//
// The package is kernel-mode Go: a Table holds only integers, never
// allocates, and never panics on any input. Its zero value is an empty table.
// It does no locking: the caller serialises all calls (interrupts masked on
// one CPU, or one lock around the table).
package waitq

// MaxWaiters is the number of thread slots: valid tids are 0..MaxWaiters-1.
const MaxWaiters = 512

// numBuckets is a power of two; the hash keeps the top bits of a
// multiplicative hash, so futex words that differ only in low bits (4-byte
// aligned neighbours in one struct) still land in different buckets.
const (
	bucketBits = 7
	numBuckets = 1 << bucketBits
)

// slot is a thread slot plus one, so that the zero value means "no thread"
// and a zero Table needs no initialisation.
type slot int16

const noSlot slot = 0

// Table is a set of FIFO queues, one per key, threaded through per-thread
// links. Each bucket is one doubly linked list holding the waiters of every
// key that hashes to it, in arrival order, so the waiters of one key appear
// in FIFO order within it.
type Table struct {
	key     [MaxWaiters]uintptr
	next    [MaxWaiters]slot
	prev    [MaxWaiters]slot
	waiting [MaxWaiters]bool
	head    [numBuckets]slot
	tail    [numBuckets]slot
	n       int
}

func bucketOf(key uintptr) int {
	return int((uint64(key) * 0x9e3779b97f4a7c15) >> (64 - bucketBits))
}

func validTid(tid int32) bool { return tid >= 0 && tid < MaxWaiters }

// Enqueue puts tid at the tail of key's queue. It returns false, changing
// nothing, if tid is not a valid slot or is already waiting on some key.
func (t *Table) Enqueue(key uintptr, tid int32) bool {
	if !validTid(tid) || t.waiting[tid] {
		return false
	}
	b := bucketOf(key)
	s := slot(tid + 1)
	t.key[tid] = key
	t.waiting[tid] = true
	t.next[tid] = noSlot
	t.prev[tid] = t.tail[b]
	if t.tail[b] == noSlot {
		t.head[b] = s
	} else {
		t.next[t.tail[b]-1] = s
	}
	t.tail[b] = s
	t.n++
	return true
}

// unlink removes a waiting tid from its bucket list.
func (t *Table) unlink(tid int32) {
	b := bucketOf(t.key[tid])
	next, prev := t.next[tid], t.prev[tid]
	if prev == noSlot {
		t.head[b] = next
	} else {
		t.next[prev-1] = next
	}
	if next == noSlot {
		t.tail[b] = prev
	} else {
		t.prev[next-1] = prev
	}
	t.next[tid], t.prev[tid] = noSlot, noSlot
	t.waiting[tid] = false
	t.n--
}

// Remove takes tid out of whatever queue it is in, for a wait that ended by
// timeout or signal rather than by Wake. It reports the key tid waited on,
// and ok=false if tid was not waiting (a Wake got there first).
func (t *Table) Remove(tid int32) (key uintptr, ok bool) {
	if !validTid(tid) || !t.waiting[tid] {
		return 0, false
	}
	key = t.key[tid]
	t.unlink(tid)
	return key, true
}

// Wake removes up to min(n, len(out)) waiters of key, oldest first, writes
// their tids to out and returns how many it removed. Its cost is the length
// of key's bucket, which is the waiters of key plus the rare collisions.
func (t *Table) Wake(key uintptr, n int, out []int32) int {
	if n > len(out) {
		n = len(out)
	}
	woken := 0
	for s := t.head[bucketOf(key)]; s != noSlot && woken < n; {
		tid := int32(s - 1)
		s = t.next[tid]
		if t.key[tid] != key {
			continue
		}
		t.unlink(tid)
		out[woken] = tid
		woken++
	}
	return woken
}

// KeyOf reports the key tid is waiting on, or ok=false if it is not waiting.
func (t *Table) KeyOf(tid int32) (uintptr, bool) {
	if !validTid(tid) || !t.waiting[tid] {
		return 0, false
	}
	return t.key[tid], true
}

// Len is the number of waiting threads.
func (t *Table) Len() int { return t.n }
