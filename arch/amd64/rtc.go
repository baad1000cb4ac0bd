package amd64

// RTCTime is a calendar reading of the CMOS clock, in UTC as QEMU keeps it.
type RTCTime struct{ Year, Month, Day, Hour, Minute, Second int }

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
