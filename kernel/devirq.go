package kernel

import (
	"github.com/unitrace/unitrace/kernel/core"
	"github.com/unitrace/unitrace/kernel/dev/serial"
	"github.com/unitrace/unitrace/kernel/dev/shares"
	"github.com/unitrace/unitrace/trace/record"
)

// deviceInterrupt handles a device line: it returns false if neither the trace device nor a
// shared directory's raised it. Each is asked, since lines can be shared.
func deviceInterrupt() bool {
	core.SetWaker(record.WakerSerial)
	traced := serial.TraceDeviceInterrupt()
	core.SetWaker(record.WakerShare)
	shared := shares.Interrupt()
	core.SetWaker(record.WakerThread)
	return traced || shared
}

// strayRun counts, per line (hashed), the device interrupts in a row that no device claimed.
var strayRun [64]uint16

// strayLineLimit is how many unclaimed interrupts in a row make a line stray. One is not
// enough: each device's handler takes every device's completions, so an interrupt can find
// its device's status already acknowledged by another line's handler, which ran between the
// device raising its line and the CPU taking it. A line nobody drives fires again at once,
// and reaches the limit within microseconds.
const strayLineLimit = 1000

// strayLine counts an interrupt on line that a device claimed or not, and reports whether the
// line has now gone unclaimed strayLineLimit times in a row.
func strayLine(line uint32, claimed bool) bool {
	c := &strayRun[line%uint32(len(strayRun))]
	if claimed {
		*c = 0
		return false
	}
	if *c++; *c < strayLineLimit {
		return false
	}
	*c = 0
	return true
}
