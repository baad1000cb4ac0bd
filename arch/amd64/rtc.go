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

// RTCTime is a calendar reading of the CMOS clock, in UTC as QEMU keeps it.
type RTCTime struct{ Year, Month, Day, Hour, Minute, Second int }

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

// Unix converts t to seconds since 1970-01-01 UTC.
func (t RTCTime) Unix() int64 {
	days := daysFromCivil(t.Year, t.Month, t.Day)
	return days*86400 + int64(t.Hour)*3600 + int64(t.Minute)*60 + int64(t.Second)
}

// daysFromCivil counts days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar
// (Howard Hinnant's algorithm, public domain description).
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}
