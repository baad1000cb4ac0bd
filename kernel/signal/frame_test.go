package signal

import (
	"encoding/binary"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/unitrace/unitrace/arch/amd64"
)

// stackMem is a piece of a thread's memory: the bytes at [base, base+len(b)).
type stackMem struct {
	base uintptr
	b    []byte
}

func newStackMem(base uintptr, size int) *stackMem { return &stackMem{base, make([]byte, size)} }

// at returns the n bytes at addr, which must be inside.
func (m *stackMem) at(t *testing.T, addr, n uintptr) []byte {
	t.Helper()
	if addr < m.base || addr+n > m.base+uintptr(len(m.b)) {
		t.Fatalf("%#x+%d is outside the stack [%#x, %#x)", addr, n, m.base, m.base+uintptr(len(m.b)))
	}
	return m.b[addr-m.base : addr-m.base+n]
}

func (m *stackMem) u64(t *testing.T, addr uintptr) uint64 {
	return binary.LittleEndian.Uint64(m.at(t, addr, 8))
}

func randomAMD64Context(r *rand.Rand) AMD64Context {
	var c AMD64Context
	v := reflect.ValueOf(&c).Elem()
	for i := range v.NumField() {
		v.Field(i).SetUint(r.Uint64() >> (64 - v.Field(i).Type().Bits()))
	}
	return c
}

func randomSaved(r *rand.Rand) Saved {
	s := Saved{
		Info:  Info{Signo: int32(1 + r.IntN(NSIG)), Code: []int32{SI_USER, SI_TKILL, SI_KERNEL, SEGV_MAPERR, SEGV_ACCERR}[r.IntN(5)], Addr: r.Uint64(), Pid: r.Int32()},
		Mask:  Set(r.Uint64()) &^ Unblockable,
		Stack: Stack{SP: r.Uint64(), Flags: []int32{0, SS_ONSTACK, SS_DISABLE}[r.IntN(3)], Size: r.Uint64()},
	}
	return s
}

// checkCommon checks what both arches' frames hold the same way, at the runtime's offsets:
// siginfo at info, and uc_stack and uc_sigmask in the ucontext at uc.
func checkCommon(t *testing.T, d *runtimeDefs, m *stackMem, info, uc uintptr, s Saved) {
	t.Helper()
	si := m.at(t, info, InfoSize)
	le := binary.LittleEndian
	if got := int32(le.Uint32(si[d.offset(t, "siginfo", "siginfoFields", "si_signo"):])); got != s.Info.Signo {
		t.Errorf("%s: si_signo %d, want %d", d.arch, got, s.Info.Signo)
	}
	if got := int32(le.Uint32(si[d.offset(t, "siginfo", "siginfoFields", "si_code"):])); got != s.Info.Code {
		t.Errorf("%s: si_code %d, want %d", d.arch, got, s.Info.Code)
	}
	addr := d.offset(t, "siginfo", "siginfoFields", "si_addr")
	if s.Info.fromSender() {
		if got := int32(le.Uint32(si[addr:])); got != s.Info.Pid {
			t.Errorf("%s: si_pid %d, want %d", d.arch, got, s.Info.Pid)
		}
	} else if got := le.Uint64(si[addr:]); got != s.Info.Addr {
		t.Errorf("%s: si_addr %#x, want %#x", d.arch, got, s.Info.Addr)
	}
	stack := uc + uintptr(d.offset(t, "ucontext", "uc_stack"))
	if got := m.u64(t, stack+uintptr(d.offset(t, "stackt", "ss_sp"))); got != s.Stack.SP {
		t.Errorf("%s: uc_stack.ss_sp %#x, want %#x", d.arch, got, s.Stack.SP)
	}
	if got := int32(le.Uint32(m.at(t, stack+uintptr(d.offset(t, "stackt", "ss_flags")), 4))); got != s.Stack.Flags {
		t.Errorf("%s: uc_stack.ss_flags %d, want %d", d.arch, got, s.Stack.Flags)
	}
	if got := m.u64(t, stack+uintptr(d.offset(t, "stackt", "ss_size"))); got != s.Stack.Size {
		t.Errorf("%s: uc_stack.ss_size %#x, want %#x", d.arch, got, s.Stack.Size)
	}
	if got := Set(m.u64(t, uc+uintptr(d.offset(t, "ucontext", "uc_sigmask")))); got != s.Mask {
		t.Errorf("%s: uc_sigmask %#x, want %#x", d.arch, got, s.Mask)
	}
}

// amd64Slots maps the runtime's sigcontext fields to AMD64Context's.
var amd64Slots = map[string]string{
	"r8": "R8", "r9": "R9", "r10": "R10", "r11": "R11", "r12": "R12", "r13": "R13", "r14": "R14", "r15": "R15",
	"rdi": "RDI", "rsi": "RSI", "rbp": "RBP", "rbx": "RBX", "rdx": "RDX", "rax": "RAX", "rcx": "RCX",
	"rsp": "RSP", "rip": "RIP", "eflags": "RFLAGS", "cs": "CS", "__pad0": "SS",
	"err": "Err", "trapno": "Trapno", "cr2": "CR2",
}

// TestAMD64Frame builds frames for random contexts and reads them at the offsets the Go
// runtime's handler uses, then back as rt_sigreturn does.
func TestAMD64Frame(t *testing.T) {
	d := loadRuntimeDefs(t, "amd64")
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		c := randomAMD64Context(r)
		var fx [AMD64FPSize]byte
		for i := range fx {
			fx[i] = byte(r.Uint32())
		}
		s := randomSaved(r)
		m := newStackMem(0x7f0000000000, 8192)
		top := m.base + 4096 + uintptr(r.IntN(4096))
		l := PlaceAMD64(top)
		if l.Base < m.base || l.Base+l.Size() > top {
			t.Fatalf("frame [%#x, %#x) is not below top %#x", l.Base, l.Base+l.Size(), top)
		}
		if l.FPState%64 != 0 || (l.Base+8)%16 != 0 || l.Base+AMD64FrameSize > l.FPState {
			t.Fatalf("frame at %#x, FP state at %#x: misaligned or overlapping", l.Base, l.FPState)
		}
		restorer := r.Uint64()
		PutAMD64(m.at(t, l.Base, l.Size()), l, &c, &fx, s, restorer)

		call := l.Call(SIGURG, 0x401000)
		if call.PC != 0x401000 || call.SP != uint64(l.Base) || call.Sig != SIGURG {
			t.Fatalf("handler call %+v", call)
		}
		if m.u64(t, uintptr(call.SP)) != restorer {
			t.Errorf("the handler's return address is not the restorer")
		}
		// What a frame-pointer walk that meets the restorer reads (package unwind).
		for off, want := range map[uintptr]uint64{AMD64FrameRIP: c.RIP, AMD64FrameRSP: c.RSP, AMD64FrameRBP: c.RBP} {
			if got := m.u64(t, l.Base+off); got != want {
				t.Errorf("the word at Base+%d = %#x, want %#x", off, got, want)
			}
		}
		uc := uintptr(call.Uc)
		checkCommon(t, d, m, uintptr(call.Info), uc, s)
		mc := uc + uintptr(d.offset(t, "ucontext", "uc_mcontext"))
		cv := reflect.ValueOf(c)
		for rt, ours := range amd64Slots {
			off := mc + uintptr(d.offset(t, "sigcontext", rt))
			f := cv.FieldByName(ours)
			n := uintptr(f.Type().Bits() / 8)
			var got uint64
			if n == 2 {
				got = uint64(binary.LittleEndian.Uint16(m.at(t, off, 2)))
			} else {
				got = m.u64(t, off)
			}
			if got != f.Uint() {
				t.Errorf("sigcontext.%s = %#x, want %#x (%s)", rt, got, f.Uint(), ours)
			}
		}
		if got := Set(m.u64(t, mc+uintptr(d.offset(t, "sigcontext", "oldmask")))); got != s.Mask {
			t.Errorf("sigcontext.oldmask %#x, want %#x", got, s.Mask)
		}
		fp := uintptr(m.u64(t, mc+uintptr(d.offset(t, "sigcontext", "fpstate"))))
		if fp != l.FPState || string(m.at(t, fp, AMD64FPSize)) != string(fx[:]) {
			t.Errorf("sigcontext.fpstate %#x (FP state at %#x) does not hold the FXSAVE image", fp, l.FPState)
		}

		// The handler returns: RET pops pretcode, the restorer asks for rt_sigreturn.
		frame := AMD64FrameAt(uintptr(call.SP) + 8)
		if frame != l.Base {
			t.Fatalf("rt_sigreturn looks for the frame at %#x, it is at %#x", frame, l.Base)
		}
		var back AMD64Context
		mask, fpstate := ReadAMD64(m.at(t, frame, AMD64FrameSize), &back)
		if back != c || mask != s.Mask || fpstate != l.FPState {
			t.Fatalf("read back %+v mask %#x fp %#x\nbuilt %+v mask %#x fp %#x", back, mask, fpstate, c, s.Mask, l.FPState)
		}
		var fx2 [AMD64FPSize]byte
		RestoreFX(&fx2, m.at(t, fpstate, AMD64FPSize))
		want := fx
		want[amd64FPMXCSR+2], want[amd64FPMXCSR+3] = 0, 0
		if fx2 != want {
			t.Errorf("the FP state does not come back (MXCSR's reserved half cleared)")
		}
	}
}

// TestAMD64FrameModified checks that what a handler changes in the frame is what rt_sigreturn
// restores, as the runtime's asynchronous preemption relies on: it moves rip to asyncPreempt
// and pushes the old rip on the interrupted stack by editing rsp and rip in the sigcontext.
func TestAMD64FrameModified(t *testing.T) {
	d := loadRuntimeDefs(t, "amd64")
	m := newStackMem(0x10000, 4096)
	l := PlaceAMD64(m.base + 4096)
	c := AMD64Context{RIP: 0x1111, RSP: 0x2222, RFLAGS: 0x246, RAX: 7}
	var fx [AMD64FPSize]byte
	PutAMD64(m.at(t, l.Base, l.Size()), l, &c, &fx, Saved{Mask: Bit(SIGURG)}, 0)
	mc := l.Base + amd64Uc + uintptr(d.offset(t, "ucontext", "uc_mcontext"))
	binary.LittleEndian.PutUint64(m.at(t, mc+uintptr(d.offset(t, "sigcontext", "rip")), 8), 0x3333)
	binary.LittleEndian.PutUint64(m.at(t, mc+uintptr(d.offset(t, "sigcontext", "rsp")), 8), 0x2222-8)
	binary.LittleEndian.PutUint64(m.at(t, l.Base+amd64Uc+uintptr(d.offset(t, "ucontext", "uc_sigmask")), 8), uint64(Bit(SIGKILL)|Bit(SIGCHLD)))
	var back AMD64Context
	mask, _ := ReadAMD64(m.at(t, l.Base, AMD64FrameSize), &back)
	want := c
	want.RIP, want.RSP = 0x3333, 0x2222-8
	if back != want {
		t.Errorf("restored %+v, want %+v", back, want)
	}
	var th Thread
	th.SetMask(mask)
	if th.Mask != Bit(SIGCHLD) {
		t.Errorf("restored mask %#x, want %#x: SIGKILL cannot be blocked", th.Mask, Bit(SIGCHLD))
	}
}

func TestAMD64Flags(t *testing.T) {
	if rflagsIF != amd64.FlagIF || rflagsDF != amd64.FlagDF || rflagsTF != amd64.FlagTF || rflagsAC != amd64.FlagAC || rflagsNT != amd64.FlagNT {
		t.Fatal("RFLAGS bits differ from arch/amd64's")
	}
	const kernel = amd64.InitialFlags | 3<<12 // IF, bit 1 and IOPL: none of them the program's
	if got := AMD64RestoredFlags(kernel, 0); got != kernel {
		t.Errorf("restoring flags 0 gives %#x, want the kernel's %#x", got, kernel)
	}
	if got := AMD64RestoredFlags(0, ^uint64(0)); got != amd64SigreturnFlags|rflagsIF {
		t.Errorf("restoring all flags gives %#x, want %#x", got, amd64SigreturnFlags|rflagsIF)
	}
	if got := AMD64HandlerFlags(amd64.InitialFlags | rflagsDF | rflagsTF | rflagsCF); got != amd64.InitialFlags|rflagsCF {
		t.Errorf("handler flags %#x: DF and TF must be clear, the rest kept", got)
	}
}

// TestARM64Frame builds frames for random contexts and reads them at the offsets the Go
// runtime's handler uses, then back as rt_sigreturn does.
func TestARM64Frame(t *testing.T) {
	d := loadRuntimeDefs(t, "arm64")
	r := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		var c ARM64Context
		for i := range c.X {
			c.X[i] = r.Uint64()
		}
		c.SP, c.PC, c.Pstate, c.FaultAddress, c.ESR = r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64()
		c.FPSR, c.FPCR = uint64(r.Uint32()), uint64(r.Uint32())
		var v [64]uint64
		for i := range v {
			v[i] = r.Uint64()
		}
		s := randomSaved(r)
		m := newStackMem(0x4000_0000, 16384)
		top := m.base + 8192 + uintptr(r.IntN(8192))
		l := PlaceARM64(top)
		if l.Base < m.base || l.Base+l.Size() > top || l.Base%16 != 0 {
			t.Fatalf("frame [%#x, %#x) is not 16-aligned below top %#x", l.Base, l.Base+l.Size(), top)
		}
		PutARM64(m.at(t, l.Base, l.Size()), l, &c, &v, s)

		call := l.Call(SIGSEGV, 0x500000, 0x600000)
		if call.PC != 0x500000 || call.SP != uint64(l.Base) || call.Sig != SIGSEGV || call.LR != 0x600000 {
			t.Fatalf("handler call %+v", call)
		}
		uc := uintptr(call.Uc)
		checkCommon(t, d, m, uintptr(call.Info), uc, s)
		mc := uc + uintptr(d.offset(t, "ucontext", "uc_mcontext"))
		regs := mc + uintptr(d.offset(t, "sigcontext", "regs"))
		for i, x := range c.X {
			if got := m.u64(t, regs+uintptr(8*i)); got != x {
				t.Errorf("sigcontext.regs[%d] = %#x, want %#x", i, got, x)
			}
		}
		for name, want := range map[string]uint64{"fault_address": c.FaultAddress, "sp": c.SP, "pc": c.PC, "pstate": c.Pstate} {
			if got := m.u64(t, mc+uintptr(d.offset(t, "sigcontext", name))); got != want {
				t.Errorf("sigcontext.%s = %#x, want %#x", name, got, want)
			}
		}
		// The frame record x29 points at links the interrupted frame pointer and pc.
		if fp := uintptr(call.FP); fp%16 != 0 || m.u64(t, fp) != c.X[29] || m.u64(t, fp+8) != c.PC || fp+16 > top {
			t.Errorf("the frame record at %#x does not hold {x29, pc} inside the frame", fp)
		}
		// What a frame-pointer walk that meets the restorer reads (package unwind).
		if uintptr(call.FP) != l.Base+ARM64FrameRecord {
			t.Errorf("x29 = %#x, want Base+ARM64FrameRecord = %#x", call.FP, l.Base+ARM64FrameRecord)
		}
		for off, want := range map[uintptr]uint64{ARM64FramePC: c.PC, ARM64FrameSP: c.SP, ARM64FrameX29: c.X[29], ARM64FrameX30: c.X[30]} {
			if got := m.u64(t, l.Base+off); got != want {
				t.Errorf("the word at Base+%d = %#x, want %#x", off, got, want)
			}
		}
		// __reserved: fpsimd_context, esr_context, the null record.
		res := mc + uintptr(d.offset(t, "sigcontext", "__reserved"))
		le := binary.LittleEndian
		hdr := func(a uintptr) (uint32, uint32) {
			b := m.at(t, a, 8)
			return le.Uint32(b), le.Uint32(b[4:])
		}
		if magic, size := hdr(res); magic != arm64FpsimdMagic || size != arm64FpsimdSize {
			t.Errorf("first record %#x/%d, want fpsimd_context", magic, size)
		}
		if magic, size := hdr(res + arm64FpsimdSize); magic != arm64EsrMagic || size != arm64EsrSize || m.u64(t, res+arm64FpsimdSize+8) != c.ESR {
			t.Errorf("second record %#x/%d, want esr_context with ESR %#x", magic, size, c.ESR)
		}
		if magic, size := hdr(res + arm64FpsimdSize + arm64EsrSize); magic != 0 || size != 0 {
			t.Errorf("the record list does not end after esr_context")
		}

		// The handler returns to the trampoline with sp back at the frame.
		frame := ARM64FrameAt(uintptr(call.SP))
		var back ARM64Context
		var v2 [64]uint64
		mask, fp := ReadARM64(m.at(t, frame, ARM64FrameSize), &back, &v2)
		if back != c || v2 != v || mask != s.Mask || !fp {
			t.Fatalf("read back %+v mask %#x fp %v\nbuilt %+v mask %#x", back, mask, fp, c, s.Mask)
		}
	}
}

// TestARM64FrameModified checks that what a handler changes is what rt_sigreturn restores, and
// that a frame whose first record is not an fpsimd_context leaves the FP state alone.
func TestARM64FrameModified(t *testing.T) {
	d := loadRuntimeDefs(t, "arm64")
	m := newStackMem(0x10000, 8192)
	l := PlaceARM64(m.base + 8192)
	c := ARM64Context{PC: 0x1111, SP: 0x2220, FPSR: 1, FPCR: 2}
	c.X[30] = 0x4444
	v := [64]uint64{5, 6}
	PutARM64(m.at(t, l.Base, l.Size()), l, &c, &v, Saved{})
	mc := l.Base + arm64Uc + uintptr(d.offset(t, "ucontext", "uc_mcontext"))
	// asyncPreempt's injection on arm64: lr = the old pc, pc = asyncPreempt, sp lowered.
	binary.LittleEndian.PutUint64(m.at(t, mc+uintptr(d.offset(t, "sigcontext", "regs"))+30*8, 8), 0x1111)
	binary.LittleEndian.PutUint64(m.at(t, mc+uintptr(d.offset(t, "sigcontext", "pc")), 8), 0x3333)
	binary.LittleEndian.PutUint64(m.at(t, mc+uintptr(d.offset(t, "sigcontext", "sp")), 8), 0x2210)
	var back ARM64Context
	v2 := v
	if _, fp := ReadARM64(m.at(t, l.Base, ARM64FrameSize), &back, &v2); !fp {
		t.Fatal("the fpsimd_context was not found")
	}
	want := c
	want.X[30], want.PC, want.SP = 0x1111, 0x3333, 0x2210
	if back != want {
		t.Errorf("restored %+v, want %+v", back, want)
	}

	binary.LittleEndian.PutUint32(m.at(t, mc+uintptr(d.offset(t, "sigcontext", "__reserved")), 4), 0)
	v3 := [64]uint64{9}
	back = ARM64Context{FPSR: 7, FPCR: 8}
	if _, fp := ReadARM64(m.at(t, l.Base, ARM64FrameSize), &back, &v3); fp || v3 != [64]uint64{9} || back.FPSR != 7 || back.FPCR != 8 {
		t.Errorf("a frame without fpsimd_context changed the FP state (fp %v)", fp)
	}
}

func TestARM64Pstate(t *testing.T) {
	const kernel = 0x3c5 // EL1h mode bits, DAIF set: none of them the program's
	if got := ARM64RestoredPstate(kernel, ^uint64(0)); got != kernel|arm64PstateNZCV {
		t.Errorf("restoring all of pstate gives %#x, want %#x", got, kernel|arm64PstateNZCV)
	}
	if got := ARM64RestoredPstate(kernel|arm64PstateNZCV, 0); got != kernel {
		t.Errorf("restoring pstate 0 gives %#x, want %#x", got, kernel)
	}
}

func TestARM64Return(t *testing.T) {
	for _, c := range []struct {
		a    Action
		want uint64
	}{
		{Action{}, 0x100},
		{Action{Restorer: 0x200}, 0x100},
		{Action{Flags: SA_RESTORER}, 0x100},
		{Action{Flags: SA_RESTORER, Restorer: 0x200}, 0x200},
	} {
		if got := ARM64Return(c.a, 0x100); got != c.want {
			t.Errorf("ARM64Return(%+v) = %#x, want %#x", c.a, got, c.want)
		}
	}
}
