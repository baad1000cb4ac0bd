package trace

import (
	"sync/atomic"

	"github.com/unitrace/unitrace/trace/ctl"
	"github.com/unitrace/unitrace/trace/record"
)

// Tracepoint flags (Point.state).
const (
	Enabled            uint32 = 1 << 0
	Backtrace          uint32 = 1 << 1 // walk the path that reached the tracepoint
	InterruptBacktrace uint32 = 1 << 2 // walk the interrupted thread (the sampler only)
)

// MaxArgs is the most argument slots a tracepoint has (a string takes record.StrSlots).
const MaxArgs = 8

// ArgKinds lists a tracepoint's argument kinds. Write it as a literal,
// ArgKinds{N: 2, Kinds: [MaxArgs]record.Kind{record.KU64, record.KHex}}, so that a Point declared
// with it is static data: the kernel registers and fires its tracepoints before package
// initialisation runs, and an initialiser that ran later would overwrite the Point's state.
type ArgKinds struct {
	N     uint8
	Kinds [MaxArgs]record.Kind
}

// Point is a static tracepoint. Declare it as a package variable; Register gives it its id.
type Point struct {
	Name   string // unique, [a-z0-9_]
	Format string // printf-style, one verb per argument, for the host's listing
	Args   ArgKinds

	state atomic.Uint32
	id    uint16
}

// On reports whether the tracepoint is enabled: the whole disabled-path cost.
//
//go:nosplit
func (p *Point) On() bool { return p.state.Load()&Enabled != 0 }

// ID is the tracepoint's id in records and the dictionary (0 until registered).
func (p *Point) ID() uint16 { return p.id }

// Flags returns the tracepoint's current flags.
func (p *Point) Flags() uint32 { return p.state.Load() }

// SetFlags replaces the tracepoint's flags.
func (p *Point) SetFlags(f uint32) { p.state.Store(f) }

// New makes and registers a tracepoint for a program's own use (the kernel declares its points
// as static literals instead). It returns nil if the registry is full or kinds has more than
// MaxArgs slots.
func New(name, format string, kinds ...record.Kind) *Point {
	if len(kinds) > MaxArgs {
		return nil
	}
	p := &Point{Name: name, Format: format}
	for i, k := range kinds {
		p.Args.Kinds[i] = k
	}
	p.Args.N = uint8(len(kinds))
	if !Register(p) {
		return nil
	}
	return p
}

// MaxPoints is the capacity of the registry.
const MaxPoints = 256

// The registry holds tracepoints by address: points are package variables (or heap objects kept
// alive by one), which never move, so a uintptr is enough and keeps the registry pointer-free
// (no write barriers; usable before the runtime starts).
var (
	registry  [MaxPoints]uintptr
	npoints   atomic.Int32
	globalBT  atomic.Bool // the global log-backtrace option
	regFailed atomic.Int32
)

// Register assigns p the next id. It returns false when the registry is full or p is already
// registered. Not safe to call concurrently with itself (boot and package init are serial).
func Register(p *Point) bool {
	if !register(p, record.FirstDictID+record.TPID(npoints.Load())) {
		return false
	}
	if globalBT.Load() && p.state.Load()&Enabled != 0 {
		p.state.Store(p.state.Load() | Backtrace)
	}
	return true
}

// register records p in the registry under id.
func register(p *Point, id record.TPID) bool {
	if p.id != 0 {
		return false
	}
	n := npoints.Load()
	if n >= MaxPoints {
		regFailed.Add(1)
		return false
	}
	registry[n] = addrOfPoint(p)
	p.id = uint16(id)
	npoints.Store(n + 1)
	return true
}

// NumPoints is how many tracepoints are registered.
func NumPoints() int { return int(npoints.Load()) }

// PointAt returns registered tracepoint i (0 <= i < NumPoints).
func PointAt(i int) *Point {
	if i < 0 || i >= NumPoints() {
		return nil
	}
	return pointAt(registry[i])
}

// Enable sets flags on every tracepoint whose name matches the glob pattern and returns how many
// matched. With the global log-backtrace option on, Backtrace comes with Enabled.
func Enable(pattern []byte, flags uint32) int {
	if stopped.Load() {
		return 0
	}
	if globalBT.Load() && flags&Enabled != 0 {
		flags |= Backtrace
	}
	n := 0
	for i := 0; i < NumPoints(); i++ {
		p := PointAt(i)
		if ctl.Match(pattern, p.Name) {
			p.state.Store(p.state.Load() | flags)
			n++
		}
	}
	return n
}

// Disable clears flags on every matching tracepoint and returns how many matched.
func Disable(pattern []byte, flags uint32) int {
	n := 0
	for i := 0; i < NumPoints(); i++ {
		p := PointAt(i)
		if ctl.Match(pattern, p.Name) {
			p.state.Store(p.state.Load() &^ flags)
			n++
		}
	}
	return n
}

// SetGlobalBacktrace turns the global log-backtrace option on or off: it sets (or clears)
// Backtrace on every enabled tracepoint, now and when later ones are enabled. It never touches
// InterruptBacktrace.
func SetGlobalBacktrace(on bool) {
	globalBT.Store(on)
	for i := 0; i < NumPoints(); i++ {
		p := PointAt(i)
		s := p.state.Load()
		switch {
		case on && s&Enabled != 0:
			p.state.Store(s | Backtrace)
		case !on:
			p.state.Store(s &^ Backtrace)
		}
	}
}

// EnableString is Enable with the pattern as a string (a view of the kernel command line, for
// example), without copying it.
func EnableString(pattern string, flags uint32) int { return Enable(bytesOf(pattern), flags) }
