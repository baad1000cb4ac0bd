package arm64

// AT_HWCAP for the program: the Go runtime on linux/arm64 learns the CPU's optional features
// (AES, SHA, CRC32, LSE atomics, ...) from the auxiliary vector, not from ID registers, so the
// kernel computes the Linux bits from the ID registers (arch/arm64/include/uapi/asm/hwcap.h).

// Linux HWCAP bits.
const (
	HWCapFP      = 1 << 0
	HWCapASIMD   = 1 << 1
	HWCapAES     = 1 << 3
	HWCapPMULL   = 1 << 4
	HWCapSHA1    = 1 << 5
	HWCapSHA2    = 1 << 6
	HWCapCRC32   = 1 << 7
	HWCapATOMICS = 1 << 8
	HWCapFPHP    = 1 << 9
	HWCapASIMDHP = 1 << 10
	HWCapRDM     = 1 << 12
	HWCapSHA3    = 1 << 17
	HWCapSM3     = 1 << 18
	HWCapSM4     = 1 << 19
	HWCapASIMDDP = 1 << 20
	HWCapSHA512  = 1 << 21
	HWCapFHM     = 1 << 23
)

// idField returns the 4-bit ID register field at shift.
func idField(reg uint64, shift uint) uint64 { return reg >> shift & 0xf }

// HWCapFromID computes AT_HWCAP from ID_AA64ISAR0_EL1 and ID_AA64PFR0_EL1 (Arm ARM D19.2.61 and
// D19.2.64). SVE is never reported: the kernel keeps it disabled and saves no SVE state.
func HWCapFromID(isar0, pfr0 uint64) uint64 {
	var h uint64
	if fp := idField(pfr0, 16); fp != 0xf {
		h |= HWCapFP
		if fp >= 1 {
			h |= HWCapFPHP
		}
	}
	if simd := idField(pfr0, 20); simd != 0xf {
		h |= HWCapASIMD
		if simd >= 1 {
			h |= HWCapASIMDHP
		}
	}
	switch idField(isar0, 4) {
	case 1:
		h |= HWCapAES
	case 2:
		h |= HWCapAES | HWCapPMULL
	}
	if idField(isar0, 8) >= 1 {
		h |= HWCapSHA1
	}
	switch idField(isar0, 12) {
	case 1:
		h |= HWCapSHA2
	case 2:
		h |= HWCapSHA2 | HWCapSHA512
	}
	if idField(isar0, 16) >= 1 {
		h |= HWCapCRC32
	}
	if idField(isar0, 20) >= 2 {
		h |= HWCapATOMICS
	}
	if idField(isar0, 28) >= 1 {
		h |= HWCapRDM
	}
	if idField(isar0, 32) >= 1 {
		h |= HWCapSHA3
	}
	if idField(isar0, 36) >= 1 {
		h |= HWCapSM3
	}
	if idField(isar0, 40) >= 1 {
		h |= HWCapSM4
	}
	if idField(isar0, 44) >= 1 {
		h |= HWCapASIMDDP
	}
	if idField(isar0, 48) >= 1 {
		h |= HWCapFHM
	}
	return h
}
