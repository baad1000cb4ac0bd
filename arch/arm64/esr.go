package arm64

// Decoding ESR_EL1, the exception syndrome (Arm ARM D19.2.37), for the kernel's trap handler:
// which kind of synchronous exception a Frame holds, and for aborts what went wrong where.

// Exception classes (ESR_EL1.EC, bits 31:26).
const (
	ECUnknown          = 0x00 // includes UNDEFINED instructions (and HLT without semihosting)
	ECWFx              = 0x01
	ECFPAccess         = 0x07 // FP/SIMD access trapped by CPACR_EL1.FPEN
	ECIllegalState     = 0x0e
	ECSVC64            = 0x15 // SVC in AArch64: the system call
	ECHVC64            = 0x16
	ECSMC64            = 0x17
	ECSysReg           = 0x18 // MSR/MRS/system instruction trapped
	ECSVE              = 0x19
	ECInstrAbortLower  = 0x20
	ECInstrAbort       = 0x21 // instruction abort at the same EL (EL1t threads included)
	ECPCAlign          = 0x22
	ECDataAbortLower   = 0x24
	ECDataAbort        = 0x25 // data abort at the same EL
	ECSPAlign          = 0x26
	ECFPException64    = 0x2c
	ECSError           = 0x2f
	ECBreakpointLower  = 0x30
	ECBreakpoint       = 0x31
	ECSoftStepLower    = 0x32
	ECSoftStep         = 0x33
	ECWatchpointLower  = 0x34
	ECWatchpoint       = 0x35
	ECBRK64            = 0x3c // BRK in AArch64
	esrECShift         = 26
	esrECMask          = 0x3f
	esrISSMask         = 0x1ff_ffff
	esrIL              = 1 << 25
	esrDataWnR         = 1 << 6 // data abort: the access was a write
	esrDataCM          = 1 << 8 // data abort: cache maintenance (reported as a write)
	esrFSCMask         = 0x3f
	esrSVCImmMask      = 0xffff
	esrInstrLen32      = 4
	esrFSCAlignment    = 0x21
	esrFSCSyncExternal = 0x10
)

// ESRClass returns the exception class of a syndrome.
func ESRClass(esr uint64) uint32 { return uint32(esr>>esrECShift) & esrECMask }

// ESRISS returns the instruction-specific syndrome.
func ESRISS(esr uint64) uint32 { return uint32(esr) & esrISSMask }

// SVCImmediate returns the 16-bit immediate of an SVC (ESR class ECSVC64): 0 for Linux calls.
func SVCImmediate(esr uint64) uint16 { return uint16(esr & esrSVCImmMask) }

// FaultKind says why an instruction or data abort happened (the fault status code's group).
type FaultKind uint8

const (
	FaultOther       FaultKind = iota // not an abort, or a status code not listed here
	FaultAddressSize                  // the address is beyond the configured sizes
	FaultTranslation                  // nothing mapped: demand paging, or SIGSEGV (SEGV_MAPERR)
	FaultAccessFlag                   // AF clear (never with PageTable, which always sets AF)
	FaultPermission                   // mapped but not allowed: SIGSEGV (SEGV_ACCERR)
	FaultAlignment                    // SIGBUS (BUS_ADRALN)
	FaultExternal                     // synchronous external abort: SIGBUS
)

var faultKindNames = [...]string{"other", "address size", "translation", "access flag", "permission", "alignment", "external"}

func (k FaultKind) String() string {
	if int(k) < len(faultKindNames) {
		return faultKindNames[k]
	}
	return "invalid"
}

// IsAbort reports whether the syndrome is an instruction or data abort (from any EL).
func IsAbort(esr uint64) bool {
	switch ESRClass(esr) {
	case ECInstrAbort, ECInstrAbortLower, ECDataAbort, ECDataAbortLower:
		return true
	}
	return false
}

// AbortFault classifies an abort's fault status code (ISS bits 5:0, Arm ARM D19.2.37 tables
// for DFSC/IFSC) and returns the translation level it names (0-3, or -1 when the code names
// none). For a syndrome that is not an abort it returns FaultOther, -1.
func AbortFault(esr uint64) (kind FaultKind, level int) {
	if !IsAbort(esr) {
		return FaultOther, -1
	}
	fsc := uint32(esr) & esrFSCMask
	switch {
	case fsc <= 0x03:
		return FaultAddressSize, int(fsc & 3)
	case fsc <= 0x07:
		return FaultTranslation, int(fsc & 3)
	case fsc <= 0x0b:
		return FaultAccessFlag, int(fsc & 3)
	case fsc <= 0x0f:
		return FaultPermission, int(fsc & 3)
	case fsc == esrFSCAlignment:
		return FaultAlignment, -1
	case fsc == esrFSCSyncExternal:
		return FaultExternal, -1
	case fsc >= 0x14 && fsc <= 0x17: // synchronous external abort on a table walk
		return FaultExternal, int(fsc & 3)
	}
	return FaultOther, -1
}

// AbortIsWrite reports whether a data abort was caused by a write (WnR set, and not a cache
// maintenance instruction, which reports WnR = 1 for reads too).
func AbortIsWrite(esr uint64) bool {
	c := ESRClass(esr)
	return (c == ECDataAbort || c == ECDataAbortLower) && esr&esrDataWnR != 0 && esr&esrDataCM == 0
}

// AbortIsFetch reports whether an abort was an instruction fetch.
func AbortIsFetch(esr uint64) bool {
	c := ESRClass(esr)
	return c == ECInstrAbort || c == ECInstrAbortLower
}
