package goroutines

import (
	"sync/atomic"
	"unsafe"
)

// State is a goroutine's state as the reader reports it: the runtime's states folded into the
// ones a profile tells apart. Its values are part of the trace format (the GOROUTINE record).
type State uint8

const (
	StateRunnable State = 1 // on a run queue, waiting for a P (and a goroutine the GC stopped for a moment)
	StateRunning  State = 2 // running on an M: the CPU sampler's, unless that M's thread is off its CPU
	StateSyscall  State = 3 // in a system call
	StateWaiting  State = 4 // parked in the runtime: WaitReason says on what
)

// String names a state as the runtime's tracebacks do.
func (s State) String() string {
	switch s {
	case StateRunnable:
		return "runnable"
	case StateRunning:
		return "running"
	case StateSyscall:
		return "syscall"
	case StateWaiting:
		return "waiting"
	}
	return "unknown"
}

// G is what the reader read of one goroutine.
type G struct {
	Addr      uintptr // the runtime.g
	ID        uint64
	State     State
	Raw       uint32 // g.atomicstatus as read, scan bit included (Recheck compares it)
	Reason    uint8  // g.waitreason: an index into the runtime's waitReasonStrings
	WaitSince int64  // g.waitsince (ns on the runtime's clock), 0 when the runtime did not set it
	// Where the goroutine resumes (g.sched), or for one in a system call where it entered it
	// (g.syscall*): its pc, stack pointer and frame pointer. Zero for a running goroutine.
	PC, SP, BP       uintptr
	StackLo, StackHi uintptr
	M                uintptr // the M it runs on (running, or in a system call), 0 for none
	Thread           uint64  // that M's thread id (m.procid), 0 without an M
	GoPC, StartPC    uintptr
}

// Result says what Next found at an entry of the goroutine list.
type Result uint8

const (
	Live Result = iota // a goroutine, in the G
	Gone               // an entry whose goroutine exited or has not started (dead, idle): nothing to show
	Bad                // the entry or a field failed a check: skipped, counted
	Busy               // the GC holds the goroutine (scan bit) or moves its stack: skipped, counted
	End                // no more entries
)

// Limits on what a valid list or goroutine can hold; beyond them a value is garbage.
const (
	maxGoroutines = 1 << 26 // entries of allgs (the runtime's goids are 64-bit, its list is not this long)
	maxStack      = 1 << 30 // the runtime's default maximum stack is 1 GB on 64-bit machines
	maxStruct     = 4096    // a g or an m spans at most two pages, so two checks cover it
)

// Reader walks the runtime's goroutine list (runtime.allgs, read as the runtime's own
// forEachGRace does: allglen, then allgptr) and reads one goroutine per entry. It is a plain
// struct that the kernel keeps on its stack: no allocation, no panic.
type Reader struct {
	L Layout // by value: the kernel's reader is a global, set without a write barrier
	// Readable reports whether the 8 aligned bytes at addr can be loaded without a fault.
	Readable       func(addr uintptr) bool
	TextLo, TextHi uintptr // the image's code: every pc the reader reports lies inside

	list uintptr // allgptr as read
	n, i int     // entries in the list as read, the next one to read
}

// Valid reports whether l is a layout the reader can use: every field inside its struct, the
// structs small enough for its checks, the states distinct. A slot whose words fail it is as
// good as refused.
//
//go:nosplit
func (l *Layout) Valid() bool {
	if l[WGSize] == 0 || l[WGSize] > maxStruct || l[WGSize]&7 != 0 || l[WMSize] == 0 || l[WMSize] > maxStruct || l[WMSize]&7 != 0 {
		return false
	}
	if l[WAllGLen] == 0 || l[WAllGLen]&7 != 0 || l[WAllGPtr] == 0 || l[WAllGPtr]&7 != 0 {
		return false
	}
	for i := WGStackLo; i <= WMCurg; i++ {
		if i == WMSize {
			continue
		}
		src := &Sources[i]
		size := uint64(src.Size)
		limit := l[WGSize]
		if src.Name == "runtime.m" {
			limit = l[WMSize]
		}
		if l[i]+size > limit || l[i]&(size-1) != 0 {
			return false
		}
	}
	var seen uint64
	for i := WIdle; i < WScan; i++ {
		if l[i] >= 64 || seen&(1<<l[i]) != 0 {
			return false
		}
		seen |= 1 << l[i]
	}
	return l[WScan] >= 64 && l[WScan]&(l[WScan]-1) == 0 && l[WScan] < 1<<32
}

// Start reads the list's length and array afresh and returns how many entries it has, or -1
// if either word is unreadable or garbage. Entries appended after Start are the next sweep's.
func (r *Reader) Start() int {
	r.n, r.i, r.list = 0, 0, 0
	lenAddr, ptrAddr := uintptr(r.L[WAllGLen]), uintptr(r.L[WAllGPtr])
	if !r.Readable(lenAddr) || !r.Readable(ptrAddr) {
		return -1
	}
	// The runtime stores the array before the length, so an array read after the length has
	// at least that many entries.
	n := atomic.LoadUintptr((*uintptr)(ptr(lenAddr)))
	list := atomic.LoadUintptr((*uintptr)(ptr(ptrAddr)))
	if n == 0 {
		return 0
	}
	if n > maxGoroutines || list == 0 || list&7 != 0 || list+8*n < list {
		return -1
	}
	r.n, r.list = int(n), list
	return r.n
}

// Next reads the next entry into g.
func (r *Reader) Next(g *G) Result {
	if r.i >= r.n {
		return End
	}
	at := r.list + uintptr(r.i)*8
	r.i++
	if !r.Readable(at) {
		return Bad
	}
	return r.read(uintptr(load64(at)), g)
}

// Index is the entry Next reads next.
func (r *Reader) Index() int { return r.i }

// Seek makes entry i the one Next reads next (past the end: Next ends).
func (r *Reader) Seek(i int) { r.i = max(i, 0) }

// read reads the goroutine at gp into g.
func (r *Reader) read(gp uintptr, g *G) Result {
	l := &r.L
	*g = G{Addr: gp}
	if !r.object(gp, l[WGSize]) {
		return Bad
	}
	raw := load32(gp + uintptr(l[WGStatus]))
	g.Raw = raw
	scan := uint32(l[WScan])
	st := raw &^ scan
	switch uint64(st) {
	case l[WIdle], l[WDead], l[WDeadExtra]:
		return Gone
	case l[WCopystack]:
		return Busy
	case l[WRunnable], l[WPreempted]:
		g.State = StateRunnable
	case l[WRunning]:
		g.State = StateRunning
	case l[WSyscall]:
		g.State = StateSyscall
	case l[WWaiting], l[WLeaked]:
		g.State = StateWaiting
	default:
		return Bad
	}
	if raw&scan != 0 {
		return Busy
	}
	g.ID = load64(gp + uintptr(l[WGGoid]))
	if g.ID == 0 {
		return Bad // only g0s and gsignals have id 0, and they are not in the list
	}
	g.StackLo, g.StackHi = uintptr(load64(gp+uintptr(l[WGStackLo]))), uintptr(load64(gp+uintptr(l[WGStackHi])))
	if g.StackLo == 0 || g.StackLo&7 != 0 || g.StackHi <= g.StackLo || g.StackHi-g.StackLo > maxStack {
		return Bad
	}
	g.Reason = load8(gp + uintptr(l[WGWaitReason]))
	g.WaitSince = int64(load64(gp + uintptr(l[WGWaitSince])))
	g.GoPC = r.text(uintptr(load64(gp + uintptr(l[WGGoPC]))))
	g.StartPC = r.text(uintptr(load64(gp + uintptr(l[WGStartPC]))))
	switch g.State {
	case StateRunnable, StateWaiting:
		g.PC, g.SP, g.BP = r.resume(gp, WGSchedPC, WGSchedSP, WGSchedBP)
	case StateSyscall:
		g.PC, g.SP, g.BP = r.resume(gp, WGSyscallPC, WGSyscallSP, WGSyscallBP)
	}
	if g.State != StateRunning && (g.PC == 0 || g.SP < g.StackLo || g.SP > g.StackHi) {
		return Bad
	}
	if g.State != StateWaiting {
		g.Reason = 0 // the runtime leaves the last one there
	}
	if g.State == StateRunning || g.State == StateSyscall {
		mp := uintptr(load64(gp + uintptr(l[WGM])))
		if mp != 0 {
			if !r.object(mp, l[WMSize]) {
				return Bad
			}
			g.M = mp
			g.Thread = load64(mp + uintptr(l[WMProcID]))
		}
	}
	return Live
}

// resume reads a pc, sp and bp triple of g; the pc is 0 unless it lies in the text.
func (r *Reader) resume(gp uintptr, pc, sp, bp int) (uintptr, uintptr, uintptr) {
	l := &r.L
	return r.text(uintptr(load64(gp + uintptr(l[pc])))), uintptr(load64(gp + uintptr(l[sp]))), uintptr(load64(gp + uintptr(l[bp])))
}

// text returns pc if it lies in the image's code, else 0.
func (r *Reader) text(pc uintptr) uintptr {
	if pc < r.TextLo || pc >= r.TextHi {
		return 0
	}
	return pc
}

// object reports whether the size bytes of a runtime object at p can be read: p aligned, and
// its first and last words readable (it spans at most two pages).
func (r *Reader) object(p uintptr, size uint64) bool {
	return p != 0 && p&7 == 0 && p+uintptr(size) > p && r.Readable(p) && r.Readable(p+uintptr(size)-8)
}

// Recheck reports whether the goroutine read into g is still the one it was, in the same state
// on the same stack: after its stack was walked, a change means the walk may have read a
// stack the goroutine left, and the sample is dropped.
func (r *Reader) Recheck(g *G) bool {
	l := &r.L
	gp := g.Addr
	if load32(gp+uintptr(l[WGStatus])) != g.Raw || load64(gp+uintptr(l[WGGoid])) != g.ID ||
		uintptr(load64(gp+uintptr(l[WGStackLo]))) != g.StackLo {
		return false
	}
	switch g.State {
	case StateRunnable, StateWaiting:
		return uintptr(load64(gp+uintptr(l[WGSchedSP]))) == g.SP
	case StateSyscall:
		return uintptr(load64(gp+uintptr(l[WGSyscallSP]))) == g.SP
	}
	return true
}

// The loads: every caller has checked the object they read (object) and the layout (Valid)
// puts each field inside it.

//go:nosplit
func load64(addr uintptr) uint64 { return *(*uint64)(ptr(addr)) }

//go:nosplit
func load32(addr uintptr) uint32 { return *(*uint32)(ptr(addr)) }

//go:nosplit
func load8(addr uintptr) uint8 { return *(*uint8)(ptr(addr)) }

// ptr turns an address into a pointer without the conversion vet flags: the memory is the
// runtime's, read from outside it, never an object this code allocated.
//
//go:nosplit
func ptr(addr uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&addr)) }
