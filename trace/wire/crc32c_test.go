package wire

import (
	"hash/crc32"
	"testing"
)

// TestCRC32C checks the frames' own CRC32C against hash/crc32's Castagnoli for every length up
// to a few slicing blocks and for a continued sum.
func TestCRC32C(t *testing.T) {
	table := crc32.MakeTable(crc32.Castagnoli)
	b := make([]byte, 100)
	for i := range b {
		b[i] = byte(i*37 + 11)
	}
	for n := 0; n <= len(b); n++ {
		if got, want := crc32c(0, b[:n]), crc32.Checksum(b[:n], table); got != want {
			t.Fatalf("crc32c of %d bytes = %#x, want %#x", n, got, want)
		}
	}
	if got, want := crc32c(crc32c(0, b[:13]), b[13:]), crc32.Checksum(b, table); got != want {
		t.Fatalf("continued crc32c = %#x, want %#x", got, want)
	}
}

// FuzzCRC32C: any split of any input gives hash/crc32's Castagnoli sum.
func FuzzCRC32C(f *testing.F) {
	f.Add([]byte("unitrace"), 3)
	table := crc32.MakeTable(crc32.Castagnoli)
	f.Fuzz(func(t *testing.T, b []byte, split int) {
		split = min(max(split, 0), len(b))
		if got, want := crc32c(crc32c(0, b[:split]), b[split:]), crc32.Checksum(b, table); got != want {
			t.Fatalf("crc32c = %#x, want %#x", got, want)
		}
	})
}
