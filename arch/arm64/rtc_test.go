package arm64

import "testing"

func TestPL031Identification(t *testing.T) {
	// PL031: PeriphID0-3 = 0x31, 0x10, 0x04, 0x00 (part 0x031, designer 0x41, revision 0).
	if !pl031Identifies(0x31, 0x10, 0x04) {
		t.Error("PL031 not recognized")
	}
	if !pl031Identifies(0xffff_ff31, 0x10, 0x14) {
		t.Error("bits above 7:0 or the revision must not matter")
	}
	for _, id := range [][3]uint32{{0x11, 0x10, 0x14}, {0x31, 0x11, 0x04}, {0x31, 0x10, 0x05}, {0, 0, 0}} {
		if pl031Identifies(id[0], id[1], id[2]) {
			t.Errorf("%#x recognized as a PL031", id)
		}
	}
	if (RTCTime{Seconds: 1_700_000_000}).Unix() != 1_700_000_000 {
		t.Error("Unix")
	}
}
