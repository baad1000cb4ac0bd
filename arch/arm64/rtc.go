package arm64

// RTCTime is a reading of the PL031 real-time clock: seconds since 1970-01-01 UTC (QEMU starts
// it at the host's time).
type RTCTime struct{ Seconds uint32 }

// Unix converts t to seconds since 1970-01-01 UTC.
func (t RTCTime) Unix() int64 { return int64(t.Seconds) }

// pl031Identifies reports whether the PrimeCell identification registers (PeriphID0-3, each
// holding one byte in bits 7:0) say PL031: part number 0x031, designer 0x41 (Arm).
func pl031Identifies(id0, id1, id2 uint32) bool {
	part := id0&0xff | (id1&0xf)<<8
	designer := (id1>>4)&0xf | (id2&0xf)<<4
	return part == 0x031 && designer == 0x41
}
