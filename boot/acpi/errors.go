package acpi

// Error is an ACPI parse failure. The zero value, OK, is success.
type Error uint8

const (
	OK Error = iota
	ErrNoRSDP
	ErrRSDPRead
	ErrRSDPSignature
	ErrRSDPChecksum
	ErrTableRead
	ErrTableLength
	ErrTableTooLarge
	ErrTableChecksum
	ErrTableSignature
	ErrNotFound
	ErrNoMADT
	ErrMADTEntry
	numErrors // keep last
)

// String describes the error for the console; it never allocates.
func (e Error) String() string {
	switch e {
	case OK:
		return "ok"
	case ErrNoRSDP:
		return "no ACPI RSDP address"
	case ErrRSDPRead:
		return "RSDP unreadable"
	case ErrRSDPSignature:
		return "RSDP signature is not \"RSD PTR \""
	case ErrRSDPChecksum:
		return "RSDP checksum mismatch"
	case ErrTableRead:
		return "ACPI table unreadable"
	case ErrTableLength:
		return "ACPI table length too small"
	case ErrTableTooLarge:
		return "ACPI table larger than the read buffer"
	case ErrTableChecksum:
		return "ACPI table checksum mismatch"
	case ErrTableSignature:
		return "ACPI table has the wrong signature"
	case ErrNotFound:
		return "no such table in the RSDT/XSDT"
	case ErrNoMADT:
		return "no MADT (APIC) table in the RSDT/XSDT"
	case ErrMADTEntry:
		return "MADT entry length runs past the table or is too short"
	}
	return "unknown ACPI error"
}
