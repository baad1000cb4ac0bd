package amd64

// The CMOS real-time clock (MC146818), read once at boot for the wall clock.

const (
	cmosIndex = 0x70
	cmosData  = 0x71
)

func cmosRead(reg uint8) uint8 {
	Outb(cmosIndex, reg|0x80) // bit 7: keep NMIs masked while we talk to the RTC
	return Inb(cmosData)
}

// ReadRTC reads the CMOS clock, waiting out an update in progress and reading until two
// consecutive readings agree, and converts BCD and 12-hour formats.
func ReadRTC() RTCTime {
	var prev RTCTime
	for i := 0; i < 1000; i++ {
		for j := 0; j < 100000 && cmosRead(0x0a)&0x80 != 0; j++ { // update in progress
			Pause()
		}
		t := rtcSnapshot()
		if i > 0 && t == prev {
			return t
		}
		prev = t
	}
	return prev
}

func rtcSnapshot() RTCTime {
	status := cmosRead(0x0b)
	bcd := status&0x04 == 0
	h24 := status&0x02 != 0
	conv := func(v uint8) int {
		if bcd {
			return int(v>>4)*10 + int(v&0x0f)
		}
		return int(v)
	}
	hourRaw := cmosRead(0x04)
	pm := hourRaw&0x80 != 0
	hour := conv(hourRaw & 0x7f)
	if !h24 {
		hour %= 12
		if pm {
			hour += 12
		}
	}
	year := conv(cmosRead(0x09))
	century := conv(cmosRead(0x32))
	if century < 19 || century > 30 {
		century = 20
	}
	return RTCTime{
		Year: century*100 + year, Month: conv(cmosRead(0x08)), Day: conv(cmosRead(0x07)),
		Hour: hour, Minute: conv(cmosRead(0x02)), Second: conv(cmosRead(0x00)),
	}
}
