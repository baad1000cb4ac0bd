package tracefile

import (
	"bytes"
	"testing"
)

// FuzzOpen feeds arbitrary bytes to the recording reader: it must never
// panic, and every record it returns must be inside the input.
func FuzzOpen(f *testing.F) {
	good := exampleRecording(f)
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add(good[100:])
	f.Add([]byte("UTRC"))
	f.Add([]byte{})
	flipped := bytes.Clone(good)
	flipped[len(flipped)/3] ^= 0x40
	f.Add(flipped)
	f.Fuzz(func(t *testing.T, b []byte) {
		tr, err := Load(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range tr.Records {
			if r.Offset < 0 || r.Offset+int64(len(r.Raw)) > int64(len(b)) {
				t.Fatalf("record at %d+%d outside %d bytes", r.Offset, len(r.Raw), len(b))
			}
			_ = tr.Args(&r.Record)
		}
		tr.Account.CPUs()
		tr.Merged()
	})
}
