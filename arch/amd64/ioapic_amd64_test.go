package amd64

import "testing"

// TestDeviceGSI checks which vectors are device lines: the shared GSIs 16-47 always, a legacy
// GSI only once routed.
func TestDeviceGSI(t *testing.T) {
	consoleVector := uint64(FirstDeviceVector + ConsoleGSI)
	for _, c := range []struct {
		vector uint64
		legacy uint32
		gsi    uint32
		ok     bool
	}{
		{FirstDeviceVector + 16, 0, 16, true},
		{FirstDeviceVector + maxGSI - 1, 0, maxGSI - 1, true},
		{FirstDeviceVector + maxGSI, 0, 0, false},
		{consoleVector, 0, 0, false},
		{consoleVector, 1 << ConsoleGSI, ConsoleGSI, true},
		{consoleVector + 1, 1 << ConsoleGSI, 0, false},
		{FirstDeviceVector - 1, 0xffff, 0, false},
		{VectorTimer, 0xffff, 0, false},
	} {
		gsi, ok := deviceGSI(c.vector, c.legacy)
		if gsi != c.gsi || ok != c.ok {
			t.Errorf("deviceGSI(%d, %#x) = %d, %v, want %d, %v", c.vector, c.legacy, gsi, ok, c.gsi, c.ok)
		}
	}
}
