package probe

// Kind says what a site is of its function.
type Kind uint8

const (
	KindEntry  Kind = 1 // the function's entry, after its stack-growth check: the arguments
	KindReturn Kind = 2 // one of its return instructions: the results
	// KindCallEntry is a return probe's entry site: recorded as an entry (the arguments), so
	// that each return is paired with its call and timed, but not a hit of an entry probe.
	KindCallEntry Kind = 3
)

// IsEntry reports whether k is an entry site's kind.
func (k Kind) IsEntry() bool { return k == KindEntry || k == KindCallEntry }

// A Site is one breakpoint of a probe: its address, the instruction the breakpoint displaces
// (its bytes, as the host read them from the image; the kernel checks them against its text),
// its kind, and the strings to copy at a hit.
type Site struct {
	PC   uint64
	Code [MaxInsnLen]byte
	Len  uint8
	Kind Kind
	Arch Arch
	// Strings are the string arguments (at an entry) or results (at a return) whose bytes a
	// hit copies, up to StringBytes each: the integer registers, by their index in the ABI's
	// order (record.ProbeArgs' list), that hold each one's pointer and length.
	Strings     [MaxStrings]StringRegs
	NStrings    uint8
	StringBytes uint8
}

// StringRegs names the registers of a string's pointer and length.
type StringRegs struct{ Ptr, Len uint8 }

// IntRegs is how many integer registers carry a Go function's arguments and results on arch
// (the ABIInternal of Go's internal/abi: amd64 RAX, RBX, RCX, RDI, RSI, R8-R11; arm64 R0-R15):
// the integer registers a PROBE record holds.
//
//go:nosplit
func IntRegs(arch Arch) int {
	switch arch {
	case AMD64:
		return AMD64IntRegs
	case ARM64:
		return ARM64IntRegs
	}
	return 0
}

// The ABI's argument registers by arch, for IntRegs and FloatRegs and for the kernel's arrays.
const (
	AMD64IntRegs   = 9
	AMD64FloatRegs = 15
	ARM64IntRegs   = 16
	ARM64FloatRegs = 16
)

// FloatRegs is how many float registers carry a Go function's arguments and results on arch
// (amd64 X0-X14, arm64 F0-F15).
//
//go:nosplit
func FloatRegs(arch Arch) int {
	switch arch {
	case AMD64:
		return AMD64FloatRegs
	case ARM64:
		return ARM64FloatRegs
	}
	return 0
}

// Capacities of a site's string copies.
const (
	MaxStrings     = 2  // strings a site copies
	MaxStringBytes = 64 // bytes of each
)

// SiteSize is a Site's wire size: pc (8, little-endian), code (MaxInsnLen), len, kind, arch,
// a zero byte, the number of strings, the bytes to copy of each, the strings' register pairs
// (MaxStrings times ptr, len), zero bytes to a multiple of 8.
const SiteSize = 24

// Put writes s's wire form into b (at least SiteSize bytes) and returns SiteSize, or 0 if b is
// too short.
//
//go:nosplit
func (s *Site) Put(b []byte) int {
	if len(b) < SiteSize {
		return 0
	}
	for i := 0; i < 8; i++ {
		b[i] = byte(s.PC >> (8 * i))
	}
	copy(b[8:8+MaxInsnLen], s.Code[:])
	b[8+MaxInsnLen], b[9+MaxInsnLen], b[10+MaxInsnLen], b[11+MaxInsnLen] = s.Len, byte(s.Kind), byte(s.Arch), 0
	b[16], b[17] = s.NStrings, s.StringBytes
	for i, r := range s.Strings {
		b[18+2*i], b[19+2*i] = r.Ptr, r.Len
	}
	for i := 18 + 2*MaxStrings; i < SiteSize; i++ {
		b[i] = 0
	}
	return SiteSize
}

// Why a site is refused.
type Err uint8

const (
	OK          Err = iota
	ErrShort        // fewer than SiteSize bytes
	ErrKind         // neither an entry nor a return, or a return site that is no return
	ErrArch         // not this machine's instruction set
	ErrInsn         // the bytes are no instruction the kernel emulates, or Len is not theirs
	ErrReserved     // a reserved byte is not zero
	ErrStrings      // more strings or bytes than a site copies, or a register past the ABI's
)

var errText = [...]string{"ok", "short site", "bad site kind", "wrong architecture", "instruction not emulated", "reserved byte set",
	"bad string copies"}

// String says what went wrong.
func (e Err) String() string {
	if int(e) < len(errText) {
		return errText[e]
	}
	return "unknown error"
}

// ParseSite reads a site's wire form and checks it for arch: the code must decode to an
// emulated instruction of exactly Len bytes, a return site's must be a return, and its string
// copies must name registers below intRegs. It returns the site and its decoded instruction.
//
//go:nosplit
func ParseSite(b []byte, arch Arch, intRegs int) (Site, Insn, Err) {
	if len(b) < SiteSize {
		return Site{}, Insn{}, ErrShort
	}
	var s Site
	for i := 0; i < 8; i++ {
		s.PC |= uint64(b[i]) << (8 * i)
	}
	copy(s.Code[:], b[8:8+MaxInsnLen])
	s.Len, s.Kind, s.Arch = b[8+MaxInsnLen], Kind(b[9+MaxInsnLen]), Arch(b[10+MaxInsnLen])
	switch {
	case b[11+MaxInsnLen] != 0 || b[18+2*MaxStrings] != 0 || b[19+2*MaxStrings] != 0:
		return Site{}, Insn{}, ErrReserved
	case s.Arch != arch:
		return Site{}, Insn{}, ErrArch
	case !s.Kind.IsEntry() && s.Kind != KindReturn:
		return Site{}, Insn{}, ErrKind
	}
	in, ok := Decode(arch, s.Code[:])
	if !ok || in.Len != s.Len {
		return Site{}, Insn{}, ErrInsn
	}
	for i := int(s.Len); i < MaxInsnLen; i++ {
		if s.Code[i] != 0 {
			return Site{}, Insn{}, ErrInsn // bytes past the instruction: the host read more than it
		}
	}
	if (s.Kind == KindReturn) != (in.Op == OpRet) {
		return Site{}, Insn{}, ErrKind
	}
	s.NStrings, s.StringBytes = b[16], b[17]
	if s.NStrings > MaxStrings || s.StringBytes > MaxStringBytes {
		return Site{}, Insn{}, ErrStrings
	}
	for i := range s.Strings {
		r := StringRegs{Ptr: b[18+2*i], Len: b[19+2*i]}
		if i >= int(s.NStrings) && r != (StringRegs{}) || int(r.Ptr) >= intRegs || int(r.Len) >= intRegs {
			return Site{}, Insn{}, ErrStrings
		}
		s.Strings[i] = r
	}
	return s, in, OK
}
