package exitstatus

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"testing"
)

func TestOf(t *testing.T) {
	fs := func() *flag.FlagSet {
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.Int("n", 0, "")
		return fs
	}
	for _, tt := range []struct {
		err  error
		want int
	}{
		{nil, OK},
		{ParseFlags(fs(), []string{"-n", "3"}), OK},
		{ParseFlags(fs(), []string{"-h"}), OK},
		{ParseFlags(fs(), []string{"-help"}), OK},
		{ParseFlags(fs(), []string{"-bogus"}), Usage},
		{ParseFlags(fs(), []string{"-n", "many"}), Usage},
		{UsageError{errors.New("want FILE")}, Usage},
		{fmt.Errorf("building: %w", UsageError{errors.New("bad arch")}), Usage},
		{errors.New("no such file"), Failure},
	} {
		if got := Of(tt.err); got != tt.want {
			t.Errorf("Of(%v) = %d, want %d", tt.err, got, tt.want)
		}
	}
}
