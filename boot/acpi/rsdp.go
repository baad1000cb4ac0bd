package acpi

// The Root System Description Pointer (ACPI 6.5 §5.2.5.3): 20 bytes in revision 0 (ACPI 1.0),
// 36 bytes from revision 2 on, which adds the 64-bit XSDT address.
const (
	rsdpSizeV1   = 20
	rsdpSizeV2   = 36
	rsdpRevision = 15
	rsdpRSDT     = 16
	rsdpLength   = 20
	rsdpXSDT     = 24
)

var rsdpSignature = [8]byte{'R', 'S', 'D', ' ', 'P', 'T', 'R', ' '}

// RSDP is what the root pointer says: where the RSDT (32-bit entries) and, from revision 2,
// the XSDT (64-bit entries) are.
type RSDP struct {
	Revision uint8
	RSDT     uint32
	XSDT     uint64 // 0 before revision 2
}

// ParseRSDP checks and decodes a root pointer. b holds at least the 20 bytes of revision 0;
// a revision 2 pointer needs all 36 (its extended checksum covers them).
func ParseRSDP(b []byte) (RSDP, Error) {
	if len(b) < rsdpSizeV1 {
		return RSDP{}, ErrRSDPRead
	}
	if [8]byte(b[:8]) != rsdpSignature {
		return RSDP{}, ErrRSDPSignature
	}
	if sum(b[:rsdpSizeV1]) != 0 {
		return RSDP{}, ErrRSDPChecksum
	}
	r := RSDP{Revision: b[rsdpRevision], RSDT: le32(b[rsdpRSDT:])}
	if r.Revision < 2 {
		return r, OK
	}
	if len(b) < rsdpSizeV2 {
		return RSDP{}, ErrRSDPRead
	}
	// The extended checksum covers Length bytes; only the 36 defined ones are read, and a
	// Length that claims fewer is corrupt.
	if le32(b[rsdpLength:]) < rsdpSizeV2 || sum(b[:rsdpSizeV2]) != 0 {
		return RSDP{}, ErrRSDPChecksum
	}
	r.XSDT = le64(b[rsdpXSDT:])
	return r, OK
}

// sum is the byte sum that ACPI checksums make zero.
func sum(b []byte) uint8 {
	var s uint8
	for _, c := range b {
		s += c
	}
	return s
}

func le16(b []byte) uint16 {
	if len(b) < 2 {
		return 0
	}
	return uint16(b[0]) | uint16(b[1])<<8
}

func le32(b []byte) uint32 {
	if len(b) < 4 {
		return 0
	}
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

func le64(b []byte) uint64 {
	if len(b) < 8 {
		return 0
	}
	return uint64(le32(b)) | uint64(le32(b[4:]))<<32
}
