package ctl

import "github.com/unitrace/unitrace/trace/ring"

// Size caps.
const (
	MaxCommand  = 1024 // bytes in one command
	MaxString   = 64   // bytes in one string value
	MaxHz       = 10000
	MaxForcedHz = 100000
	// MaxSignal is the highest signal number the signal command takes: Linux's _NSIG, 64
	// (include/uapi/asm-generic/signal.h), real-time signals included.
	MaxSignal = 64
)

// Op is a command.
type Op uint8

const (
	OpNone Op = iota
	OpHello
	OpList
	OpEnable
	OpDisable
	OpMode
	OpSnapshot
	OpFlush
	OpStats
	OpStop
	OpSamplerStart
	OpSamplerStop
	OpStacks
	OpSignal
	OpStdinOpen
	OpStdinEnd
	OpGoroutines
	OpProbeSite
	OpProbeArm
	OpProbeDel
	OpProbeNew
	OpProbeList
	OpResume
	numOps
)

// opNames are the wire names, indexed by Op.
var opNames = [numOps]string{"", "hello", "list", "enable", "disable", "mode", "snapshot", "flush",
	"stats", "stop", "sampler.start", "sampler.stop", "stacks", "signal", "stdin.open", "stdin.end", "goroutines",
	"probe.site", "probe.arm", "probe.del", "probe.new", "probe.list", "resume"}

// String returns the wire name of the command ("" for OpNone or invalid).
func (o Op) String() string {
	if o >= numOps {
		return ""
	}
	return opNames[o]
}

// RingMode is the mode command's "ring" value.
type RingMode uint8

const (
	RingUnset RingMode = iota
	RingStream
	RingFlight
)

// Field bits: which optional fields a command carried (Command.Has) and
// which a command accepts.
const (
	HasMatch uint16 = 1 << iota
	HasStack
	HasRing
	HasSize
	HasHz
	HasForce
	HasSig
	HasTotal
	HasProbe
	HasSite
)

// MaxSite is the most bytes a site field carries (hex-encoded on the wire: twice as many
// characters, within MaxString).
const MaxSite = MaxString / 2

// allowed and required fields per Op (beyond id and cmd).
var (
	allowed = [numOps]uint16{
		OpList:         HasMatch,
		OpEnable:       HasMatch | HasStack,
		OpDisable:      HasMatch | HasStack,
		OpMode:         HasRing | HasSize,
		OpSamplerStart: HasHz | HasForce,
		OpSignal:       HasSig,
		OpStdinEnd:     HasTotal,
		OpProbeSite:    HasProbe | HasSite,
		OpProbeArm:     HasProbe | HasStack,
		OpProbeDel:     HasProbe,
	}
	required = [numOps]uint16{
		OpEnable:    HasMatch,
		OpDisable:   HasMatch,
		OpSignal:    HasSig,
		OpStdinEnd:  HasTotal,
		OpProbeSite: HasProbe | HasSite,
		OpProbeArm:  HasProbe,
		OpProbeDel:  HasProbe,
	}
)

// Command is a parsed command. It holds no pointers, so the kernel may keep
// it anywhere.
type Command struct {
	ID       uint32
	Op       Op
	Has      uint16 // Has* bits of the optional fields present
	Match    [MaxString]byte
	MatchLen uint8
	Stack    bool
	Ring     RingMode
	Size     uint64
	Hz       uint32
	Force    bool
	Sig      uint8  // the signal command's signal number, 1..MaxSignal
	Total    uint64 // stdin.end's byte count: the console's whole input
	// Probe is a dynamic probe's number (1..MaxProbe), Site one of its sites' wire form
	// (package probe), SiteLen its bytes.
	Probe   uint8
	Site    [MaxSite]byte
	SiteLen uint8
}

// MaxProbe is the highest probe number a command takes (the kernel's trace.MaxProbes).
const MaxProbe = 64

// Pattern returns the match glob ("*" when the command had none).
func (c *Command) Pattern() []byte {
	if c.Has&HasMatch == 0 {
		return star[:]
	}
	n := min(int(c.MatchLen), len(c.Match))
	return c.Match[:n]
}

var star = [1]byte{'*'}

// validate checks the fields against the command; it runs after the whole
// object parsed, because JSON fields come in any order.
func (c *Command) validate() Err {
	if c.Op == OpNone {
		return ErrNoCmd
	}
	if c.Has&^allowed[c.Op] != 0 {
		return ErrFieldNotForCmd
	}
	if c.Has&required[c.Op] != required[c.Op] {
		return ErrMissingField
	}
	switch c.Op {
	case OpMode:
		if c.Has&(HasRing|HasSize) == 0 {
			return ErrMissingField
		}
		if c.Has&HasSize != 0 && (c.Size < ring.MinSize || c.Size > ring.MaxSize || c.Size&(c.Size-1) != 0) {
			return ErrBadSize
		}
	case OpSamplerStart:
		limit := uint32(MaxHz)
		if c.Force {
			limit = MaxForcedHz
		}
		if c.Has&HasHz != 0 && (c.Hz == 0 || c.Hz > limit) {
			return ErrBadHz
		}
	case OpSignal:
		if c.Sig == 0 {
			return ErrBadSignal
		}
	}
	return ErrNone
}
