package goroutines

import (
	"encoding/binary"
	"testing"
	"unsafe"
)

// A synthetic runtime: an arena of words standing for the runtime's memory, with the list,
// gs and ms laid out by testLayout, which is shaped like the real one but not the same.

var testLayout = func() Layout {
	var l Layout
	l[WGSize], l[WMSize] = 256, 64
	l[WGStackLo], l[WGStackHi], l[WGM] = 0, 8, 48
	l[WGSchedSP], l[WGSchedPC], l[WGSchedBP] = 56, 64, 104
	l[WGSyscallSP], l[WGSyscallPC], l[WGSyscallBP] = 112, 120, 128
	l[WGStatus], l[WGGoid], l[WGWaitReason], l[WGWaitSince] = 144, 152, 160, 168
	l[WGGoPC], l[WGStartPC] = 176, 184
	l[WMProcID], l[WMCurg] = 8, 16
	l[WIdle], l[WRunnable], l[WRunning], l[WSyscall], l[WWaiting] = 0, 1, 2, 3, 4
	l[WDead], l[WCopystack], l[WPreempted], l[WLeaked], l[WDeadExtra], l[WScan] = 6, 8, 9, 10, 11, 0x1000
	return l
}()

const (
	textLo, textHi = 0x400000, 0x500000
	arenaWords     = 1 << 14
	listAt         = 64 * 8    // the allgs array's offset in the arena
	gsAt           = 4096      // the first g's
	msAt           = 96 * 1024 // the first m's
	stacksAt       = 64 * 1024
)

type arena struct {
	words []uint64
	base  uintptr
}

func newArena() *arena {
	w := make([]uint64, arenaWords)
	return &arena{words: w, base: uintptr(unsafe.Pointer(&w[0]))}
}

func (a *arena) readable(addr uintptr) bool {
	return addr&7 == 0 && addr >= a.base && addr+8 <= a.base+uintptr(len(a.words))*8
}

func (a *arena) addr(off uintptr) uintptr { return a.base + off }

func (a *arena) put(addr uintptr, v uint64) { a.words[(addr-a.base)/8] = v }

func (a *arena) put32(addr uintptr, v uint32) {
	b := unsafe.Slice((*byte)(unsafe.Pointer(&a.words[0])), len(a.words)*8)
	binary.LittleEndian.PutUint32(b[addr-a.base:], v)
}

func (a *arena) put8(addr uintptr, v uint8) {
	b := unsafe.Slice((*byte)(unsafe.Pointer(&a.words[0])), len(a.words)*8)
	b[addr-a.base] = v
}

// reader returns a reader of the arena, whose allglen and allgptr are its first two words.
func (a *arena) reader() *Reader {
	l := testLayout
	l[WAllGLen], l[WAllGPtr] = uint64(a.addr(0)), uint64(a.addr(8))
	return &Reader{L: l, Readable: a.readable, TextLo: textLo, TextHi: textHi}
}

// gSpec is one synthetic goroutine.
type gSpec struct {
	status       uint32
	id           uint64
	reason       uint8
	pc, sp, bp   uint64
	lo, hi       uint64
	thread       uint64 // its M's procid; 0: no M
	syscallState bool
}

// addG writes g as entry i of the list and returns its address.
func (a *arena) addG(i int, g gSpec) uintptr {
	l := &testLayout
	gp := a.addr(gsAt + uintptr(i)*uintptr(l[WGSize]))
	a.put(a.addr(listAt)+uintptr(i)*8, uint64(gp))
	a.put(a.addr(0), uint64(i+1))
	a.put(a.addr(8), uint64(a.addr(listAt)))
	a.put32(gp+uintptr(l[WGStatus]), g.status)
	a.put(gp+uintptr(l[WGGoid]), g.id)
	a.put8(gp+uintptr(l[WGWaitReason]), g.reason)
	a.put(gp+uintptr(l[WGStackLo]), g.lo)
	a.put(gp+uintptr(l[WGStackHi]), g.hi)
	pc, sp, bp := WGSchedPC, WGSchedSP, WGSchedBP
	if g.syscallState {
		pc, sp, bp = WGSyscallPC, WGSyscallSP, WGSyscallBP
	}
	a.put(gp+uintptr(l[pc]), g.pc)
	a.put(gp+uintptr(l[sp]), g.sp)
	a.put(gp+uintptr(l[bp]), g.bp)
	a.put(gp+uintptr(l[WGGoPC]), textLo+0x100)
	if g.thread != 0 {
		mp := a.addr(msAt + uintptr(i)*uintptr(l[WMSize]))
		a.put(mp+uintptr(l[WMProcID]), g.thread)
		a.put(gp+uintptr(l[WGM]), uint64(mp))
	}
	return gp
}

func (a *arena) stack(i int) (lo, hi uint64) {
	lo = uint64(a.addr(stacksAt + uintptr(i)*1024))
	return lo, lo + 1024
}

func TestReaderReadsEveryState(t *testing.T) {
	a := newArena()
	var specs []gSpec
	for i, st := range []uint32{1, 2, 3, 4, 9, 10} {
		lo, hi := a.stack(i)
		g := gSpec{status: st, id: uint64(100 + i), reason: 19, pc: textLo + 0x40, sp: lo + 512, bp: lo + 600, lo: lo, hi: hi}
		if st == 2 || st == 3 {
			g.thread = uint64(7 + i)
		}
		g.syscallState = st == 3
		specs = append(specs, g)
		a.addG(i, g)
	}
	r := a.reader()
	if n := r.Start(); n != len(specs) {
		t.Fatalf("Start: %d entries, want %d", n, len(specs))
	}
	want := []State{StateRunnable, StateRunning, StateSyscall, StateWaiting, StateRunnable, StateWaiting}
	for i, spec := range specs {
		var g G
		if res := r.Next(&g); res != Live {
			t.Fatalf("entry %d: %v, want Live", i, res)
		}
		if g.ID != spec.id || g.State != want[i] || g.StackLo != uintptr(spec.lo) || g.StackHi != uintptr(spec.hi) {
			t.Errorf("entry %d: %+v, want id %d state %v", i, g, spec.id, want[i])
		}
		if want[i] != StateRunning && (g.PC != uintptr(spec.pc) || g.SP != uintptr(spec.sp) || g.BP != uintptr(spec.bp)) {
			t.Errorf("entry %d: resumes at pc %#x sp %#x bp %#x, want %#x %#x %#x", i, g.PC, g.SP, g.BP, spec.pc, spec.sp, spec.bp)
		}
		if (want[i] == StateWaiting) != (g.Reason == 19) {
			t.Errorf("entry %d (%v): reason %d", i, g.State, g.Reason)
		}
		if g.Thread != spec.thread {
			t.Errorf("entry %d: thread %d, want %d", i, g.Thread, spec.thread)
		}
		if !r.Recheck(&g) {
			t.Errorf("entry %d: Recheck failed on an unchanged goroutine", i)
		}
	}
	var g G
	if res := r.Next(&g); res != End {
		t.Errorf("after the last entry: %v, want End", res)
	}
}

func TestReaderSkipsWhatFailsItsChecks(t *testing.T) {
	good := func(a *arena, i int) gSpec {
		lo, hi := a.stack(i)
		return gSpec{status: 4, id: 5, pc: textLo + 8, sp: lo + 64, bp: lo + 128, lo: lo, hi: hi}
	}
	cases := []struct {
		name string
		edit func(a *arena, g *gSpec)
		want Result
	}{
		{"dead", func(a *arena, g *gSpec) { g.status = 6 }, Gone},
		{"idle", func(a *arena, g *gSpec) { g.status = 0 }, Gone},
		{"copying its stack", func(a *arena, g *gSpec) { g.status = 8 }, Busy},
		{"held by the GC", func(a *arena, g *gSpec) { g.status = 0x1004 }, Busy},
		{"an unknown state", func(a *arena, g *gSpec) { g.status = 77 }, Bad},
		{"id 0", func(a *arena, g *gSpec) { g.id = 0 }, Bad},
		{"stack upside down", func(a *arena, g *gSpec) { g.lo, g.hi = g.hi, g.lo }, Bad},
		{"stack unaligned", func(a *arena, g *gSpec) { g.lo++ }, Bad},
		{"pc outside the text", func(a *arena, g *gSpec) { g.pc = textHi }, Bad},
		{"sp outside its stack", func(a *arena, g *gSpec) { g.sp = g.hi + 8 }, Bad},
	}
	for _, c := range cases {
		a := newArena()
		g := good(a, 0)
		c.edit(a, &g)
		a.addG(0, g)
		r := a.reader()
		r.Start()
		var got G
		if res := r.Next(&got); res != c.want {
			t.Errorf("%s: %v, want %v", c.name, res, c.want)
		}
	}
	// Pointers that lead nowhere: a g outside the memory, unaligned, an M outside it.
	a := newArena()
	a.addG(0, good(a, 0))
	a.addG(1, good(a, 1))
	lo, hi := a.stack(2)
	gp := a.addG(2, gSpec{status: 3, id: 9, pc: textLo, sp: lo + 8, lo: lo, hi: hi, thread: 1, syscallState: true})
	a.put(a.addr(listAt), 0xdead_0000)
	a.put(a.addr(listAt+8), uint64(a.addr(gsAt+256+4)))
	a.put(gp+uintptr(testLayout[WGM]), 0x10)
	r := a.reader()
	r.Start()
	for i := 0; i < 3; i++ {
		var g G
		if res := r.Next(&g); res != Bad {
			t.Errorf("entry %d with a bad pointer: %v, want Bad", i, res)
		}
	}
}

func TestReaderRefusesABadList(t *testing.T) {
	a := newArena()
	a.addG(0, gSpec{})
	r := a.reader()
	a.put(a.addr(8), 0)
	if n := r.Start(); n != -1 {
		t.Errorf("a nil array: Start %d, want -1", n)
	}
	a.put(a.addr(8), uint64(a.addr(listAt)))
	a.put(a.addr(0), 1<<40)
	if n := r.Start(); n != -1 {
		t.Errorf("a length of 2^40: Start %d, want -1", n)
	}
	r.L[WAllGLen] = 0x8
	if n := r.Start(); n != -1 {
		t.Errorf("an unreadable length: Start %d, want -1", n)
	}
	// Entries past the readable memory are Bad, one by one: the list is not trusted whole.
	a = newArena()
	a.put(a.addr(0), 8)
	a.put(a.addr(8), uint64(a.addr(arenaWords*8-16)))
	r = a.reader()
	if n := r.Start(); n != 8 {
		t.Fatalf("Start %d, want 8", n)
	}
	bad := 0
	for {
		var g G
		res := r.Next(&g)
		if res == End {
			break
		}
		if res == Bad {
			bad++
		}
	}
	if bad != 8 {
		t.Errorf("%d of 8 entries Bad, want all (2 zero pointers, 6 outside the memory)", bad)
	}
}

func TestRecheckSeesAChange(t *testing.T) {
	a := newArena()
	lo, hi := a.stack(0)
	gp := a.addG(0, gSpec{status: 4, id: 3, pc: textLo, sp: lo + 8, lo: lo, hi: hi})
	for name, edit := range map[string]func(){
		"state":    func() { a.put32(gp+uintptr(testLayout[WGStatus]), 1) },
		"id":       func() { a.put(gp+uintptr(testLayout[WGGoid]), 4) },
		"stack":    func() { a.put(gp+uintptr(testLayout[WGStackLo]), lo+16) },
		"resume":   func() { a.put(gp+uintptr(testLayout[WGSchedSP]), lo+16) },
		"scan bit": func() { a.put32(gp+uintptr(testLayout[WGStatus]), 0x1004) },
	} {
		a.addG(0, gSpec{status: 4, id: 3, pc: textLo, sp: lo + 8, lo: lo, hi: hi})
		r := a.reader()
		r.Start()
		var g G
		if res := r.Next(&g); res != Live {
			t.Fatalf("%s: %v", name, res)
		}
		edit()
		if r.Recheck(&g) {
			t.Errorf("Recheck passed after the goroutine's %s changed", name)
		}
	}
}

func TestLayoutValid(t *testing.T) {
	l := testLayout
	l[WAllGLen], l[WAllGPtr] = 8, 16
	if !l.Valid() {
		t.Fatal("the test layout is not valid")
	}
	for name, edit := range map[string]func(l *Layout){
		"a field past the g":   func(l *Layout) { l[WGGoid] = l[WGSize] - 4 },
		"a field past the m":   func(l *Layout) { l[WMCurg] = l[WMSize] },
		"a misaligned field":   func(l *Layout) { l[WGStatus] = 145 },
		"a g of 8 KiB":         func(l *Layout) { l[WGSize] = 8192 },
		"two states the same":  func(l *Layout) { l[WDead] = l[WWaiting] },
		"a scan bit that is 3": func(l *Layout) { l[WScan] = 3 },
		"no allglen":           func(l *Layout) { l[WAllGLen] = 0 },
	} {
		bad := l
		edit(&bad)
		if bad.Valid() {
			t.Errorf("%s: Valid", name)
		}
	}
}

func TestSlot(t *testing.T) {
	if got := unsafe.Sizeof(Slot{}); got != SlotSize {
		t.Fatalf("Slot is %d bytes, SlotSize says %d", got, SlotSize)
	}
	var s Slot
	copy(s.Marker[:], MarkerEmpty)
	raw := unsafe.Slice((*byte)(unsafe.Pointer(&s)), SlotSize)
	if _, ok := s.Read(); ok || s.State() != SlotEmpty {
		t.Fatalf("an empty slot reads as %v", s.State())
	}
	l := testLayout
	if !Fill(raw, &l) {
		t.Fatal("Fill refused a slot")
	}
	if got, ok := s.Read(); !ok || *got != l || s.State() != SlotFilled {
		t.Fatalf("after Fill: %v %v", ok, s.State())
	}
	if !Refuse(raw, "no DWARF") || s.State() != SlotRefused || string(s.RefusalReason()) != "no DWARF" {
		t.Fatalf("after Refuse: %v %q", s.State(), s.RefusalReason())
	}
	if _, ok := s.Read(); ok {
		t.Fatal("a refused slot reads a layout")
	}
	if Fill(make([]byte, SlotSize), &l) || Refuse(make([]byte, SlotSize-1), "x") {
		t.Fatal("Fill or Refuse wrote into bytes that are no slot")
	}
	Fill(raw, &l)
	s.Version++
	if s.State() != SlotOtherVersion {
		t.Fatalf("a slot of another version: %v", s.State())
	}
}
