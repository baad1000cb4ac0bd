package wire

import "encoding/binary"

// Allocation-free encoders for the frames the guest kernel builds itself, in place, in a
// device buffer: the DATA frames of the drain, and the STATS and END frames of the final flush
// at exit. They write exactly the layouts the Message encoders append (the tests check one
// against the other), into a slice the caller has sized; each returns the bytes it wrote, or 0
// when dst is too short.

// PutHeader writes the frame header for payload (already in place, or anywhere) into dst[:24].
func PutHeader(dst []byte, typ Type, flags uint16, seq uint32, payload []byte) int {
	if len(dst) < HeaderSize || len(payload) > MaxPayload {
		return 0
	}
	copy(dst, Magic)
	dst[offVersion] = Version
	dst[offType] = byte(typ)
	binary.LittleEndian.PutUint16(dst[offFlags:], flags)
	binary.LittleEndian.PutUint32(dst[offLength:], uint32(len(payload)))
	binary.LittleEndian.PutUint32(dst[offSeq:], seq)
	binary.LittleEndian.PutUint32(dst[offCRC:], Checksum(dst[:crcCovered], payload))
	binary.LittleEndian.PutUint32(dst[offReserved:], 0)
	return HeaderSize
}

// PutDataHeader writes the DATA payload header (the records follow it).
func PutDataHeader(dst []byte, cpu uint16, firstSeq uint32) int {
	if len(dst) < DataHeaderSize {
		return 0
	}
	binary.LittleEndian.PutUint16(dst[0:], cpu)
	binary.LittleEndian.PutUint16(dst[2:], 0)
	binary.LittleEndian.PutUint32(dst[4:], firstSeq)
	return DataHeaderSize
}

// StatsHeaderSize and StatsCPUSize are the sizes of a STATS payload's parts.
const (
	StatsHeaderSize = 16
	StatsCPUSize    = 8 + 8*NumCounters
)

// PutStatsHeader writes the STATS payload header for ncpu CPUs (their counters follow it).
func PutStatsHeader(dst []byte, ticks uint64, ncpu int) int {
	if len(dst) < StatsHeaderSize || ncpu < 0 || ncpu > 1<<16-1 {
		return 0
	}
	binary.LittleEndian.PutUint64(dst[0:], ticks)
	binary.LittleEndian.PutUint16(dst[8:], uint16(ncpu))
	binary.LittleEndian.PutUint16(dst[10:], NumCounters)
	binary.LittleEndian.PutUint32(dst[12:], 0)
	return StatsHeaderSize
}

// PutCPUStats writes one CPU's counters of a STATS payload.
func PutCPUStats(dst []byte, c *CPUStats) int {
	if len(dst) < StatsCPUSize {
		return 0
	}
	binary.LittleEndian.PutUint16(dst[0:], c.CPU)
	binary.LittleEndian.PutUint16(dst[2:], 0)
	binary.LittleEndian.PutUint32(dst[4:], 0)
	vals := [NumCounters]uint64{c.Written, c.Bytes, c.DroppedFull, c.DroppedNested, c.DroppedEarly,
		c.TruncatedStacks, c.WalkStops, c.SamplerTicks, c.SamplerLate, c.Throttled, c.Overwritten,
		c.DroppedOther, c.Discarded, c.Pending}
	for i, v := range vals {
		binary.LittleEndian.PutUint64(dst[8+8*i:], v)
	}
	return StatsCPUSize
}

// EndSize is the size of an END payload without a message.
const EndSize = 18

// PutEnd writes an END payload without a message.
func PutEnd(dst []byte, reason EndReason, status int32, ticks uint64) int {
	if len(dst) < EndSize {
		return 0
	}
	dst[0], dst[1] = byte(reason), 0
	binary.LittleEndian.PutUint16(dst[2:], 0)
	binary.LittleEndian.PutUint32(dst[4:], uint32(status))
	binary.LittleEndian.PutUint64(dst[8:], ticks)
	binary.LittleEndian.PutUint16(dst[16:], 0) // empty message
	return EndSize
}
