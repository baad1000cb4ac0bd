// Package kern breaks every kernel-mode rule the checker enforces, once per
// function, so the test can see each one caught.
package kern

type node struct {
	next *node
	v    int
}

var head *node

// Push stores a pointer into a global: a write barrier.
//
//go:noinline
func Push(n *node) { head = n }

// New returns a pointer to a fresh object: it escapes to the heap.
//
//go:noinline
func New(v int) *node { return &node{v: v} }

// Grow appends past the capacity: runtime.growslice.
//
//go:noinline
func Grow(b []int, v int) []int { return append(b, v) }

// Buf makes a slice of run-time size: runtime.makeslice.
//
//go:noinline
func Buf(n int) []byte { return make([]byte, n) }

// Box converts an integer to an interface: runtime.convT64.
//
//go:noinline
func Box(v int) any { return v }

// Name concatenates strings: runtime.concatstring2.
//
//go:noinline
func Name(a, b string) string { return a + b }

// Lookup reads a map: runtime.mapaccess1_fast64.
//
//go:noinline
func Lookup(m map[int]int, k int) int { return m[k] }

// Reader and ReadWriter are interfaces one of which is converted to the other.
type Reader interface{ Read() int }

// ReadWriter adds a method to Reader.
type ReadWriter interface {
	Reader
	Write(int)
}

// Narrow converts one interface to another: runtime.typeAssert, which looks the method table
// up under a runtime lock.
//
//go:noinline
func Narrow(rw ReadWriter) Reader { return rw }
