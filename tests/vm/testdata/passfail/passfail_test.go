package passfail

import (
	"os"
	"testing"
)

func TestPasses(t *testing.T) {
	if got := Double(21); got != 42 {
		t.Fatalf("Double(21) = %d, want 42", got)
	}
	t.Logf("args %q", os.Args[1:])
}

// TestFails fails unless PASSFAIL_SKIP_FAILING is set, so both outcomes can be checked.
func TestFails(t *testing.T) {
	if os.Getenv("PASSFAIL_SKIP_FAILING") != "" {
		t.Skip("PASSFAIL_SKIP_FAILING is set")
	}
	t.Errorf("this test fails on purpose")
}

// TestHangs never ends when PASSFAIL_HANG is set (and skips otherwise), so a hung test's report
// can be checked.
func TestHangs(t *testing.T) {
	if os.Getenv("PASSFAIL_HANG") == "" {
		t.Skip("PASSFAIL_HANG is not set")
	}
	t.Run("inner", func(t *testing.T) { select {} })
}
