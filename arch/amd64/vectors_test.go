package amd64

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

//go:generate go run mkvectors.go -o vectors_amd64.s

// TestVectorsGenerated fails when vectors_amd64.s is stale: it reruns the generator and
// compares.
func TestVectorsGenerated(t *testing.T) {
	out := filepath.Join(t.TempDir(), "vectors.s")
	cmd := exec.Command("go", "run", "mkvectors.go", "-o", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mkvectors: %v\n%s", err, b)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("vectors_amd64.s")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("vectors_amd64.s is stale: run go generate ./arch/amd64")
	}
}

// The generator's error-code table and hasErrorCode must agree: a mismatch shifts every
// Frame field by one word.
func TestErrorCodeVectors(t *testing.T) {
	src, err := os.ReadFile("vectors_amd64.s")
	if err != nil {
		t.Fatal(err)
	}
	for v := 0; v < NumVectors; v++ {
		marker := []byte("// vector " + itoa(v) + "\n\tBYTE\t$0x6a; BYTE $0x00 // PUSHQ $0 (error code)")
		pushesZero := bytes.Contains(src, marker)
		if pushesZero == hasErrorCode(v) {
			t.Errorf("vector %d: stub pushes a zero error code = %v, but hasErrorCode = %v", v, pushesZero, hasErrorCode(v))
		}
	}
}

func itoa(v int) string {
	if v == 0 {
		return "0"
	}
	var b []byte
	for ; v > 0; v /= 10 {
		b = append([]byte{byte('0' + v%10)}, b...)
	}
	return string(b)
}
