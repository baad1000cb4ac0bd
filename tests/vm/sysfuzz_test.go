package vm_test

import (
	"os"
	"strings"
	"testing"
)

const sysfuzzApp = "examples/sysfuzz"

// TestSysfuzz runs the system-call fuzzer (examples/sysfuzz) in the guest, 4 threads on 2 CPUs
// for 20000 calls, with its scratch directory on the in-memory file system and on a
// shared host directory, on both architectures: no kernel fault (the launcher's status 70), and
// the fuzzer's own checks of its memory and of the file system afterwards must pass
// ("sysfuzz: ok"). Longer runs: scripts/sysfuzz.sh.
func TestSysfuzz(t *testing.T) {
	forEachArch(t, func(t *testing.T, a guestArch) {
		img := buildImage(t, a, sysfuzzApp)
		for _, where := range []string{"memfs", "share"} {
			t.Run(where, func(t *testing.T) {
				args := []string{"-smp", "2", "-timeout", vmTimeout.String(), "-image", img}
				dir := "/tmp"
				if where == "share" {
					host := t.TempDir()
					args = append(args, "-share", host+":/mnt")
					dir = "/mnt"
					defer func() {
						if left, _ := os.ReadDir(host); len(left) != 0 {
							t.Errorf("the fuzzer left %d entries in the shared directory", len(left))
						}
					}()
				}
				args = append(args, sysfuzzApp, "--", "-dir", dir, "-threads", "4", "-calls", "20000", "-time", "60s", "-seed", "7")
				stdout, stderr, status := runLauncher(t, a, args...)
				lines := consoleLines(stdout)
				if status != 0 {
					t.Errorf("status %d (70: kernel fault)\nstderr:\n%s", status, stderr)
				}
				var stats int
				ok := false
				for _, l := range lines {
					if strings.HasPrefix(l, "stat ") {
						stats++
					}
					if l == "sysfuzz: ok" {
						ok = true
					}
				}
				if !ok || stats < 50 {
					t.Errorf("no \"sysfuzz: ok\" or only %d calls reported:\n%s", stats, stdout)
				}
			})
		}
	})
}
