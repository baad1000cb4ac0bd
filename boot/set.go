package boot

// Filling a StartInfo from another boot protocol: on arm64 the device tree gives the memory
// and the command line, and the kernel hands both to the same StartInfo the PVH path fills, so
// the rest of the kernel reads one structure on both architectures.

// SetCmdline copies line (up to its first NUL) as the command line. A line that does not fit
// is refused with ErrCmdlineUnterminated and leaves the command line empty.
func (s *StartInfo) SetCmdline(line []byte) Error {
	for i, c := range line {
		if c == 0 {
			line = line[:i]
			break
		}
	}
	clear(s.cmdline[:])
	s.cmdlineLen = 0
	if len(line) >= CmdlineCapacity {
		return ErrCmdlineUnterminated
	}
	s.cmdlineLen = copy(s.cmdline[:], line)
	return OK
}

// SetRAM records n RAM regions (address, size pairs from regions) as the memory map, through
// the same normalisation as the PVH map (MemoryMap.Set).
func (s *StartInfo) SetRAM(addrs, sizes []uint64) Error {
	n := min(len(addrs), len(sizes), len(s.raw))
	for i := 0; i < n; i++ {
		s.raw[i] = MemoryRange{Addr: addrs[i], Size: sizes[i], Type: MemoryRAM}
	}
	return s.Memory.Set(s.raw[:n])
}
