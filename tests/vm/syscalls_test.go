package vm_test

import (
	"strings"
	"testing"
)

// TestSyscalls boots examples/syscalls on one CPU and on two: x/term sees the console as a
// terminal and a pipe as none, FIONREAD/FIONBIO/FIOCLEX answer as Linux's, a periodic timerfd's
// reads count its expirations and epoll and poll see it, ppoll and select time out, report
// readiness and end with EINTR on a signal (ppoll's mask in place for the call only), sysinfo,
// the resource limits (RLIMIT_AS enforced), /dev/urandom's entropy count, mincore and
// rt_sigpending give Linux's answers, the raw gettimeofday agrees with time.Now, and hostile
// arguments get Linux's answers (edges). The same program passes on the host's Linux. Under the
// launcher, with the network port, FIONREAD of a TCP socket is the host socket's.
func TestSyscalls(t *testing.T) { forEachArch(t, testSyscalls) }

// syscallsChecks are examples/syscalls's checks, each of which prints one line.
var syscallsChecks = []string{"term", "fionread", "timerfd", "poll", "eintr", "sysinfo", "rlimit", "random", "mincore", "sigpending", "clock", "shm", "ns", "netlink", "edges"}

func testSyscalls(t *testing.T, a guestArch) {
	checkOnCPUs(t, a, "examples/syscalls", "syscalls: ", []int{1, 2}, func(t *testing.T, lines []string) {
		if len(lines) != len(syscallsChecks) {
			t.Errorf("%d check results on the console, want %d", len(lines), len(syscallsChecks))
		}
	})
	t.Run("launcher", func(t *testing.T) {
		out, stderr, status := runLauncher(t, a, "-image", a.path("syscalls.elf"), "examples/syscalls", "--", "fionread")
		lines := programLines(consoleLines(out))
		t.Log(strings.Join(lines, "\n"))
		if status != 0 || len(lines) != 1 || !strings.Contains(lines[0], "fionread ok") || !strings.Contains(lines[0], "socket 7") {
			t.Errorf("status %d, stderr:\n%s", status, stderr)
		}
	})
}
