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
// and its kind.
type Site struct {
	PC   uint64
	Code [MaxInsnLen]byte
	Len  uint8
	Kind Kind
	Arch Arch
}

// SiteSize is a Site's wire size: pc (8, little-endian), code (MaxInsnLen), len, kind, arch,
// and a zero byte.
const SiteSize = 8 + MaxInsnLen + 4

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
	ErrReserved     // the reserved byte is not zero
)

var errText = [...]string{"ok", "short site", "bad site kind", "wrong architecture", "instruction not emulated", "reserved byte set"}

// String says what went wrong.
func (e Err) String() string {
	if int(e) < len(errText) {
		return errText[e]
	}
	return "unknown error"
}

// ParseSite reads a site's wire form and checks it for arch: the code must decode to an
// emulated instruction of exactly Len bytes, and a return site's must be a return. It returns
// the site and its decoded instruction.
//
//go:nosplit
func ParseSite(b []byte, arch Arch) (Site, Insn, Err) {
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
	case b[11+MaxInsnLen] != 0:
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
	return s, in, OK
}
