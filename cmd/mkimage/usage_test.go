package main

import (
	"testing"

	"github.com/unitrace/unitrace/internal/selfexec"
)

// TestMain runs main instead of the tests in a child started by selfexec.Command.
func TestMain(m *testing.M) { selfexec.Main(m, main) }

// TestUsageStatuses: -h and -help print the usage and exit 0; a flag mkimage does not define
// exits 2.
func TestUsageStatuses(t *testing.T) {
	selfexec.CheckHelp(t, [][]string{{"-h"}, {"-help"}, {"--help"}})
	selfexec.CheckUsageErrors(t, [][]string{{"-no-such-flag"}})
}
