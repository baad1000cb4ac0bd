package amd64

import (
	"testing"
	"time"
)

func TestRTCUnix(t *testing.T) {
	for _, tm := range []time.Time{
		time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2000, 2, 29, 23, 59, 59, 0, time.UTC),
		time.Date(2026, 11, 29, 7, 3, 45, 0, time.UTC),
		time.Date(2100, 3, 1, 12, 0, 0, 0, time.UTC),
	} {
		r := RTCTime{tm.Year(), int(tm.Month()), tm.Day(), tm.Hour(), tm.Minute(), tm.Second()}
		if got := r.Unix(); got != tm.Unix() {
			t.Errorf("%v: Unix() = %d, want %d", tm, got, tm.Unix())
		}
	}
}
