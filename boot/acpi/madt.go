package acpi

// The Multiple APIC Description Table (ACPI 6.5 §5.2.12): a 44-byte header (the common
// 36-byte table header, the local APIC address and flags) and a list of variable-length
// entries, each starting with its type and length bytes.
const (
	headerSize     = 36
	headerLength   = 4
	madtLocalAPIC  = 36
	madtFlags      = 40
	madtEntries    = 44
	entryLAPIC     = 0 // Processor Local APIC
	entryIOAPIC    = 1 // I/O APIC
	entryOverride  = 5 // Local APIC Address Override
	entryX2APIC    = 9 // Processor Local x2APIC
	lapicEntrySize = 8
	ioapicSize     = 12
	overrideSize   = 12
	x2apicSize     = 16

	flagEnabled       = 1 << 0
	flagOnlineCapable = 1 << 1
)

// Limits on what the MADT may list; further entries are counted in Dropped.
const (
	MaxCPUs    = 256
	MaxIOAPICs = 8
)

// CPU is one processor entry (type 0 or 9).
type CPU struct {
	APICID uint32 // local APIC ID (8 bits from a type 0 entry, 32 from a type 9 entry)
	UID    uint32 // ACPI processor UID
	// Enabled: the CPU is usable now. OnlineCapable: it is not enabled but may be brought
	// online later (ACPI 6.3+). A CPU with neither must not be started.
	Enabled       bool
	OnlineCapable bool
	X2APIC        bool // listed as a Processor Local x2APIC entry
}

// IOAPIC is one I/O APIC entry.
type IOAPIC struct {
	ID      uint8
	Addr    uint32 // MMIO base
	GSIBase uint32 // first global system interrupt of its pins
}

// MADT is what the table says about CPUs and interrupt controllers, in table order.
type MADT struct {
	LocalAPICAddr uint64 // from the header, or from an address override entry
	PCATCompat    bool   // flag bit 0: the legacy 8259 PICs exist (and must be masked)
	CPUs          [MaxCPUs]CPU
	NumCPUs       int
	IOAPICs       [MaxIOAPICs]IOAPIC
	NumIOAPICs    int
	Dropped       int // CPU or I/O APIC entries past the fixed capacity
}

// Usable reports whether the CPU may be started: enabled or online-capable.
func (c CPU) Usable() bool { return c.Enabled || c.OnlineCapable }

// ParseMADT decodes a whole MADT (signature "APIC", checksum and length already checked by
// the caller or not: it checks them again, since it is also the fuzzing entry). Entry types
// it does not need are skipped by their length.
func ParseMADT(t []byte, out *MADT) Error {
	*out = MADT{}
	if e := checkTable(t, signatureMADT); e != OK {
		return e
	}
	t = t[:le32(t[headerLength:])]
	if len(t) < madtEntries {
		return ErrTableLength
	}
	out.LocalAPICAddr = uint64(le32(t[madtLocalAPIC:]))
	out.PCATCompat = le32(t[madtFlags:])&1 != 0
	for off := madtEntries; off < len(t); {
		if len(t)-off < 2 {
			return ErrMADTEntry
		}
		typ, n := t[off], int(t[off+1])
		if n < 2 || n > len(t)-off {
			return ErrMADTEntry
		}
		e := t[off : off+n]
		switch {
		case typ == entryLAPIC && n >= lapicEntrySize:
			flags := le32(e[4:])
			out.addCPU(CPU{APICID: uint32(e[3]), UID: uint32(e[2]),
				Enabled: flags&flagEnabled != 0, OnlineCapable: flags&flagOnlineCapable != 0})
		case typ == entryX2APIC && n >= x2apicSize:
			flags := le32(e[8:])
			out.addCPU(CPU{APICID: le32(e[4:]), UID: le32(e[12:]), X2APIC: true,
				Enabled: flags&flagEnabled != 0, OnlineCapable: flags&flagOnlineCapable != 0})
		case typ == entryIOAPIC && n >= ioapicSize:
			if out.NumIOAPICs == MaxIOAPICs {
				out.Dropped++
				break
			}
			out.IOAPICs[out.NumIOAPICs] = IOAPIC{ID: e[2], Addr: le32(e[4:]), GSIBase: le32(e[8:])}
			out.NumIOAPICs++
		case typ == entryOverride && n >= overrideSize:
			out.LocalAPICAddr = le64(e[4:])
		case typ == entryLAPIC || typ == entryX2APIC || typ == entryIOAPIC || typ == entryOverride:
			return ErrMADTEntry // a known entry too short for its fields
		}
		off += n
	}
	return OK
}

func (m *MADT) addCPU(c CPU) {
	if m.NumCPUs == MaxCPUs {
		m.Dropped++
		return
	}
	m.CPUs[m.NumCPUs] = c
	m.NumCPUs++
}
