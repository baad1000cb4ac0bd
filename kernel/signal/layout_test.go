package signal

import "testing"

// field is one offset here and the runtime field it mirrors.
type field struct {
	got  int64
	path []string // field path in the runtime type
}

func checkFields(t *testing.T, d *runtimeDefs, typ string, fields []field) {
	t.Helper()
	for _, f := range fields {
		if want := d.offset(t, typ, f.path...); f.got != want {
			t.Errorf("%s: %s.%v at %d here, %d in the Go runtime", d.arch, typ, f.path, f.got, want)
		}
	}
}

func checkSize(t *testing.T, d *runtimeDefs, typ string, got int64) {
	t.Helper()
	if want := d.size(t, typ); got != want {
		t.Errorf("%s: sizeof %s is %d here, %d in the Go runtime", d.arch, typ, got, want)
	}
}

func TestActionLayout(t *testing.T) {
	for _, arch := range arches {
		d := loadRuntimeDefs(t, arch)
		checkFields(t, d, "sigactiont", []field{
			{actHandler, []string{"sa_handler"}},
			{actFlags, []string{"sa_flags"}},
			{actRestorer, []string{"sa_restorer"}},
			{actMask, []string{"sa_mask"}},
		})
		checkSize(t, d, "sigactiont", ActionSize)
	}
}

func TestStackLayout(t *testing.T) {
	for _, arch := range arches {
		d := loadRuntimeDefs(t, arch)
		checkFields(t, d, "stackt", []field{
			{ssSP, []string{"ss_sp"}},
			{ssFlags, []string{"ss_flags"}},
			{ssSize, []string{"ss_size"}},
		})
		checkSize(t, d, "stackt", StackSize)
	}
}

func TestInfoLayout(t *testing.T) {
	for _, arch := range arches {
		d := loadRuntimeDefs(t, arch)
		checkFields(t, d, "siginfo", []field{
			{siSigno, []string{"siginfoFields", "si_signo"}},
			{siErrno, []string{"siginfoFields", "si_errno"}},
			{siCode, []string{"siginfoFields", "si_code"}},
			{siAddr, []string{"siginfoFields", "si_addr"}},
		})
		checkSize(t, d, "siginfo", InfoSize)
	}
	// si_pid is the union's first member too (the runtime names only si_addr there).
	if siPid != siAddr {
		t.Errorf("si_pid at %d, si_addr at %d: both start the union", siPid, siAddr)
	}
	// The timer's members (include/uapi/asm-generic/siginfo.h _sifields._timer: int _tid, int
	// _overrun, sigval_t _sigval), which the runtime does not name: the union is 8-aligned.
	if siTid != siAddr || siOver != siTid+4 || siValue != siTid+8 {
		t.Errorf("si_tid, si_overrun, si_value at %d, %d, %d; want 16, 20, 24", siTid, siOver, siValue)
	}
}

// TestAMD64Layout checks the x86-64 ucontext, sigcontext and FP state against the runtime's
// types, which its handler (runtime/signal_linux_amd64.go) reads the frame through.
func TestAMD64Layout(t *testing.T) {
	d := loadRuntimeDefs(t, "amd64")
	checkFields(t, d, "ucontext", []field{
		{amd64UcFlags, []string{"uc_flags"}},
		{amd64UcLink, []string{"uc_link"}},
		{amd64UcStack, []string{"uc_stack"}},
		{amd64UcMcontext, []string{"uc_mcontext"}},
		{amd64UcSigmask, []string{"uc_sigmask"}},
	})
	checkFields(t, d, "sigcontext", []field{
		{amd64ScR8, []string{"r8"}}, {amd64ScR9, []string{"r9"}}, {amd64ScR10, []string{"r10"}},
		{amd64ScR11, []string{"r11"}}, {amd64ScR12, []string{"r12"}}, {amd64ScR13, []string{"r13"}},
		{amd64ScR14, []string{"r14"}}, {amd64ScR15, []string{"r15"}}, {amd64ScRDI, []string{"rdi"}},
		{amd64ScRSI, []string{"rsi"}}, {amd64ScRBP, []string{"rbp"}}, {amd64ScRBX, []string{"rbx"}},
		{amd64ScRDX, []string{"rdx"}}, {amd64ScRAX, []string{"rax"}}, {amd64ScRCX, []string{"rcx"}},
		{amd64ScRSP, []string{"rsp"}}, {amd64ScRIP, []string{"rip"}}, {amd64ScEflags, []string{"eflags"}},
		{amd64ScCS, []string{"cs"}}, {amd64ScSS, []string{"__pad0"}},
		{amd64ScErr, []string{"err"}}, {amd64ScTrapno, []string{"trapno"}},
		{amd64ScOldmask, []string{"oldmask"}}, {amd64ScCR2, []string{"cr2"}},
		{amd64ScFpstate, []string{"fpstate"}},
	})
	checkSize(t, d, "sigcontext", amd64ScSize)
	// The runtime casts uc_mcontext (glibc's mcontext_t) to its sigcontext: the same bytes.
	checkSize(t, d, "mcontext", amd64ScSize)
	checkFields(t, d, "fpstate", []field{{amd64FPMXCSR, []string{"mxcsr"}}})
	checkSize(t, d, "fpstate", AMD64FPSize)
}

// TestAMD64FramePins pins struct rt_sigframe, which the runtime does not declare: pretcode, then
// the kernel's ucontext (its sigset_t is SigsetSize bytes, not glibc's 128), then siginfo.
func TestAMD64FramePins(t *testing.T) {
	for _, p := range []struct {
		name      string
		got, want int64
	}{
		{"rt_sigframe.pretcode", amd64Pretcode, 0},
		{"rt_sigframe.uc", amd64Uc, 8},
		{"sizeof(struct ucontext)", amd64UcSize, 304},
		{"rt_sigframe.info", amd64Info, 312},
		{"sizeof(struct rt_sigframe)", AMD64FrameSize, 440},
		{"the red zone", AMD64RedZone, 128},
		{"the FP state's alignment", amd64FPAlign, 64},
		{"RFLAGS rt_sigreturn restores", amd64SigreturnFlags, 0x254dd5},
	} {
		if p.got != p.want {
			t.Errorf("%s = %#x, want %#x", p.name, p.got, p.want)
		}
	}
}

// TestARM64Layout checks the arm64 ucontext and sigcontext against the runtime's types, which
// its handler (runtime/signal_linux_arm64.go) reads the frame through.
func TestARM64Layout(t *testing.T) {
	d := loadRuntimeDefs(t, "arm64")
	checkFields(t, d, "ucontext", []field{
		{arm64UcFlags, []string{"uc_flags"}},
		{arm64UcLink, []string{"uc_link"}},
		{arm64UcStack, []string{"uc_stack"}},
		{arm64UcSigmask, []string{"uc_sigmask"}},
		{arm64UcMcontext, []string{"uc_mcontext"}},
	})
	checkSize(t, d, "ucontext", arm64UcSize)
	checkFields(t, d, "sigcontext", []field{
		{arm64ScFault, []string{"fault_address"}},
		{arm64ScRegs, []string{"regs"}},
		{arm64ScSP, []string{"sp"}},
		{arm64ScPC, []string{"pc"}},
		{arm64ScPstate, []string{"pstate"}},
		{arm64ScReserved, []string{"__reserved"}},
	})
	checkSize(t, d, "sigcontext", arm64ScSize)
}

// TestARM64FramePins pins struct rt_sigframe and the frame record, which the runtime does not
// declare.
func TestARM64FramePins(t *testing.T) {
	for _, p := range []struct {
		name      string
		got, want int64
	}{
		{"rt_sigframe.info", arm64Info, 0},
		{"rt_sigframe.uc", arm64Uc, 128},
		{"sizeof(struct rt_sigframe)", ARM64FrameSize, 4688},
		{"the frame record", arm64Record, 4688},
		{"sizeof(struct frame_record)", arm64RecordSize, 16},
		{"the bytes below sp", ARM64BelowSP, 16},
		{"PSTATE NZCV", arm64PstateNZCV, 0xf0000000},
	} {
		if p.got != p.want {
			t.Errorf("%s = %#x, want %#x", p.name, p.got, p.want)
		}
	}
	if arm64Record%16 != 0 {
		t.Errorf("the frame record at %d is not 16-byte aligned", arm64Record)
	}
}

// TestARM64RecordPins pins the __reserved records (arch/arm64/include/uapi/asm/sigcontext.h).
func TestARM64RecordPins(t *testing.T) {
	for _, p := range []struct {
		name      string
		got, want int64
	}{
		{"_aarch64_ctx.magic", arm64CtxMagic, 0},
		{"_aarch64_ctx.size", arm64CtxSize, 4},
		{"FPSIMD_MAGIC", arm64FpsimdMagic, 0x46508001},
		{"fpsimd_context.fpsr", arm64FpsimdFPSR, 8},
		{"fpsimd_context.fpcr", arm64FpsimdFPCR, 12},
		{"fpsimd_context.vregs", arm64FpsimdVregs, 16},
		{"sizeof(struct fpsimd_context)", arm64FpsimdSize, 16 + 32*16},
		{"ESR_MAGIC", arm64EsrMagic, 0x45535201},
		{"esr_context.esr", arm64EsrESR, 8},
		{"sizeof(struct esr_context)", arm64EsrSize, 16},
	} {
		if p.got != p.want {
			t.Errorf("%s = %#x, want %#x", p.name, p.got, p.want)
		}
	}
	// fpsimd_context, esr_context and the null record fit in __reserved, 16-aligned each.
	if end := arm64FpsimdSize + arm64EsrSize + 16; end > arm64ReservedSize || arm64FpsimdSize%16 != 0 {
		t.Errorf("the records take %d bytes of __reserved's %d", end, arm64ReservedSize)
	}
}
