package symtab

// funcPCSP is the offset of the pcsp table's offset in the runtime's _func
// record (runtime2.go). The flag byte follows funcID in the 32-bit word at
// funcFuncID.
const funcPCSP = 16

// FuncFlag is abi.FuncFlag: what the linker knows about a function that an
// unwinder must respect.
type FuncFlag uint8

const (
	// FuncFlagTopFrame marks a function at the top of its stack (goexit,
	// mstart, rt0_go): there is no caller to find.
	FuncFlagTopFrame FuncFlag = 1 << 0
	// FuncFlagSPWrite marks a function that writes SP in a way the pcsp
	// table cannot describe (stack switches): its SP delta is unreliable.
	FuncFlagSPWrite FuncFlag = 1 << 1
	// FuncFlagAsm marks a function written in assembly.
	FuncFlagAsm FuncFlag = 1 << 2
)

// Func describes the physical function that holds a pc.
type Func struct {
	Entry uintptr // first instruction
	// End is the entry of the next function in the table: the function's
	// code plus the padding after it.
	End  uintptr
	Name []byte   // symbol name; a slice of the table's bytes
	ID   uint8    // abi.FuncID: 0 for ordinary functions
	Flag FuncFlag // abi.FuncFlag
}

// FuncAt returns the physical function that holds pc (inlining ignored).
// ok is false when no function holds pc.
func (t *Table) FuncAt(pc uintptr) (Func, bool) {
	f, _, ok := t.findFunc(pc)
	if !ok {
		return Func{}, false
	}
	name, ok := t.name(int32(t.field(f, funcNameOff)))
	if !ok {
		return Func{}, false
	}
	idFlag := t.field(f, funcFuncID) // funcID, flag, pad, nfuncdata
	return Func{
		Entry: t.text + uintptr(f.entry),
		End:   t.text + uintptr(f.end),
		Name:  name,
		ID:    uint8(idFlag),
		Flag:  FuncFlag(idFlag >> 8),
	}, true
}

// SPDelta returns, for the instruction at pc, how many bytes the function
// holding pc has pushed or allocated below the stack pointer it was entered
// with: the runtime's funcspdelta. On amd64 the caller's return address is
// then at SP+delta; on arm64 a delta of 0 means the function has not saved
// LR (or has restored it). pc must be the instruction itself, not a return
// address. ok is false when no function holds pc or its pcsp table is
// missing or corrupt.
func (t *Table) SPDelta(pc uintptr) (int32, bool) {
	f, off, ok := t.findFunc(pc)
	if !ok {
		return 0, false
	}
	d, ok := t.pcvalue(f, t.field(f, funcPCSP), off)
	if !ok || d < 0 {
		return 0, false
	}
	return d, true
}

// FrameAt returns what an unwinder needs at the instruction pc, with one
// search of the function table: the SP delta there (SPDelta) and the flags of
// the function holding pc, which say whether the delta can be trusted
// (FuncFlagSPWrite) and whether the function has a caller at all
// (FuncFlagTopFrame). pc must be the instruction itself: for a return address,
// the address minus 1 (CallPC). ok is false when no function holds pc or its
// pcsp table is missing or corrupt.
func (t *Table) FrameAt(pc uintptr) (delta int32, flag FuncFlag, ok bool) {
	f, off, ok := t.findFunc(pc)
	if !ok {
		return 0, 0, false
	}
	flag = FuncFlag(t.field(f, funcFuncID) >> 8)
	d, ok := t.pcvalue(f, t.field(f, funcPCSP), off)
	if !ok || d < 0 {
		return 0, flag, false
	}
	return d, flag, true
}
