package boot

// PVHMagic is hvm_start_info.magic ("xEn3" with the 0x80 bit of the "E" set).
const PVHMagic = 0x336ec578

// Layout of Xen's struct hvm_start_info and struct hvm_memmap_table_entry
// (xen/include/public/arch-x86/hvm/start_info.h), all little-endian.
const (
	siMagic         = 0
	siVersion       = 4
	siFlags         = 8
	siNrModules     = 12
	siModlistPaddr  = 16
	siCmdlinePaddr  = 24
	siRsdpPaddr     = 32
	siMemmapPaddr   = 40 // version >= 1
	siMemmapEntries = 48 // version >= 1
	siSizeV0        = 40
	siSizeV1        = 56

	memmapEntrySize = 24 // addr u64, size u64, type u32, reserved u32
)

// Limits on what start_info may claim; larger counts are corrupt input.
const (
	MaxModules      = 64
	MaxMemmapInput  = 256 // raw entries; overlaps may still merge below MaxMemoryRanges
	CmdlineCapacity = 4096
)

// ReadPhys copies len(dst) bytes from physical address pa into dst and
// reports success. In the kernel it reads identity-mapped memory (and fails
// outside RAM); tests read a byte slice. It must be a plain function, not a
// closure, so passing it allocates nothing.
type ReadPhys func(pa uintptr, dst []byte) bool

// StartInfo is what ParsePVH extracts. It is large (about 10 KiB): keep it
// in a global, not on a small boot stack.
type StartInfo struct {
	Version     uint32
	Flags       uint32
	NumModules  uint32
	ModlistAddr uint64 // array of NumModules struct hvm_modlist_entry, or 0
	RSDP        uint64 // ACPI RSDP physical address, or 0 if not given
	Memory      MemoryMap

	cmdline    [CmdlineCapacity]byte
	cmdlineLen int

	// Scratch for ParsePVH: read buffers live here rather than on the
	// stack, because a slice handed to a ReadPhys call escapes.
	header [siSizeV1]byte
	entry  [memmapEntrySize]byte
	raw    [MaxMemmapInput]MemoryRange
}

// Cmdline is the kernel command line without its NUL; it aliases s.
func (s *StartInfo) Cmdline() []byte { return s.cmdline[:s.cmdlineLen] }

// ParsePVH reads the hvm_start_info at physical address pa into out. Every
// read goes through read, so a bad pointer in the structure is an error, not
// a fault. A zero address field means "not present" (Xen's rule): no command
// line is an empty one; no memory map, or one without RAM, is an error,
// because the kernel cannot run without RAM. On error out holds what was
// parsed so far.
func ParsePVH(pa uintptr, read ReadPhys, out *StartInfo) Error {
	*out = StartInfo{}
	h := out.header[:]
	if !read(pa, h[:siSizeV0]) {
		return ErrStartInfoRead
	}
	if le32(h[siMagic:]) != PVHMagic {
		return ErrBadMagic
	}
	out.Version = le32(h[siVersion:])
	out.Flags = le32(h[siFlags:])
	out.NumModules = le32(h[siNrModules:])
	out.ModlistAddr = le64(h[siModlistPaddr:])
	out.RSDP = le64(h[siRsdpPaddr:])
	if out.NumModules > MaxModules {
		return ErrTooManyModules
	}
	if err := out.readCmdline(uintptr(le64(h[siCmdlinePaddr:])), read); err != OK {
		return err
	}
	if out.Version < 1 {
		return ErrNoMemoryMap
	}
	if pa+siSizeV0 < pa || !read(pa+siSizeV0, h[siSizeV0:siSizeV1]) {
		return ErrStartInfoRead
	}
	return out.readMemoryMap(uintptr(le64(h[siMemmapPaddr:])), le32(h[siMemmapEntries:]), read)
}

// readCmdline copies the NUL-terminated command line at pa. It reads a page
// at a time, so a short line at the end of RAM does not make it read past.
func (s *StartInfo) readCmdline(pa uintptr, read ReadPhys) Error {
	if pa == 0 {
		return OK
	}
	for n := 0; n < CmdlineCapacity; {
		addr := pa + uintptr(n)
		if addr < pa {
			return ErrCmdlineRead
		}
		chunk := min(CmdlineCapacity-n, int(4096-addr%4096))
		if !read(addr, s.cmdline[n:n+chunk]) {
			return ErrCmdlineRead
		}
		for i, c := range s.cmdline[n : n+chunk] {
			if c == 0 {
				s.cmdlineLen = n + i
				clear(s.cmdline[s.cmdlineLen:])
				return OK
			}
		}
		n += chunk
	}
	clear(s.cmdline[:])
	return ErrCmdlineUnterminated
}

func (s *StartInfo) readMemoryMap(pa uintptr, count uint32, read ReadPhys) Error {
	if pa == 0 || count == 0 {
		return ErrNoMemoryMap
	}
	if count > MaxMemmapInput {
		return ErrMemoryMapCount
	}
	for i := 0; i < int(count); i++ {
		addr := pa + uintptr(i)*memmapEntrySize
		if addr < pa || !read(addr, s.entry[:]) {
			return ErrMemoryMapRead
		}
		s.raw[i] = MemoryRange{
			Addr: le64(s.entry[0:]),
			Size: le64(s.entry[8:]),
			Type: MemoryType(le32(s.entry[16:])),
		}
	}
	if err := s.Memory.Set(s.raw[:count]); err != OK {
		return err
	}
	if s.Memory.RAMBytes() == 0 {
		return ErrNoRAM
	}
	return OK
}

func le32(b []byte) uint32 {
	_ = b[3]
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

func le64(b []byte) uint64 {
	_ = b[7]
	return uint64(le32(b)) | uint64(le32(b[4:]))<<32
}
