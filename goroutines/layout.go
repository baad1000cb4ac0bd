package goroutines

// The layout slot: the contract between the image builder, which fills it from the image's
// DWARF and symbols, and the kernel, which reads it at boot. It is a Slot in the kernel's data,
// found by its symbol; its marker says whether it was filled, refused (with the reason) or
// never touched (an image the builder did not patch).

// SlotSymbol is the linker symbol of the kernel's slot.
const SlotSymbol = "github.com/unitrace/unitrace/kernel/observe.goLayout"

// Markers: the first 16 bytes of a slot.
const (
	MarkerEmpty   = "unitrace:golay:-" // as linked: the builder has not looked
	MarkerFilled  = "unitrace:golay:+" // Words hold the layout
	MarkerRefused = "unitrace:golay:!" // Reason says why the builder could not fill it
)

// Version is the slot's format: it changes when a word moves.
const Version = 1

// ReasonBytes is the most bytes of a refusal's reason the slot holds.
const ReasonBytes = 160

// Slot is the slot's layout.
type Slot struct {
	Marker  [16]byte
	Version uint32
	N       uint32 // NumWords when filled
	Words   [NumWords]uint64
	Reason  [ReasonBytes]byte // NUL-padded
}

// SlotSize is a Slot's size in bytes.
const SlotSize = 16 + 4 + 4 + NumWords*8 + ReasonBytes

// The words of a filled slot, by index.
const (
	WAllGLen     = iota // address of runtime.allglen (uintptr): how many entries allgptr has
	WAllGPtr            // address of runtime.allgptr (**g): the first entry of runtime.allgs
	WGSize              // size of runtime.g
	WGStackLo           // g.stack.lo
	WGStackHi           // g.stack.hi
	WGSchedSP           // g.sched.sp: where a goroutine that is not running resumes
	WGSchedPC           // g.sched.pc
	WGSchedBP           // g.sched.bp, its frame pointer
	WGSyscallSP         // g.syscallsp: a goroutine in a system call, where it entered it
	WGSyscallPC         // g.syscallpc
	WGSyscallBP         // g.syscallbp
	WGM                 // g.m: the M running it (nil when it is not running)
	WGGoid              // g.goid
	WGStatus            // g.atomicstatus (uint32)
	WGWaitReason        // g.waitreason (uint8)
	WGWaitSince         // g.waitsince (int64, ns; set by the GC's scan, 0 otherwise)
	WGGoPC              // g.gopc: the go statement that created it
	WGStartPC           // g.startpc: the function it started in
	WMSize              // size of runtime.m
	WMProcID            // m.procid: the thread's id (gettid)
	WMCurg              // m.curg
	// The goroutine states (runtime._G*): the values the reader compares g.atomicstatus with.
	WIdle
	WRunnable
	WRunning
	WSyscall
	WWaiting
	WDead
	WCopystack
	WPreempted
	WLeaked
	WDeadExtra
	WScan
	NumWords
)

// SourceKind says where the builder finds a word.
type SourceKind uint8

const (
	FromSymbol   SourceKind = iota + 1 // the address of a data symbol of Size bytes
	FromTypeSize                       // the byte size of the struct type Type
	FromMember                         // the offset of Member in Type, a field of Size bytes
	FromConst                          // the value of the constant Name
)

// Source is where one word comes from.
type Source struct {
	Kind   SourceKind
	Name   string // the symbol, type or constant
	Member string // a dotted member path, for FromMember
	Size   int64  // the symbol's or member's byte size the reader assumes (0: any)
}

// Sources says, word by word, where the builder finds the layout: the runtime's names, which a
// toolchain that renames or resizes one makes the builder refuse.
var Sources = [NumWords]Source{
	WAllGLen:     {FromSymbol, "runtime.allglen", "", 8},
	WAllGPtr:     {FromSymbol, "runtime.allgptr", "", 8},
	WGSize:       {FromTypeSize, "runtime.g", "", 0},
	WGStackLo:    {FromMember, "runtime.g", "stack.lo", 8},
	WGStackHi:    {FromMember, "runtime.g", "stack.hi", 8},
	WGSchedSP:    {FromMember, "runtime.g", "sched.sp", 8},
	WGSchedPC:    {FromMember, "runtime.g", "sched.pc", 8},
	WGSchedBP:    {FromMember, "runtime.g", "sched.bp", 8},
	WGSyscallSP:  {FromMember, "runtime.g", "syscallsp", 8},
	WGSyscallPC:  {FromMember, "runtime.g", "syscallpc", 8},
	WGSyscallBP:  {FromMember, "runtime.g", "syscallbp", 8},
	WGM:          {FromMember, "runtime.g", "m", 8},
	WGGoid:       {FromMember, "runtime.g", "goid", 8},
	WGStatus:     {FromMember, "runtime.g", "atomicstatus", 4},
	WGWaitReason: {FromMember, "runtime.g", "waitreason", 1},
	WGWaitSince:  {FromMember, "runtime.g", "waitsince", 8},
	WGGoPC:       {FromMember, "runtime.g", "gopc", 8},
	WGStartPC:    {FromMember, "runtime.g", "startpc", 8},
	WMSize:       {FromTypeSize, "runtime.m", "", 0},
	WMProcID:     {FromMember, "runtime.m", "procid", 8},
	WMCurg:       {FromMember, "runtime.m", "curg", 8},
	WIdle:        {FromConst, "runtime._Gidle", "", 0},
	WRunnable:    {FromConst, "runtime._Grunnable", "", 0},
	WRunning:     {FromConst, "runtime._Grunning", "", 0},
	WSyscall:     {FromConst, "runtime._Gsyscall", "", 0},
	WWaiting:     {FromConst, "runtime._Gwaiting", "", 0},
	WDead:        {FromConst, "runtime._Gdead", "", 0},
	WCopystack:   {FromConst, "runtime._Gcopystack", "", 0},
	WPreempted:   {FromConst, "runtime._Gpreempted", "", 0},
	WLeaked:      {FromConst, "runtime._Gleaked", "", 0},
	WDeadExtra:   {FromConst, "runtime._Gdeadextra", "", 0},
	WScan:        {FromConst, "runtime._Gscan", "", 0},
}

// Layout is a filled slot's words.
type Layout [NumWords]uint64

// Fill writes l into slot, a SlotSize-byte slice of the image holding a slot (any marker). It
// returns false if slot is not one.
func Fill(slot []byte, l *Layout) bool {
	if !isSlot(slot) {
		return false
	}
	copy(slot, MarkerFilled)
	clear(slot[16:SlotSize])
	put32(slot[16:], Version)
	put32(slot[20:], NumWords)
	for i, w := range l {
		put64(slot[24+8*i:], w)
	}
	return true
}

// Refuse marks slot refused with reason (cut to ReasonBytes). It returns false if slot is not
// one.
func Refuse(slot []byte, reason string) bool {
	if !isSlot(slot) {
		return false
	}
	copy(slot, MarkerRefused)
	clear(slot[16:SlotSize])
	put32(slot[16:], Version)
	copy(slot[24+8*NumWords:SlotSize], reason)
	return true
}

// IsSlot reports whether b starts with a slot's marker.
func IsSlot(b []byte) bool { return isSlot(b) }

func isSlot(b []byte) bool {
	if len(b) < SlotSize {
		return false
	}
	m := string(b[:16])
	return m == MarkerEmpty || m == MarkerFilled || m == MarkerRefused
}

// Read returns the layout of a filled slot of this Version; ok is false otherwise.
//
//go:nosplit
func (s *Slot) Read() (l *Layout, ok bool) {
	if !s.marked(MarkerFilled) || s.Version != Version || s.N != NumWords {
		return nil, false
	}
	return (*Layout)(&s.Words), true
}

// State says what a slot holds, for the kernel's message when it cannot sweep.
//
//go:nosplit
func (s *Slot) State() SlotState {
	switch {
	case s.marked(MarkerFilled) && s.Version == Version && s.N == NumWords:
		return SlotFilled
	case s.marked(MarkerFilled):
		return SlotOtherVersion
	case s.marked(MarkerRefused):
		return SlotRefused
	}
	return SlotEmpty
}

// ReasonBytes returns the refusal's reason (NUL-trimmed); empty unless the slot was refused.
//
//go:nosplit
func (s *Slot) RefusalReason() []byte {
	if !s.marked(MarkerRefused) {
		return nil
	}
	n := 0
	for n < len(s.Reason) && s.Reason[n] != 0 {
		n++
	}
	return s.Reason[:n]
}

//go:nosplit
func (s *Slot) marked(m string) bool {
	for i := 0; i < 16; i++ {
		if s.Marker[i] != m[i] {
			return false
		}
	}
	return true
}

// SlotState is what a slot holds.
type SlotState uint8

const (
	SlotEmpty        SlotState = iota // never filled: the image was not patched by the builder
	SlotFilled                        // a layout the reader can use
	SlotRefused                       // the builder could not find the layout (RefusalReason)
	SlotOtherVersion                  // filled by a builder of another slot format
)

func put32(b []byte, v uint32) {
	_ = b[3]
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}

func put64(b []byte, v uint64) {
	put32(b, uint32(v))
	put32(b[4:], uint32(v>>32))
}
