package vm_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/unitrace/unitrace/internal/vmconfig"
)

// checkOnCPUs boots app once with each number of CPUs in cpus and hands each boot's console
// lines that start with prefix to check, after logging them; a line with " FAIL " fails the
// test, and so does any end but exit status 0. It serves the examples that check themselves and
// print one line per check (examples/timers, examples/fpstate).
func checkOnCPUs(t *testing.T, a guestArch, app, prefix string, cpus []int, check func(t *testing.T, lines []string)) {
	img := buildImage(t, a, app)
	for _, n := range cpus {
		t.Run(fmt.Sprintf("%dcpu", n), func(t *testing.T) {
			cfg := a.config(img)
			cfg.SMP = n
			console, out := bootVM(t, cfg)
			var lines []string
			for _, l := range programLines(console) {
				if strings.HasPrefix(l, prefix) {
					t.Log(l)
					lines = append(lines, l)
					if strings.Contains(l, " FAIL ") {
						t.Error(l)
					}
				}
			}
			if out.Kind != vmconfig.Exited || out.Status != 0 {
				t.Errorf("outcome %+v", out)
			}
			check(t, lines)
		})
	}
}
