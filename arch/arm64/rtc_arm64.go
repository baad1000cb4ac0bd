package arm64

// The wall clock: a PL031 real-time clock (Arm DDI 0224), read once at boot.

const (
	rtcDR        = 0x000 // data register: the current time in seconds
	rtcPeriphID0 = 0xfe0
	rtcPeriphID1 = 0xfe4
	rtcPeriphID2 = 0xfe8
)

// rtcBase is the PL031 in use; written by InitRTC.
var rtcBase uintptr = DefaultRTCBase

// InitRTC selects the PL031 at base (0: DefaultRTCBase).
func InitRTC(base uintptr) {
	if base != 0 {
		rtcBase = base
	}
}

// ReadRTC reads the PL031. It returns the zero time if the device at the configured base does
// not identify as a PL031.
func ReadRTC() RTCTime {
	if !pl031Identifies(mmioRead32(rtcBase+rtcPeriphID0), mmioRead32(rtcBase+rtcPeriphID1),
		mmioRead32(rtcBase+rtcPeriphID2)) {
		return RTCTime{}
	}
	return RTCTime{Seconds: mmioRead32(rtcBase + rtcDR)}
}
